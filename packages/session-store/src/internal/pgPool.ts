/**
 * A Postgres connection pool for one URL, as a `SqlClient` closed with the scope: the driver
 * (`@effect/sql-pg`, an optional peer) loaded on first use, the sockets a failed connection leaves
 * open closed, and a connection failure told in one line that names the server, never the
 * password. `PostgresSessionStore` and `PostgresHub` open their pools here.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { SessionStoreError } from "../SessionStore.js"
import { importDriver } from "./driver.js"
import { describeConnectFailure, trackedSockets } from "./pgConnect.js"
import { driverUrl } from "./pgUrl.js"

/** Opens the pool (libpq parameters such as `sslmode` in the URL are the driver's to honour). */
export const openPool = (options: {
  readonly url: Redacted.Redacted
  readonly maxConnections?: number | undefined
  readonly applicationName: string
  /** How long a connection may wait for the server's first answer (the driver's default: 5 s). */
  readonly connectTimeout?: Duration.DurationInput | undefined
}): Effect.Effect<SqlClient.SqlClient, SessionStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const Pg = yield* importDriver("@effect/sql-pg", () => import("@effect/sql-pg/PgClient"))
    // closes what a failed connection left open, and anything the pool left when the scope closes
    // (added before the pool: finalizers run last first, so this runs after the pool has ended)
    const sockets = trackedSockets()
    yield* Effect.addFinalizer(() => Effect.sync(sockets.destroyAll))
    const context = yield* Layer.build(Pg.layer({
      url: Redacted.make(driverUrl(Redacted.value(options.url))),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      applicationName: options.applicationName,
      ...(options.connectTimeout === undefined ? {} : { connectTimeout: options.connectTimeout }),
      stream: sockets.stream
    })).pipe(
      Effect.tapError(() => Effect.sync(sockets.destroyAll)),
      Effect.mapError((cause) =>
        new SessionStoreError({
          reason: "Connection",
          operation: "connect",
          description: describeConnectFailure(Redacted.value(options.url), cause),
          cause
        })
      )
    )
    return Context.get(context, SqlClient.SqlClient)
  })
