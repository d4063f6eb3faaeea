/**
 * The writers' lock of a Claude config directory (src/internal/directoryLock.ts): a dead holder's
 * lock is broken by a rename that two waiters cannot both do (the argument is in docs/design.md).
 * Real worker processes race to break dead holders' locks; single-process tests replay the
 * interleavings the argument names (a waiter that moves a live lock aside puts it back; a
 * waiter that takes the lock while a live one is moved aside gives it up; a holder that
 * releases while moved aside, or moved aside as it releases, leaves nothing anyone waits on).
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { createClaudeProjectsSessionStore } from "@acx/claude-code/ClaudeProjectsSessionStore"
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import { bundleWorker } from "@acx/fixtures/workerBundle"
import { runAppendWorkers } from "@acx/testing/SessionStoreConcurrency"
import * as UnreapedProcess from "@acx/testing/UnreapedProcess"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { onTestFinished } from "vitest"
import * as DirectoryLock from "../src/internal/directoryLock.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-directory-lock-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const freshDir = () => {
  const dir = path.join(root, randomUUID())
  fs.mkdirSync(dir)
  return dir
}
const deadToken = (tag: string) => `2147483646:${os.hostname()}:${tag}`
const liveToken = (tag: string) => `${process.pid}:${os.hostname()}:${tag}`
const leftovers = (dir: string) => fs.readdirSync(dir).filter((name) => name.startsWith(".acx-lock"))

const run = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem>) =>
  Effect.runPromise(Effect.provide(effect, NodeFileSystem.layer))

describe("DirectoryLock", () => {
  it("worker processes racing to break dead holders' locks never hold the lock together", async () => {
    const dir = freshDir()
    fs.writeFileSync(path.join(dir, DirectoryLock.LOCK), deadToken("initial"))
    const rounds = 24
    const workers = 5
    // plain Node on a bundle: five workers through tsx spent seconds of CPU each just starting
    const worker = await bundleWorker(new URL("./workers/directoryLockWorker.ts", import.meta.url))
    try {
      // A second holder makes a worker fail creating `inside` and exit non-zero, which rejects here.
      await runAppendWorkers(worker.file, dir, { workers, batches: rounds, batchSize: 0 }, { execArgv: [] })
    } finally {
      worker.remove()
    }
    for (let worker = 0; worker < workers; worker++) {
      const log = fs.readFileSync(path.join(dir, `worker-${worker}.log`), "utf8").trim().split("\n")
      expect(log).toEqual(Array.from({ length: rounds }, (_, round) => String(round)))
    }
    expect(fs.existsSync(path.join(dir, "inside"))).toBe(false)
    // No breaker's marker is left; at most the last dead holder's lock.
    expect(leftovers(dir).filter((name) => name !== DirectoryLock.LOCK)).toEqual([])
  }, 120_000)

  it("a waiter that judged a lock stale but moves a live one aside puts it back", () =>
    run(Effect.gen(function*() {
      const dir = freshDir()
      const file = path.join(dir, DirectoryLock.LOCK)
      const lock = yield* DirectoryLock.make({ dir, timeout: "1 second" })
      // The waiter saw a dead holder's token; another waiter broke it and took the lock since.
      fs.writeFileSync(file, liveToken("taken-since"))
      yield* lock.breakStale(deadToken("seen"))
      expect(fs.readFileSync(file, "utf8")).toBe(liveToken("taken-since"))
      expect(leftovers(dir)).toEqual([DirectoryLock.LOCK])
      // The stale one it saw is broken, once.
      fs.writeFileSync(file, deadToken("seen"))
      yield* lock.breakStale(deadToken("seen"))
      expect(leftovers(dir)).toEqual([])
      yield* lock.breakStale(deadToken("seen"))
      expect(leftovers(dir)).toEqual([])
    })))

  it("while a live lock is moved aside, a waiter that takes the lock gives it up again", () =>
    run(Effect.gen(function*() {
      const dir = freshDir()
      const marker = path.join(dir, `.acx-lock.breaking-${Date.now()}-1-x`)
      fs.writeFileSync(marker, liveToken("moved-aside"))
      const lock = yield* DirectoryLock.make({ dir, timeout: "300 millis" })
      const blocked = yield* Effect.flip(lock.withLock(Effect.void))
      expect(blocked.reason).toBe("Timeout")
      expect(fs.existsSync(path.join(dir, DirectoryLock.LOCK))).toBe(false)
      // A crashed breaker's marker, older than the stale age, blocks nobody and is cleaned up.
      fs.renameSync(marker, path.join(dir, `.acx-lock.breaking-${Date.now() - 31_000}-1-x`))
      expect(yield* lock.withLock(Effect.succeed("held"))).toBe("held")
      expect(leftovers(dir)).toEqual([])
    })))

  it("a holder that releases while its lock is moved aside leaves nothing behind", () =>
    run(Effect.gen(function*() {
      const dir = freshDir()
      const file = path.join(dir, DirectoryLock.LOCK)
      const lock = yield* DirectoryLock.make({ dir, timeout: "1 second" })
      yield* lock.withLock(Effect.sync(() => {
        // a breaker moves the live lock aside, mid-way through putting it back
        fs.renameSync(file, path.join(dir, `.acx-lock.breaking-${Date.now()}-1-y`))
      }))
      expect(leftovers(dir)).toEqual([])
    })))

  it("a holder whose lock a breaker moves aside as it releases leaves no lock behind", () => {
    const dir = freshDir()
    const file = path.join(dir, DirectoryLock.LOCK)
    const marker = path.join(dir, `.acx-lock.breaking-${Date.now()}-1-z`)
    // a breaker that judged an older lock stale renames the holder's lock aside just before the
    // holder's own first move or remove of it: the file system of the test does it there
    let moved = false
    const breakerFirst = (target: string) => {
      if (target === file && !moved && fs.existsSync(file)) {
        moved = true
        fs.renameSync(file, marker)
      }
    }
    const interleaved = Effect.map(FileSystem.FileSystem, (real) =>
      FileSystem.FileSystem.of({
        ...real,
        remove: (target, options) => Effect.suspend(() => (breakerFirst(target), real.remove(target, options))),
        rename: (from, to) => Effect.suspend(() => (breakerFirst(from), real.rename(from, to)))
      }))
    return run(Effect.gen(function*() {
      const lock = yield* DirectoryLock.make({ dir, timeout: "1 second" }).pipe(
        Effect.provideServiceEffect(FileSystem.FileSystem, interleaved)
      )
      yield* lock.withLock(Effect.void)
      expect(moved).toBe(true)
      // the breaker goes on: the marker does not hold the stale token it judged, so it puts it
      // back, unless its holder removed it or it reads as released
      if (fs.existsSync(marker)) {
        const content = fs.readFileSync(marker, "utf8")
        if (!content.startsWith("released:")) fs.linkSync(marker, file)
        fs.unlinkSync(marker)
      }
      // the lock is free: nothing left, or a released lock the next waiter takes over at once
      const left = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
      expect(left === undefined || left.startsWith("released:")).toBe(true)
      const next = yield* DirectoryLock.make({ dir, timeout: "1 second" })
      expect(yield* next.withLock(Effect.succeed("taken"))).toBe("taken")
      expect(leftovers(dir)).toEqual([])
    }))
  })

  it("ClaudeProjects.appendEntries waits for the store's lock", async () => {
    const configDir = freshDir()
    const projects = path.join(configDir, "projects")
    fs.mkdirSync(projects)
    const file = path.join(projects, DirectoryLock.LOCK)
    fs.writeFileSync(file, liveToken("a-store-writing"))
    const sessionId = randomUUID()
    const transcript = path.join(projects, "-p", `${sessionId}.jsonl`)
    const appended = Effect.runPromise(
      ClaudeProjects.ClaudeProjects.pipe(
        Effect.flatMap((projectsService) =>
          projectsService.appendEntries("-p", sessionId, [{ type: "user", uuid: randomUUID() }])
        ),
        Effect.provide(ClaudeProjects.layerNode({ configDir }))
      )
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(fs.existsSync(transcript)).toBe(false)
    fs.rmSync(file)
    await appended
    expect(fs.readFileSync(transcript, "utf8").split("\n").filter(Boolean)).toHaveLength(1)
    expect(leftovers(projects)).toEqual([])
    // and the store takes turns with it on the same directory
    const store = createClaudeProjectsSessionStore({ configDir })
    expect(await store.load({ projectKey: "-p", sessionId })).toHaveLength(1)
    await store.close()
  })

  describe.skipIf(!fs.existsSync("/proc/self/stat"))(
    "a holder that is not its process any more (ProcessLiveness)",
    () => {
      it("a zombie holder's lock (its parent never waits for it) is broken at once", async () => {
        const holder = await UnreapedProcess.start("sleep", ["600"])
        onTestFinished(holder.stop)
        const pid = holder.pid
        const dir = freshDir()
        // the token the holder writes while it lives (its form is checked below)
        const token = `${pid}:${os.hostname()}:${randomUUID()}:${ProcessLiveness.startTime(pid)}`
        fs.writeFileSync(path.join(dir, DirectoryLock.LOCK), token)
        expect(DirectoryLock.isStale(token, 0)).toBe(false)
        await holder.kill()
        expect(() => process.kill(pid, 0)).not.toThrow()
        expect(DirectoryLock.isStale(token, 0)).toBe(true)
        // an older acx's token (no start time) for the same zombie is stale too
        expect(DirectoryLock.isStale(`${pid}:${os.hostname()}:old`, 0)).toBe(true)
        // taken well before the lock could go stale by age
        const lock = await run(DirectoryLock.make({ dir, timeout: "5 seconds" }))
        expect(await run(lock.withLock(Effect.succeed("taken")))).toBe("taken")
        expect(holder.state()).toBe("Z")
        expect(leftovers(dir)).toEqual([])
      })

      it("a lock whose pid now names a live unrelated process is broken at once", async () => {
        const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
        onTestFinished(() => void sleeper.kill("SIGKILL"))
        const pid = sleeper.pid!
        const start = ProcessLiveness.startTime(pid)!
        const dir = freshDir()
        const token = `${pid}:${os.hostname()}:${randomUUID()}:${start + 1}`
        fs.writeFileSync(path.join(dir, DirectoryLock.LOCK), token)
        expect(DirectoryLock.isStale(token, 0)).toBe(true)
        // its own start time, or none (an older acx's token): a live holder
        expect(DirectoryLock.isStale(`${pid}:${os.hostname()}:x:${start}`, 0)).toBe(false)
        expect(DirectoryLock.isStale(`${pid}:${os.hostname()}:x`, 0)).toBe(false)
        const lock = await run(DirectoryLock.make({ dir, timeout: "5 seconds" }))
        expect(await run(lock.withLock(Effect.succeed("taken")))).toBe("taken")
        expect(ProcessLiveness.check(pid, start)).toEqual({ _tag: "Alive" })
        expect(leftovers(dir)).toEqual([])
      })

      it("a lock taken here carries this process's start time", () =>
        run(Effect.gen(function*() {
          const dir = freshDir()
          const lock = yield* DirectoryLock.make({ dir, timeout: "1 second" })
          const token = yield* lock.withLock(Effect.sync(() => fs.readFileSync(lock.file, "utf8")))
          expect(token.split(":")).toEqual([
            String(process.pid),
            os.hostname(),
            expect.any(String),
            String(ProcessLiveness.startTime(process.pid))
          ])
        })))
    }
  )
})
