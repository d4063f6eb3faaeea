/**
 * The SQL drivers are optional peers of `@acx/session-store`: each adapter imports its driver
 * when a store is opened, so importing the package loads neither `better-sqlite3` nor `pg`.
 */
import * as Effect from "effect/Effect"
import { SessionStoreError } from "../SessionStore.js"

/** Imports the driver package `name`, or fails with `MissingDriver` naming what to install. */
export const importDriver = <A>(name: string, load: () => Promise<A>): Effect.Effect<A, SessionStoreError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new SessionStoreError({
        reason: "MissingDriver",
        operation: "open",
        description: `the driver ${name} is not installed: npm install ${name}`,
        cause
      })
  })
