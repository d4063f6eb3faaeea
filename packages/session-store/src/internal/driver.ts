/**
 * The SQL drivers are optional peers of `@acx/session-store`: each adapter imports its driver
 * when a store is opened, so importing the package loads neither `better-sqlite3` nor `pg`.
 * The import goes through `DriverImport` of `@acx/environment`, so that an earlier `stat` of a
 * FIFO cannot change how the driver resolves.
 */
import * as DriverImport from "@acx/environment/DriverImport"
import * as Effect from "effect/Effect"
import { SessionStoreError } from "../SessionStore.js"

/** Imports the driver package `name`, or fails with `MissingDriver` naming what to install. */
export const importDriver = <A>(name: string, load: () => Promise<A>): Effect.Effect<A, SessionStoreError> =>
  Effect.tryPromise({
    try: () => DriverImport.load(load),
    catch: (cause) =>
      new SessionStoreError({
        reason: "MissingDriver",
        operation: "open",
        description: `the driver ${name} is not installed: npm install ${name}`,
        cause
      })
  })
