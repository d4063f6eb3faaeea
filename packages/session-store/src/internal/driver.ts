/**
 * The SQL drivers are optional peers of `@acx/session-store`: each adapter imports its driver
 * when a store is opened, so importing the package loads neither `better-sqlite3` nor `pg`.
 *
 * A driver is imported only after a `stat` of a regular file. Node 20's `fs.realpathSync`, which
 * its module loaders use, reads the type of a cached path component from the stat buffer the
 * last synchronous or callback `stat` filled; when that last `stat` was of a FIFO or a socket (a
 * transcript listing that met one), it stops resolving links early and the driver loads from its
 * `node_modules` link, where its own dependencies (`bindings`, `pg-types`) cannot be found.
 * A `stat` of this module's own file refills that buffer with a regular file's type.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { SessionStoreError } from "../SessionStore.js"

/** Refills Node's shared stat buffer with a regular file's `stat` (see the module doc). */
export const forgetLastStat = (): void => {
  try {
    fs.statSync(fileURLToPath(import.meta.url))
  } catch {
    // a bundle moved away from its file: nothing was resolved through it either
  }
}

/** Imports the driver package `name`, or fails with `MissingDriver` naming what to install. */
export const importDriver = <A>(name: string, load: () => Promise<A>): Effect.Effect<A, SessionStoreError> =>
  Effect.tryPromise({
    try: () => {
      forgetLastStat()
      return load()
    },
    catch: (cause) =>
      new SessionStoreError({
        reason: "MissingDriver",
        operation: "open",
        description: `the driver ${name} is not installed: npm install ${name}`,
        cause
      })
  })
