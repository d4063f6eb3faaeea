/**
 * The store clock's follower: a value only when the clock moved (the first read is where it
 * starts), a failed read skipped (a Postgres server that went away and came back), and on SQLite
 * a write to the database's WAL makes it look at once (the slow poll is only a backstop).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { clockMoves } from "../src/internal/storeClock.js"

describe("clockMoves", () => {
  it("emits the clock's new values only, skipping failed reads", async () => {
    const script: Array<number | "fail"> = [5, 5, "fail", 5, 7, 7, "fail", 9, 9, 12]
    let at = 0
    const read = Effect.suspend(() => {
      const next = script[Math.min(at++, script.length - 1)]!
      return next === "fail" ? Effect.fail("unreachable") : Effect.succeed(next)
    })
    const moves = await Effect.runPromise(
      clockMoves(read, { poll: "5 millis" }).pipe(Stream.take(3), Stream.runCollect)
    )
    expect([...moves]).toEqual([7, 9, 12])
  })

  it("looks when the SQLite file's WAL changes, long before its poll", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-clock-"))
    const file = path.join(dir, "store.db")
    fs.writeFileSync(file, "")
    let clock = 1
    try {
      const moved = await Effect.runPromise(Effect.gen(function*() {
        const fiber = yield* clockMoves(Effect.sync(() => clock), { file, poll: "1 hour" }).pipe(
          Stream.runHead,
          Effect.fork
        )
        // the first read (at once) is the start; then the WAL changes and the clock moved
        yield* Effect.sleep("200 millis")
        clock = 2
        fs.writeFileSync(`${file}-wal`, "x")
        return yield* Fiber.join(fiber).pipe(Effect.timeout("10 seconds"))
      }))
      expect(moved._tag === "Some" && moved.value).toBe(2)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("over a store that announces its clock, reads it at each `changed` (not at `lost`), not polling", async () => {
    let clock = 1
    let reads = 0
    const read = Effect.sync(() => {
      reads++
      return clock
    })
    const moves = await Effect.runPromise(Effect.gen(function*() {
      const signals = yield* Queue.unbounded<"changed" | "lost">()
      const fiber = yield* clockMoves(read, { signals: Stream.fromQueue(signals), poll: "1 hour" }).pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.fork
      )
      // the poll's first tick is where it starts; then a move announced, a loss, a return
      yield* Effect.sleep("50 millis")
      clock = 2
      yield* Queue.offer(signals, "changed")
      yield* Effect.sleep("50 millis")
      yield* Queue.offer(signals, "lost")
      clock = 3
      yield* Effect.sleep("50 millis")
      const before = reads
      yield* Queue.offer(signals, "changed")
      const moved = yield* Fiber.join(fiber).pipe(Effect.timeout("10 seconds"))
      return { moved: [...moved], lostRead: before }
    }))
    expect(moves.moved).toEqual([2, 3])
    // one read to start, one per `changed`; `lost` read nothing
    expect(moves.lostRead).toBe(2)
    expect(reads).toBe(3)
  })
})
