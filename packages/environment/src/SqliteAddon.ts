/**
 * Where better-sqlite3's native addon is, for a process that opens SQLite without Effect (the
 * memory hook, the CLI's fast read path): its default lookup (the `bindings` package) walks the
 * directory tree from a stack trace, the largest single cost of a hook after Node's own start-up.
 * Resolved once, from the code that asks (a bundle finds the addon in the `node_modules` beside it).
 *
 * @since 0.3.0
 */
import { createRequire } from "node:module"

let resolved: string | null | undefined = null

/**
 * The addon's path, to pass as better-sqlite3's `nativeBinding`; `undefined` in another layout
 * (left to the default lookup).
 *
 * @since 0.3.0
 * @category paths
 */
export const addonPath = (): string | undefined => {
  if (resolved !== null) return resolved
  try {
    resolved = createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node")
  } catch {
    resolved = undefined
  }
  return resolved
}
