/**
 * Sets and restores the `statusLine` of a Claude Code `settings.json` for `acx statusline
 * install` / `uninstall`. Pure and total, like `ClaudeSettingsMerge`: any JSON value in
 * (`undefined` meaning "no file yet"), a new value or a one-line problem out; every other key
 * stays as it was, in order.
 *
 * Claude Code takes one statusline, so acx's replaces the one there, which is kept in the install
 * record ({@link Installed}): uninstall puts it back, and `--wrap` runs it inside acx's. A
 * `statusLine` that is already acx's (the record's) keeps the record's previous one, so
 * installing twice, or again with other options, never loses the user's.
 *
 * @since 0.4.0
 */
import { jsonEqual, type JsonObject } from "./ClaudeSettingsMerge.js"
import { isObject, own, withKey, withoutKey } from "./internal/jsonObject.js"

/**
 * What an install left in one settings file: the `statusLine` written and the one it replaced
 * (`null`: there was none).
 *
 * @since 0.4.0
 * @category models
 */
export interface Installed {
  readonly installed: JsonObject
  readonly previous: JsonObject | null
}

/**
 * The outcome: the new settings (`changed: false`: the input itself), the record to keep, and a
 * note when something was deliberately left alone.
 *
 * @since 0.4.0
 * @category models
 */
export type Outcome =
  | {
    readonly ok: true
    readonly value: unknown
    readonly changed: boolean
    readonly record: Installed | undefined
    readonly note: string | undefined
  }
  | { readonly ok: false; readonly problem: string }

/** The settings object, `{}` for no file; a problem for anything else. */
const settingsObject = (settings: unknown): JsonObject | string =>
  settings === undefined
    ? {}
    : isObject(settings)
    ? settings
    : "the settings file is not a JSON object"

/**
 * The `statusLine` acx writes: a command, keeping the replaced one's `padding`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const statusLineOf = (command: string, previous: JsonObject | null): JsonObject =>
  previous !== null && own(previous, "padding") !== undefined
    ? { type: "command", command, padding: own(previous, "padding") }
    : { type: "command", command }

/**
 * The previous statusline's command, when it is a command one (what `--wrap` runs).
 *
 * @since 0.4.0
 * @category constructors
 */
export const commandOf = (statusLine: JsonObject | null): string | undefined => {
  const command = statusLine === null ? undefined : own(statusLine, "command")
  return typeof command === "string" && command.trim() !== "" ? command : undefined
}

/**
 * Installs: `desired` builds acx's `statusLine` from the one it replaces (so `--wrap` can name
 * its command). `record` is what an earlier install left for this file.
 *
 * @since 0.4.0
 * @category merging
 */
export const install = (
  settings: unknown,
  desired: (previous: JsonObject | null) => JsonObject,
  record: Installed | undefined
): Outcome => {
  const object = settingsObject(settings)
  if (typeof object === "string") return { ok: false, problem: object }
  const current = own(object, "statusLine")
  if (current !== undefined && !isObject(current)) return { ok: false, problem: "its statusLine is not an object" }
  const previous = record !== undefined && jsonEqual(current, record.installed)
    ? record.previous
    : (current ?? null) as JsonObject | null
  const installed = desired(previous)
  const next = { installed, previous }
  if (jsonEqual(current, installed)) return { ok: true, value: settings, changed: false, record: next, note: undefined }
  return { ok: true, value: withKey(object, "statusLine", installed), changed: true, record: next, note: undefined }
}

/**
 * Uninstalls: puts the replaced `statusLine` back (or removes the key when there was none) when
 * the file still holds the one acx installed; one changed since is left alone, with a note.
 *
 * @since 0.4.0
 * @category merging
 */
export const uninstall = (settings: unknown, record: Installed | undefined): Outcome => {
  const object = settingsObject(settings)
  if (typeof object === "string") return { ok: false, problem: object }
  if (record === undefined) return { ok: true, value: settings, changed: false, record: undefined, note: undefined }
  const current = own(object, "statusLine")
  if (!jsonEqual(current, record.installed)) {
    return {
      ok: true,
      value: settings,
      changed: false,
      record: undefined,
      note: current === undefined
        ? undefined
        : "its statusLine is no longer the one acx installed: left as it is"
    }
  }
  const value = record.previous === null
    ? withoutKey(object, "statusLine")
    : withKey(object, "statusLine", record.previous)
  return { ok: true, value, changed: true, record: undefined, note: undefined }
}
