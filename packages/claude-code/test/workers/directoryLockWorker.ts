/**
 * A worker process for the directory-lock race test: takes the lock of `<dir>` `rounds` times.
 * Inside, it creates `<dir>/inside` exclusively (a second holder at the same time fails there and
 * the worker exits non-zero), appends the round to `<dir>/worker-<n>.log`, removes `inside`, and
 * every third round leaves the lock as a dead holder's (a token whose pid cannot be alive), so
 * that the other workers race to break it. Prints `ready`, then starts when a line arrives on
 * stdin.
 *
 * Usage: `node --conditions=@acx/source --import tsx directoryLockWorker.ts <dir> <worker> <rounds>`, or
 * plain `node` on its bundle (`@acx/fixtures/workerBundle`, as the test runs it)
 */
import { waitForGo } from "@acx/testing/SessionStoreConcurrency"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DirectoryLock from "../../src/internal/directoryLock.js"

const [dir, worker, roundsText] = process.argv.slice(2)
if (dir === undefined || worker === undefined) throw new Error("usage: directoryLockWorker <dir> <worker> <rounds>")
const rounds = Number(roundsText ?? "20")
const inside = path.join(dir, "inside")
const log = path.join(dir, `worker-${worker}.log`)

const go = waitForGo()
await Effect.runPromise(
  Effect.gen(function*() {
    const lock = yield* DirectoryLock.make({ dir, timeout: "60 seconds" })
    process.stdout.write("ready\n")
    yield* Effect.promise(() => go)
    for (let round = 0; round < rounds; round++) {
      yield* lock.withLock(Effect.gen(function*() {
        fs.writeFileSync(inside, worker, { flag: "wx" })
        yield* Effect.sleep(`${1 + (round % 3)} millis`)
        fs.appendFileSync(log, `${round}\n`)
        fs.unlinkSync(inside)
        if ((round + Number(worker)) % 3 === 0) {
          // die holding the lock, as far as the lock can tell: a pid that cannot be alive here,
          // in a lock file of its own (renamed over ours: the release's tombstone goes to the
          // file this worker created, which the dead holder's replaced)
          const dead = `${lock.file}.dead-${worker}`
          fs.writeFileSync(dead, `2147483646:${os.hostname()}:dead-${worker}-${round}`)
          fs.renameSync(dead, lock.file)
        }
      }))
    }
  }).pipe(Effect.provide(NodeFileSystem.layer))
)
