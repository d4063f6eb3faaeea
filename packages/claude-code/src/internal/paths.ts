import * as os from "node:os"

/**
 * A single path segment that cannot name anything but a child: non-empty, no `/`, `\` or NUL,
 * not only dots or spaces.
 *
 * @internal
 */
export const isSafeSegment = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && !/[/\\\0]/.test(value) && !/^[. ]+$/.test(value)

/**
 * A project key: one safe path segment without `..` anywhere in it.
 *
 * @internal
 */
export const isProjectKey = (value: unknown): value is string => isSafeSegment(value) && !value.includes("..")

/**
 * `~` and a leading `~/` expanded to the home directory.
 *
 * @internal
 */
export const expandHome = (dir: string): string =>
  dir === "~" ? os.homedir() : dir.startsWith("~/") ? os.homedir() + dir.slice(1) : dir
