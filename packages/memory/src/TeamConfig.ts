/**
 * The team memory's settings: the Postgres the team shares (`acx memory install --team URL`), the
 * schema its tables live in, and who this machine is (author and machine, marked on every entry
 * it shares). Kept in `$ACX_HOME/memory-team.json`, owner-only (0600, like everything acx writes
 * under its home): the URL may carry a password, which is read into a `Redacted` and never shown
 * (`display` masks it).
 *
 * Only the worker and `acx memory …` read this file: a hook never opens the network, it only
 * reads what the worker pulled into the local database.
 *
 * @since 0.4.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { MemoryError } from "./MemoryError.js"

/**
 * The team settings in force.
 *
 * @since 0.4.0
 * @category models
 */
export interface TeamSettings {
  /** The connection URL (without `?schema=`); may hold a password. */
  readonly url: Redacted.Redacted<string>
  /** The Postgres schema of the team tables. */
  readonly schema: string
  /** The author marked on what this machine shares (default: the OS user's name). */
  readonly user: string
  /** The machine marked on what this machine shares (default: the hostname). */
  readonly machine: string
}

/**
 * The schema when the URL names none.
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_SCHEMA = "acx_team"

/**
 * A schema name acx accepts: an unquoted SQL identifier (quoted when used all the same).
 *
 * @since 0.4.0
 * @category constants
 */
export const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/**
 * The settings file under a home.
 *
 * @since 0.4.0
 * @category paths
 */
export const file = (home: string): string => path.join(home, "memory-team.json")

const invalid = (description: string) => new MemoryError({ reason: "InvalidArgument", description })

const osUser = (): string => {
  try {
    return os.userInfo().username
  } catch {
    return process.env["USER"] ?? process.env["USERNAME"] ?? "unknown"
  }
}

/**
 * Settings from what `acx memory install --team` was given: the URL parsed (`DatabaseSpec`, so
 * a bad one is refused without echoing its password), `?schema=` taken out of it.
 *
 * @since 0.4.0
 * @category constructors
 */
export const fromUrl = (
  url: string,
  named: { readonly user?: string | undefined; readonly machine?: string | undefined } = {}
): Either.Either<TeamSettings, MemoryError> => {
  const spec = DatabaseSpec.parse(url)
  if (Either.isLeft(spec)) return Either.left(invalid(`--team: ${spec.left.description}`))
  if (spec.right._tag !== "Postgres") return Either.left(invalid("--team needs a postgres:// URL"))
  const schema = spec.right.schema ?? DEFAULT_SCHEMA
  if (!SCHEMA_NAME.test(schema)) {
    return Either.left(invalid(`--team: the schema must be a plain SQL name (letters, digits, _), got ${schema}`))
  }
  const user = named.user ?? osUser()
  const machine = named.machine ?? os.hostname()
  if (user.trim() === "" || machine.trim() === "") return Either.left(invalid("--user and --machine need a name"))
  return Either.right({ url: spec.right.url, schema, user, machine })
}

/**
 * The URL and schema for messages: the password and `…password…=` parameters masked.
 *
 * @since 0.4.0
 * @category display
 */
export const display = (settings: TeamSettings): string =>
  `${DatabaseSpec.displayUrl(Redacted.value(settings.url))} (schema ${settings.schema})`

/**
 * Writes the settings owner-only (0600), replacing what was there.
 *
 * @since 0.4.0
 * @category files
 */
export const save = (home: string, settings: TeamSettings): void => {
  AcxHome.makeHome(home)
  AcxHome.writePrivateFile(
    file(home),
    `${
      JSON.stringify(
        { url: Redacted.value(settings.url), schema: settings.schema, user: settings.user, machine: settings.machine },
        null,
        2
      )
    }\n`
  )
}

/**
 * Removes the settings (the memory stops sharing); whether there were any.
 *
 * @since 0.4.0
 * @category files
 */
export const remove = (home: string): boolean => {
  try {
    fs.unlinkSync(file(home))
    return true
  } catch {
    return false
  }
}

/**
 * The settings, `undefined` when the memory is not shared (no file), or `Settings` for a file
 * that cannot be used (the description never holds the URL).
 *
 * @since 0.4.0
 * @category files
 */
export const load = (home: string): Either.Either<TeamSettings | undefined, MemoryError> => {
  let text: string
  try {
    text = fs.readFileSync(file(home), "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Either.right(undefined)
    return Either.left(
      new MemoryError({ reason: "Settings", description: `${file(home)}: ${(error as Error).message}` })
    )
  }
  const bad = (why: string) =>
    Either.left(new MemoryError({ reason: "Settings", description: `${file(home)}: ${why}` }))
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return bad("not JSON")
  }
  const record = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>
  const { machine, schema, url, user } = record
  if (
    typeof url !== "string" || typeof schema !== "string" || typeof user !== "string" || typeof machine !== "string"
  ) {
    return bad("expected url, schema, user and machine (run acx memory install --team URL again)")
  }
  if (!SCHEMA_NAME.test(schema)) return bad("the schema is not a plain SQL name")
  const spec = DatabaseSpec.parse(url)
  if (Either.isLeft(spec) || spec.right._tag !== "Postgres") return bad("the url is not a postgres:// URL")
  // the file is the user's secret: tightened when an editor left it wider
  AcxHome.tightenPrivateFile(file(home))
  return Either.right({ url: spec.right.url, schema, user, machine })
}
