/**
 * The SQLite half of `DatabaseSpec`'s grammar, without Effect: `sqlite:FILE` (`sqlite:///abs`
 * too) or a bare `FILE.db` / `.sqlite` / `.sqlite3` path. `DatabaseSpec.parse` reads SQLite specs
 * through it, and so does a reader that must start without loading Effect (the CLI's fast read
 * path), so both name the same file for the same spec. Pure and total.
 *
 * @since 0.3.0
 */
import * as path from "node:path"

/**
 * What a SQLite spec starts with, and what `display` puts before the file.
 *
 * @since 0.3.0
 * @category constants
 */
export const PREFIX = "sqlite:"

const EXTENSION = /\.(?:db|sqlite3?)$/i

/**
 * The file a spec names as written (relative or absolute; `""` for a bare `sqlite:`), or
 * `undefined` when the spec is not a SQLite one (a Postgres URL, anything else).
 *
 * @since 0.3.0
 * @category parsing
 */
export const fileOf = (spec: string): string | undefined => {
  // `sqlite:///abs/file.db`: a URL's empty authority before an absolute path
  if (spec.toLowerCase().startsWith(PREFIX)) return spec.slice(PREFIX.length).replace(/^\/\/(?=\/)/, "")
  return EXTENSION.test(spec) && !spec.includes("://") ? spec : undefined
}

/**
 * The absolute file a SQLite spec names (relative ones resolved against `cwd`), or `undefined`
 * when it names none.
 *
 * @since 0.3.0
 * @category parsing
 */
export const filenameOf = (spec: string, cwd: string = process.cwd()): string | undefined => {
  const file = fileOf(spec)
  return file === undefined || file === "" ? undefined : path.resolve(cwd, file)
}

/**
 * A SQLite file as acx names it in messages and locations: `sqlite:/abs/file.db`.
 *
 * @since 0.3.0
 * @category display
 */
export const display = (filename: string): string => `${PREFIX}${filename}`
