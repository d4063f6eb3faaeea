/**
 * A worker process for the kill -9 test of the derived data: opens the store, prints `ready`,
 * then derives everything not derived yet (`catalog.refresh()`), which the parent interrupts with
 * SIGKILL at some point; prints `done` if it gets to the end.
 *
 * Usage: `node --import tsx deriveWorker.ts sqlite <filename>` or `… postgres <url> <schema>`
 */
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

const [kind, target, schema] = process.argv.slice(2)
if (target === undefined) throw new Error("usage: deriveWorker sqlite <filename> | postgres <url> <schema>")

const open = kind === "sqlite"
  ? SqliteSessionStore.make({ filename: target })
  : PostgresSessionStore.make({ url: Redacted.make(target), schema })

await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const store = yield* open
  process.stdout.write("ready\n")
  yield* store.catalog.refresh()
  process.stdout.write("done\n")
})))
