/**
 * `acx import --to`, `acx chat --store`: a database spec (`DatabaseSpec`: `sqlite:FILE`, a
 * `FILE.db` path, `postgres://URL[?schema=S]`) as a SessionStore layer; and for readers
 * (`acx search --from`, `acx memory mcp --from`) the same, creating nothing.
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as CliError from "../CliError.js"
import { acxPaths, CurrentIo } from "./currentIo.js"

export interface Target {
  readonly layer: Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError>
  /** The target without credentials, for messages. */
  readonly display: string
  readonly database: DatabaseSpec.DatabaseSpec
}

/**
 * The store a spec names (a relative file against the io's directory); a spec that names none is
 * one line about `flag`, without its password.
 */
export const parseTarget = (spec: string, flag = "--to"): Effect.Effect<Target, CliError.CliError, CurrentIo> =>
  Effect.flatMap(CurrentIo, (io) => targetOf(DatabaseSpec.parse(spec, { cwd: io.cwd }), flag))

const targetOf = (
  parsed: ReturnType<typeof DatabaseSpec.parse>,
  flag: string
): Effect.Effect<Target, CliError.CliError> =>
  Either.match(parsed, {
    onLeft: (error) => Effect.fail(CliError.invalidArgument(`${flag}: ${error.description}`)),
    onRight: (database) =>
      Effect.succeed({
        layer: database._tag === "Sqlite"
          ? SqliteSessionStore.layer({ filename: database.filename })
          : PostgresSessionStore.layer({ url: database.url, schema: database.schema }),
        display: DatabaseSpec.display(database),
        database
      })
  })

const isFile = (file: string): boolean => {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

// A SQLite database begins with these 16 bytes; an empty file is no database yet.
const SQLITE_HEADER = "SQLite format 3\u0000"

const isSqliteFile = (file: string): boolean => {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, "r")
    const head = Buffer.alloc(SQLITE_HEADER.length)
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.toString("latin1") === SQLITE_HEADER
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * How to get a store, for a reader that found none: `acx sync` builds the default one.
 * `alternative` ends the sentence (`, or name one with --from`).
 */
const noStoreHint = (sessionsDatabase: string, alternative: string): string =>
  `no session store at ${sessionsDatabase}: run \`acx sync\` to build it from your Claude Code sessions (\`acx sync install\` keeps it current)${alternative}`

/**
 * The store a reader opens (`--from` of every reading command, `acx memory mcp --from`), with read semantics:
 * nothing is created. A SQLite file must exist and be a SQLite database (one line, exit 1,
 * otherwise); a Postgres server that does not answer fails when the layer is built, as every
 * target does. Without a spec: `acx sync`'s default store when it exists, else the
 * {@link noStoreHint} ending with `alternative` (never a scan of the config directory instead).
 */
export const readTarget = (
  spec: string | undefined,
  flag = "--from",
  alternative = `, or name one with ${flag}`
): Effect.Effect<Target, CliError.CliError, CurrentIo> =>
  Effect.flatMap(CurrentIo, (io) => {
    if (spec === undefined) {
      const file = acxPaths(io).sessionsDatabase
      // an empty file is what a sync stopped before its first write leaves: no store yet either
      return isFile(file) && isSqliteFile(file)
        ? parseTarget(`sqlite:${file}`, flag)
        : Effect.fail(CliError.notFound(noStoreHint(file, alternative)))
    }
    const parsed = DatabaseSpec.parse(spec, { cwd: io.cwd })
    if (Either.isRight(parsed) && parsed.right._tag === "Sqlite") {
      const file = parsed.right.filename
      if (!fs.existsSync(file)) {
        return Effect.fail(
          CliError.notFound(
            `${flag}: no store at ${file}: it does not exist (\`acx sync --to sqlite:${file}\` makes one); nothing was created`
          )
        )
      }
      if (!isFile(file)) {
        return Effect.fail(CliError.notFound(`${flag}: ${file} is not a file (a store is a SQLite file)`))
      }
      if (!isSqliteFile(file)) {
        return Effect.fail(CliError.conflict(`${flag}: ${file} is not a SQLite database; it was left as it is`))
      }
    }
    return targetOf(parsed, flag)
  })
