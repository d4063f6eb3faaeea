/**
 * `ClaudeSync`: the totals of several passes (property-tested), the lock's name, and the lock's
 * protocol in one process on a real SQLite store: the holder touches its lock while it runs; a
 * sync that must not wait defers to a live
 * holder and leaves the `again` mark; a mark that arrives while a pass runs gets one more pass;
 * the mark is gone once a sync ran. (Processes racing, killed and waiting:
 * packages/cli/test/cli.sync.kill.test.ts.)
 */
import type * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudeSync from "@acx/claude-code/ClaudeSync"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { FastCheck as fc } from "effect"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-sync-"))
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }))

const PROJECT = "-home-dev-sync"
const SESSION = "8e3d4f5a-2b3c-4d5e-8f9a-0b1c2d3e4f5a"

const result: fc.Arbitrary<ClaudeImport.ImportResult> = fc.record({
  sessions: fc.nat(1000),
  entries: fc.nat(1_000_000),
  subagents: fc.nat(1000),
  skippedLines: fc.nat(1000),
  filesRead: fc.nat(1000),
  filesUnchanged: fc.nat(1000),
  bytesRead: fc.nat(1_000_000_000),
  warnings: fc.array(
    fc.record({ file: fc.string(), malformedLines: fc.nat(), invalidUtf8Lines: fc.nat(), firstOffset: fc.nat() }),
    { maxLength: 3 }
  ),
  secretsMasked: fc.nat(1000)
})

describe("ClaudeSync.addResults", () => {
  it("over any passes: what was read adds up; sessions, subagents and unchanged files are the last pass's", () => {
    fc.assert(fc.property(fc.array(result, { minLength: 1, maxLength: 5 }), (passes) => {
      const total = passes.reduce(ClaudeSync.addResults)
      const sum = (of: (pass: ClaudeImport.ImportResult) => number) => passes.reduce((n, pass) => n + of(pass), 0)
      const last = passes[passes.length - 1]!
      expect(total.entries).toBe(sum((pass) => pass.entries))
      expect(total.bytesRead).toBe(sum((pass) => pass.bytesRead))
      expect(total.filesRead).toBe(sum((pass) => pass.filesRead))
      expect(total.skippedLines).toBe(sum((pass) => pass.skippedLines))
      expect(total.secretsMasked).toBe(sum((pass) => pass.secretsMasked))
      expect(total.warnings).toEqual(passes.flatMap((pass) => pass.warnings))
      expect([total.sessions, total.subagents, total.filesUnchanged])
        .toEqual([last.sessions, last.subagents, last.filesUnchanged])
    }))
  })
})

describe("ClaudeSync.lockName", () => {
  it("is a file name, the same for the same target and directory, another for another", () => {
    fc.assert(fc.property(fc.string(), fc.string(), fc.string(), (target, dir, other) => {
      const name = ClaudeSync.lockName(target, dir)
      expect(name).toMatch(/^[0-9a-f]{24}$/)
      expect(ClaudeSync.lockName(target, dir)).toBe(name)
      if (other !== target) expect(ClaudeSync.lockName(other, dir)).not.toBe(name)
      if (other !== dir) expect(ClaudeSync.lockName(target, other)).not.toBe(name)
    }))
  })
})

