/**
 * `acx import --to`, `acx chat --store`: a database spec (`DatabaseSpec`: `sqlite:FILE`, a
 * `FILE.db` path, `postgres://URL[?schema=S]`) as a SessionStore layer.
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as CliError from "../CliError.js"

export interface Target {
  readonly layer: Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError>
  /** The target without credentials, for messages. */
  readonly display: string
}

/** The store a spec names; a spec that names none is one line about `flag`, without its password. */
export const parseTarget = (spec: string, flag = "--to"): Effect.Effect<Target, CliError.CliError> =>
  Either.match(DatabaseSpec.parse(spec), {
    onLeft: (error) => Effect.fail(CliError.invalidArgument(`${flag}: ${error.description}`)),
    onRight: (database) =>
      Effect.succeed({
        layer: database._tag === "Sqlite"
          ? SqliteSessionStore.layer({ filename: database.filename })
          : PostgresSessionStore.layer({ url: database.url, schema: database.schema }),
        display: DatabaseSpec.display(database)
      })
  })
