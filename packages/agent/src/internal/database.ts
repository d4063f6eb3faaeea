/**
 * One database for a pool's registry and session store: `sqlite:FILE` (or a plain path) or a
 * `postgres://` URL. Drivers are optional peers, imported here.
 */
import * as AcxHome from "@acx/claude-code/AcxHome"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as path from "node:path"
import { AgentError } from "../AgentError.js"
import * as AgentRegistry from "../AgentRegistry.js"
import { describe } from "./describe.js"

/** Which database a string names. */
export type DatabaseSpec =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }

/** Parses `sqlite:FILE`, a plain path, or a `postgres://` / `postgresql://` URL. */
export const parseDatabase = (database: string): DatabaseSpec =>
  /^postgres(ql)?:\/\//.test(database)
    ? { _tag: "Postgres", url: database }
    : { _tag: "Sqlite", filename: path.resolve(database.startsWith("sqlite:") ? database.slice(7) : database) }

/** The database for messages: a Postgres URL without its password. */
export const showDatabase = (spec: DatabaseSpec): string =>
  spec._tag === "Sqlite" ? spec.filename : spec.url.replace(/(\/\/[^:/@]+):[^@]*@/, "$1:***@")

const startFailed = (spec: DatabaseSpec) => (cause: unknown) =>
  new AgentError({
    reason: "StartFailed",
    description: `cannot open ${showDatabase(spec)}: ${describe(cause)}`,
    cause
  })

const importDriver = <A>(name: string, load: () => Promise<A>) =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new AgentError({
        reason: "StartFailed",
        description: `the driver ${name} is not installed: npm install ${name}`,
        cause
      })
  })

/** The SqlClient, the store and the registry on it, closed with the scope. */
export const openDatabase = (
  database: string
): Effect.Effect<Context.Context<AgentRegistry.AgentRegistry | SessionStore.SessionStore>, AgentError, Scope.Scope> =>
  Effect.gen(function*() {
    const spec = parseDatabase(database)
    const client = spec._tag === "Sqlite"
      ? yield* Effect.gen(function*() {
        const Sqlite = yield* importDriver(
          "@effect/sql-sqlite-node",
          () => import("@effect/sql-sqlite-node/SqliteClient")
        )
        yield* Effect.try({
          // owner-only (0600; SQLite gives its -wal and -shm the same mode): a store holds conversations
          try: () => AcxHome.preparePrivateFile(spec.filename),
          catch: startFailed(spec)
        })
        return yield* Layer.build(Sqlite.layer({ filename: spec.filename })).pipe(Effect.mapError(startFailed(spec)))
      })
      : yield* Effect.gen(function*() {
        const Pg = yield* importDriver("@effect/sql-pg", () => import("@effect/sql-pg/PgClient"))
        return yield* Layer.build(Pg.layer({ url: Redacted.make(spec.url), applicationName: "@acx/agent" })).pipe(
          Effect.mapError(startFailed(spec))
        )
      })
    const sql = Context.get(client, SqlClient.SqlClient)
    const store = yield* (spec._tag === "Sqlite"
      ? SqliteSessionStore.makeWithClient()
      : PostgresSessionStore.makeWithClient()).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.mapError(startFailed(spec))
      )
    const registry = yield* AgentRegistry.make.pipe(Effect.provideService(SqlClient.SqlClient, sql))
    return Context.make(SessionStore.SessionStore, store).pipe(Context.add(AgentRegistry.AgentRegistry, registry))
  })