describe("ClaudeSync.sync", () => {
  const setup = (name: string) => {
    const configDir = path.join(tempDir, name)
    const transcript = path.join(configDir, "projects", PROJECT, `${SESSION}.jsonl`)
    fs.mkdirSync(path.dirname(transcript), { recursive: true })
    fs.writeFileSync(transcript, `${JSON.stringify({ type: "user", uuid: "u-1", sessionId: SESSION })}\n`)
    const lockRoot = path.join(tempDir, `${name}-locks`)
    const layer = Layer.mergeAll(
      SqliteSessionStore.layer({ filename: path.join(tempDir, `${name}.db`) }),
      ClaudeProjects.layerNode({ configDir }),
      NodeContext.layer
    )
    const lockDir = () =>
      path.join(lockRoot, ClaudeSync.lockName("t", fs.realpathSync(path.dirname(path.dirname(transcript)))))
    return { transcript, lockRoot, layer, lockDir }
  }

  const syncWith = (
    lockRoot: string,
    wait: boolean,
    onProgress?: ClaudeImport.ImportOptions["onProgress"],
    heartbeat?: Duration.DurationInput
  ) =>
    Effect.gen(function*() {
      const from = yield* ClaudeProjects.ClaudeProjects
      const to = yield* SessionStore.SessionStore
      return yield* ClaudeSync.sync({ from, to, target: "t", lockRoot, wait, onProgress, heartbeat })
    })

  it("the holder keeps touching its lock while it runs (a long sync is never taken for a dead one)", async () => {
    const { layer, lockDir, lockRoot } = setup("heartbeat")
    await Effect.runPromise(
      Effect.gen(function*() {
        const seen: Array<number> = []
        const lockFile = () => path.join(lockDir(), ".acx-lock")
        yield* syncWith(lockRoot, true, (progress) =>
          // the session's report, not the one as the store derives its catalog at the end
          progress.indexing === true ? Effect.void : Effect.gen(function*() {
            seen.push(fs.statSync(lockFile()).mtimeMs)
            // a pass that takes a while: the heartbeat (every 10 ms here) runs meanwhile
            yield* Effect.sleep(Duration.seconds(1))
            seen.push(fs.statSync(lockFile()).mtimeMs)
          }), Duration.millis(10))
        expect(seen).toHaveLength(2)
        expect(seen[1]!).toBeGreaterThan(seen[0]!)
        expect(fs.existsSync(lockFile())).toBe(false)
      }).pipe(Effect.provide(layer), Effect.scoped)
    )
  })

  it("defers to a live holder without waiting, leaving the mark; the next sync takes the mark", async () => {
    const { layer, lockDir, lockRoot } = setup("held")
    await Effect.runPromise(
      Effect.gen(function*() {
        // the first sync makes the lock's directory; then this (live) process holds the lock
        expect(yield* syncWith(lockRoot, false)).toMatchObject({ _tag: "Synced", passes: 1 })
        fs.writeFileSync(path.join(lockDir(), ".acx-lock"), `${process.pid}:${os.hostname()}:held`)
        const deferred = yield* syncWith(lockRoot, false)
        expect(deferred).toEqual({ _tag: "Deferred", lock: path.join(lockDir(), ".acx-lock") })
        expect(fs.existsSync(path.join(lockDir(), ClaudeSync.AGAIN))).toBe(true)
        fs.rmSync(path.join(lockDir(), ".acx-lock"))
        expect(yield* syncWith(lockRoot, false)).toMatchObject({ _tag: "Synced", passes: 1 })
        expect(fs.existsSync(path.join(lockDir(), ClaudeSync.AGAIN))).toBe(false)
        expect(fs.statSync(lockDir()).mode & 0o777).toBe(0o700)
      }).pipe(Effect.provide(layer), Effect.scoped)
    )
  })

  it("runs one more pass for a mark that arrives during a pass, and stores what it marked", async () => {
    const { layer, lockDir, lockRoot, transcript } = setup("marked")
    await Effect.runPromise(
      Effect.gen(function*() {
        let marked = false
        // during the first pass: a line is appended and a hook's sync marks the holder
        const outcome = yield* syncWith(lockRoot, true, () =>
          Effect.sync(() => {
            if (marked) return
            marked = true
            fs.appendFileSync(transcript, `${JSON.stringify({ type: "user", uuid: "u-2", sessionId: SESSION })}\n`)
            fs.writeFileSync(path.join(lockDir(), ClaudeSync.AGAIN), "1")
          }))
        expect(outcome).toMatchObject({ _tag: "Synced", passes: 2, result: { entries: 2, sessions: 1 } })
        expect(fs.existsSync(path.join(lockDir(), ClaudeSync.AGAIN))).toBe(false)
        const store = yield* SessionStore.SessionStore
        expect((yield* store.load({ projectKey: PROJECT, sessionId: SESSION }))?.map((e) => e["uuid"]))
          .toEqual(["u-1", "u-2"])
      }).pipe(Effect.provide(layer), Effect.scoped)
    )
  })
})
