/**
 * The one grammar for naming a database, wherever acx takes one (`acx import --to`, `acx push
 * --from`, the agent's `database` option):
 *
 * - `sqlite:FILE` (`sqlite:///abs/file.db` too): any file name;
 * - a bare path ending `.db`, `.sqlite` or `.sqlite3` (any case): a SQLite file. Other bare
 *   strings are refused, so a mistyped URL never becomes a file named after it;
 * - `postgres://…` or `postgresql://…`: a Postgres connection URL. A `schema` query parameter
 *   is taken out of the URL (Postgres would refuse it) and names the schema acx's tables live in.
 *
 * Anything else is a {@link DatabaseSpecError}. The password of a Postgres URL never appears in a
 * message: {@link display} and every error description leave it out in any spelling (as typed,
 * percent-encoded, as a `password=` parameter), and the URL itself is kept `Redacted`.
 *
 * Pure: parsing touches no file or network (a relative file is resolved against `cwd`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import * as PostgresSpec from "./PostgresSpec.js"
import * as SqliteSpec from "./SqliteSpec.js"

/**
 * A SQLite file, its path absolute.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sqlite {
  readonly _tag: "Sqlite"
  readonly filename: string
}

/**
 * A Postgres database: the connection URL (without `schema`) and the schema acx's tables live in
 * (`undefined`: the store's default, `public`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Postgres {
  readonly _tag: "Postgres"
  readonly url: Redacted.Redacted<string>
  readonly schema: string | undefined
}

/**
 * A database named by a spec.
 *
 * @since 0.1.0
 * @category models
 */
export type DatabaseSpec = Sqlite | Postgres

/**
 * A string that names no database. `description` says why and never holds a password.
 *
 * @since 0.1.0
 * @category errors
 */
export class DatabaseSpecError extends Schema.TaggedError<DatabaseSpecError>(
  "@acx/environment/DatabaseSpec/DatabaseSpecError"
)("DatabaseSpecError", {
  reason: Schema.Literal("MissingFile", "InvalidUrl", "InvalidSchema", "Unrecognized"),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.description
  }
}

/**
 * The grammar in one line, for messages.
 *
 * @since 0.1.0
 * @category constants
 */
export const GRAMMAR = "sqlite:FILE, a FILE.db / FILE.sqlite path, or postgres://URL[?schema=NAME]"

const SECRET_PARAMETER = PostgresSpec.SECRET_PARAMETER
const SHOWN_CHARACTERS = 80

/**
 * Hides what may be a credential in text that was meant to be a database spec but is not one
 * (`PostgresSpec.hideCredentials`, which loads without Effect).
 *
 * @since 0.1.0
 * @category display
 */
export const hideCredentials = PostgresSpec.hideCredentials

const fail = (reason: DatabaseSpecError["reason"], description: string) =>
  Either.left(new DatabaseSpecError({ reason, description }))

const parseSqlite = (name: string, cwd: string): Either.Either<DatabaseSpec, DatabaseSpecError> =>
  name === ""
    ? fail("MissingFile", "sqlite: needs a file, e.g. sqlite:./sessions.db")
    : Either.right({ _tag: "Sqlite", filename: path.resolve(cwd, name) })

const parsePostgres = (spec: string): Either.Either<DatabaseSpec, DatabaseSpecError> => {
  const parsed = PostgresSpec.parse(spec)
  return parsed._tag === "Invalid"
    ? fail(parsed.reason, parsed.description)
    : Either.right({ _tag: "Postgres", url: Redacted.make(parsed.href), schema: parsed.schema })
}

/**
 * Parses a database spec; relative SQLite files are resolved against `cwd` (default: this
 * process's working directory).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  spec: string,
  options: { readonly cwd?: string | undefined } = {}
): Either.Either<DatabaseSpec, DatabaseSpecError> => {
  // the SQLite forms (SqliteSpec) and the Postgres URL (PostgresSpec), both shared with readers
  // that start without Effect; a Postgres URL is never a SQLite spec (`sqlite:` is not its scheme, and a bare path holds no `://`)
  const file = SqliteSpec.fileOf(spec)
  if (file !== undefined) return parseSqlite(file, options.cwd ?? process.cwd())
  if (PostgresSpec.isPostgres(spec)) return parsePostgres(spec)
  const shown = hideCredentials(spec)
  return fail(
    "Unrecognized",
    `expected ${GRAMMAR}, got ${
      JSON.stringify(shown.length > SHOWN_CHARACTERS ? `${shown.slice(0, SHOWN_CHARACTERS)}…` : shown)
    }`
  )
}

/**
 * A Postgres URL for messages: its password and every `…password…=` parameter replaced by `***`
 * (`PostgresSpec.displayUrl`, which loads without Effect).
 *
 * @since 0.1.0
 * @category display
 */
export const displayUrl = PostgresSpec.displayUrl

/**
 * The database for messages: `sqlite:/abs/file.db`, or the Postgres URL without its password
 * (and ` (schema NAME)` when one is named).
 *
 * @since 0.1.0
 * @category display
 */
export const display = (spec: DatabaseSpec): string =>
  spec._tag === "Sqlite"
    ? SqliteSpec.display(spec.filename)
    : PostgresSpec.display(Redacted.value(spec.url), spec.schema)

/**
 * Whether a spec carries a secret: a Postgres URL with a password or a `…password…=` parameter.
 * Where a spec is written down for later (a hook command in Claude Code's settings), one that does
 * is refused: the password belongs in `PGPASSWORD` or `~/.pgpass`, not in a file that may be shared.
 *
 * @since 0.3.0
 * @category display
 */
export const hasPassword = (spec: DatabaseSpec): boolean => {
  if (spec._tag === "Sqlite") return false
  const url = new URL(Redacted.value(spec.url))
  return url.password !== "" || [...url.searchParams.keys()].some((name) => SECRET_PARAMETER.test(name))
}
