/**
 * One database for a pool's registry and session store, named by a `DatabaseSpec`
 * (`sqlite:FILE`, a `FILE.db` path, `postgres://URL[?schema=S]`). Drivers are optional peers,
 * imported here.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as DriverImport from "@acx/environment/DriverImport"
import * as PgDriverUrl from "@acx/session-store/PgDriverUrl"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { AgentError } from "../AgentError.js"
import * as AgentRegistry from "../AgentRegistry.js"
import { describe } from "./describe.js"

const startFailed = (spec: DatabaseSpec.DatabaseSpec) => (cause: unknown) =>
  new AgentError({
    reason: "StartFailed",
    description: `cannot open ${DatabaseSpec.display(spec)}: ${describe(cause)}`,
    cause
  })

const importDriver = <A>(name: string, load: () => Promise<A>) =>
  Effect.tryPromise({
    try: () => DriverImport.load(load),
    catch: (cause) =>
      new AgentError({
        reason: "StartFailed",
        description: `the driver ${name} is not installed: npm install ${name}`,
        cause
      })
  })

/** The SqlClient, the store and the registry on it (in the spec's schema), closed with the scope. */
export const openDatabase = (
  database: string
): Effect.Effect<Context.Context<AgentRegistry.AgentRegistry | SessionStore.SessionStore>, AgentError, Scope.Scope> =>
  Effect.gen(function*() {
    const spec = yield* DatabaseSpec.parse(database).pipe(
      Effect.mapError((error) =>
        new AgentError({ reason: "StartFailed", description: `database: ${error.description}`, cause: error })
      )
    )
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
        const url = Redacted.make(PgDriverUrl.driverUrl(Redacted.value(spec.url)))
        return yield* Layer.build(Pg.layer({ url, applicationName: "@acx/agent" })).pipe(
          Effect.mapError(startFailed(spec))
        )
      })
    const schema = spec._tag === "Postgres" ? spec.schema : undefined
    const sql = Context.get(client, SqlClient.SqlClient)
    // the store first: it checks the schema's name and creates the schema the registry's table joins
    const store = yield* (spec._tag === "Sqlite"
      ? SqliteSessionStore.makeWithClient()
      : PostgresSessionStore.makeWithClient({ schema })).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.mapError(startFailed(spec))
      )
    const registry = yield* AgentRegistry.makeWith({ schema }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    return Context.make(SessionStore.SessionStore, store).pipe(Context.add(AgentRegistry.AgentRegistry, registry))
  })
