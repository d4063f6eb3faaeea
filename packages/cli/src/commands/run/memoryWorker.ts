/**
 * What `acx memory worker` does (hooks start it): turns queued hook events into observations and
 * summaries with the observer's model, then exits when idle.
 *
 * @since 0.1.0
 */
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryWorker from "@acx/memory/MemoryWorker"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { CurrentIo } from "../../internal/currentIo.js"
import { duration } from "../../internal/format.js"
import { files } from "../../internal/memoryHome.js"
import { listenForSignal } from "../../internal/signals.js"
import * as MemoryTeam from "./memoryTeam.js"

/** "pid N, up 3m 05s": the live worker, and how long it has held the lock. */
const holderOf = (exit: { readonly pid: number | null; readonly startedAt: number | null }) =>
  `pid ${exit.pid ?? "unknown"}${exit.startedAt === null ? "" : `, up ${duration(Date.now() - exit.startedAt)}`}`

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = () =>
  Effect.scoped(Effect.gen(function*() {
    // listening before anything else: a SIGTERM that came after the worker took the lock and
    // before a raced listener ran killed it holding the lock (Node's default), so a hook saw a
    // dead worker's pid until the heartbeat went stale
    const stopped = yield* listenForSignal
    // everything the worker and the observer's Claude Code create (its transcripts under
    // $ACX_HOME/observer among them) is owner-only: the worker is a process of its own, so
    // narrowing its umask touches nothing else
    yield* Effect.sync(() => process.umask(0o077))
    const paths = yield* files
    const io = yield* CurrentIo
    yield* MemoryBackup.check(paths)
    const { config } = MemoryConfig.load(paths.home)
    yield* MemoryBackup.backupIfDue(paths, { keep: config.backupsKept }).pipe(
      Effect.catchAll((error) => Console.error(`acx memory worker: no backup today: ${error.message}`))
    )
    const log = (line: string) => io.stderr(`${new Date().toISOString()} ${line}\n`)
    // the team memory's sync runs beside the queue while the worker lives (never in a hook)
    const team = yield* Effect.fork(MemoryTeam.workerSync(log))
    // the settings are not handed over: given ones are kept as given, and the worker is to follow
    // config.json while it runs (a mode, a model or an idle time changed takes effect at once)
    const exit = yield* MemoryWorker.run({ home: paths.home }).pipe(
      Effect.provide(MemoryDatabase.layer(paths.database)),
      // SIGTERM / SIGINT stop it gracefully: observers interrupted and closed, the lock released
      Effect.raceFirst(stopped),
      Effect.ensuring(Fiber.interrupt(team))
    )
    // what was distilled last is shared before an idle worker exits
    if (exit._tag === "Idle") yield* MemoryTeam.finalSync(log)
    yield* Console.error(
      exit._tag === "Signal"
        ? `acx memory worker: stopped by ${exit.signal}`
        : exit._tag === "AlreadyRunning"
        ? `acx memory worker: another worker runs (${holderOf(exit)}); nothing to do`
        : exit._tag === "LockLost"
        ? "acx memory worker: another worker took over"
        : `acx memory worker: done (${exit.batches} batches, ${exit.events} events)`
    )
  }))
