/**
 * AgentPool on the real Claude Code CLI, offline against the model double: 12 conversations
 * through 4 processes (every answer to its own conversation, never a fifth process alive,
 * evicted conversations resumed with their history), a send that waits for a busy pool times
 * out typed, a restarted pool resumes from its registry, and idle conversations are closed; the
 * sends holding one conversation share its process, and only the last one's release closes it.
 */
import { AgentError } from "@acx/agent/AgentError"
import * as AgentPool from "@acx/agent/AgentPool"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import {
  claude,
  echoScript,
  makeGate,
  makeWorld,
  MODEL,
  TEST_TIMEOUT_MS,
  textOf,
  watchAlive,
  type World
} from "./utils/world.js"

const gate = makeGate()
const echo = echoScript(gate)

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})
afterAll(() => gate.close())

const poolOptions = (w: World, extra: AgentPool.AgentPoolOptions = {}): AgentPool.AgentPoolOptions => ({
  cwd: w.cwd,
  session: { model: MODEL, env: w.env, pathToClaudeCodeExecutable: w.binary, allowedTools: ["Bash"] },
  ...extra
})

const runPool = <A, E>(
  w: World,
  effect: Effect.Effect<A, E, AgentPool.AgentPool>,
  extra?: AgentPool.AgentPoolOptions
) =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(AgentPool.layer(poolOptions(w, extra))),
      Effect.provide(AgentPool.layerDatabase(`sqlite:${path.join(w.root, "pool.db")}`))
    )
  )

const skipWithout = claude.available ? it : it.skip

describe("AgentPool on the real Claude Code CLI", () => {
  skipWithout("12 conversations, maxWarm 4, interleaved: every answer to its own, never a fifth process", async () => {
    world = await makeWorld(echo)
    const watch = watchAlive(world)
    // 12 conversations = 3 × maxWarm: 8 wait for a slot and 8 are evicted; more prove nothing
    // more and cost a Claude Code start each
    const keys = Array.from({ length: 12 }, (_, i) => `conv-${i}`)
    const answers = await runPool(
      world,
      Effect.gen(function*() {
        const pool = yield* AgentPool.AgentPool
        const ask = (key: string, turn: number) =>
          pool.ask(key, `${key} turn ${turn}`).pipe(Effect.map((t) => [key, turn, textOf(t.events)] as const))
        // first turns interleaved, then a second turn for every other conversation: 6 of them,
        // more than maxWarm, so at least 2 were evicted by then and resume from the store (each
        // process start costs a CPU-second here)
        const first = yield* Effect.forEach(keys, (key) => ask(key, 1), { concurrency: 12 })
        const again = keys.filter((_, i) => i % 2 === 0)
        const second = yield* Effect.forEach(again, (key) => ask(key, 2), { concurrency: 12 })
        const warm = yield* pool.warm
        const records = yield* pool.conversations
        return { first, second, warm, records }
      }),
      // 12 sends through 4 slots: 8 wait for a slot, each behind turns whose length is the
      // machine's (a process start each). No pool timer on that wait: under load a minute's
      // acquireTimeout ran out. The test's own timeout bounds it; the Timeout test below
      // forces a busy pool with the gate.
      { maxWarm: 4, acquireTimeout: Duration.infinity }
    )
    const maxAlive = watch.stop()
    expect(maxAlive).toBeLessThanOrEqual(4)
    expect(maxAlive).toBeGreaterThan(0)
    for (const [key, turn, text] of [...answers.first, ...answers.second]) {
      expect(text).toBe(`ack ${key} turn ${turn} (seen ${turn})`)
    }
    expect(answers.warm.length).toBeLessThanOrEqual(4)
    expect(answers.records.length).toBe(12)
    expect(answers.records.every((record) => record.sessionId !== undefined)).toBe(true)
    expect(answers.records.filter((record) => record.turns === 2).length).toBe(6)
    // evicted conversations came back: one process per cold send, never more
    expect(world.spawns()).toBeGreaterThanOrEqual(12 + 2)
    expect(world.spawns()).toBeLessThanOrEqual(12 + 6)
  }, 300_000)

  skipWithout("a send waits for a slot while every process is busy, then fails with a typed Timeout", async () => {
    world = await makeWorld(echo)
    const outcome = await runPool(
      world,
      Effect.gen(function*() {
        const pool = yield* AgentPool.AgentPool
        const busy = yield* Effect.fork(pool.ask("conv-a", "conv-a please go slow"))
        // conv-a's tool call runs (until the gate opens): the only process is busy
        yield* Effect.promise(gate.entered)
        const waited = yield* Effect.either(pool.ask("conv-b", "conv-b hello"))
        gate.open()
        yield* busy.await
        const after = yield* pool.ask("conv-b", "conv-b hello")
        return { waited, after }
      }),
      { maxWarm: 1, acquireTimeout: "300 millis" }
    )
    expect(Either.isLeft(outcome.waited) && outcome.waited.left).toBeInstanceOf(AgentError)
    expect(Either.isLeft(outcome.waited) && outcome.waited.left.reason).toBe("Timeout")
    expect(textOf(outcome.after.events)).toBe("ack conv-b hello (seen 1)")
  }, TEST_TIMEOUT_MS)

  skipWithout("a restarted pool resumes every conversation from its registry; idle ones are closed", async () => {
    world = await makeWorld(echo)
    await runPool(
      world,
      Effect.gen(function*() {
        const pool = yield* AgentPool.AgentPool
        yield* pool.ask("conv-x", "conv-x one")
        yield* pool.ask("conv-y", "conv-y one")
        // idle for longer than idleTimeout: closed, their processes ended (looked at until then:
        // a loaded machine runs the idle check late; the test's timeout bounds the wait)
        while ((yield* pool.warm).length > 0) yield* Effect.sleep("50 millis")
        expect(yield* pool.warm).toEqual([])
      }),
      { idleTimeout: "200 millis" }
    )
    const spawnsBefore = world.spawns()
    const resumed = await runPool(
      world,
      Effect.gen(function*() {
        const pool = yield* AgentPool.AgentPool
        const events = yield* Stream.runCollect(pool.send("conv-x", "conv-x two"))
        const record = yield* pool.conversation("conv-x")
        return { text: textOf(Chunk.toReadonlyArray(events)), record }
      })
    )
    expect(resumed.text).toBe("ack conv-x two (seen 2)")
    const record = Option.getOrThrow(resumed.record)
    expect(record.turns).toBe(2)
    expect(record.cwd).toBe(world.cwd)
    expect(record.usage.tokens.input).toBe(200)
    expect(world.spawns()).toBe(spawnsBefore + 1)
  }, TEST_TIMEOUT_MS)
  skipWithout("sends hold a conversation together: only the last release closes it, never its successor", async () => {
    world = await makeWorld(echo)
    const w = world
    const spawns: Array<number> = []
    const outcome = await runPool(
      w,
      Effect.gen(function*() {
        const pool = yield* AgentPool.AgentPool
        // a send whose stream is open (one chunk read) holds its conversation until its scope closes
        const hold = (key: string, prompt: string) =>
          Effect.gen(function*() {
            const scope = yield* Scope.make()
            const pull = yield* Stream.toPull(pool.send(key, prompt)).pipe(Scope.extend(scope))
            yield* pull.pipe(Effect.orDie)
            return scope
          })
        const text = (key: string, prompt: string) => Effect.map(pool.ask(key, prompt), (t) => textOf(t.events))
        // two holds of conv-a: the ask's release is not the last, conv-a stays warm in its process
        const first = yield* hold("conv-a", "conv-a one")
        const second = yield* text("conv-a", "conv-a two")
        const warmWhileHeld = yield* pool.warm
        spawns.push(w.spawns())
        // the last release closes it (idleTimeout 0)
        yield* Scope.close(first, Exit.void)
        while ((yield* pool.warm).length > 0) yield* Effect.sleep("20 millis")
        // conv-b closed while held; its successor is held too when the old hold lets go late
        const old = yield* hold("conv-b", "conv-b one")
        // its turn recorded (its transcript stored) before it closes
        const turns = pool.conversation("conv-b").pipe(
          Effect.map(Option.match({ onNone: () => 0, onSome: (c) => c.turns }))
        )
        while ((yield* turns) < 1) yield* Effect.sleep("20 millis")
        yield* pool.close("conv-b")
        const successor = yield* hold("conv-b", "conv-b two")
        spawns.push(w.spawns())
        yield* Scope.close(old, Exit.void)
        const third = yield* text("conv-b", "conv-b three")
        spawns.push(w.spawns())
        yield* Scope.close(successor, Exit.void)
        return { second, warmWhileHeld, third }
      }),
      { maxWarm: 2, idleTimeout: "0 millis" }
    )
    expect(outcome.second).toBe("ack conv-a two (seen 2)")
    expect(outcome.warmWhileHeld).toEqual(["conv-a"])
    expect(outcome.third).toBe("ack conv-b three (seen 3)")
    // conv-a one process; conv-b two (the one closed, its successor): the late release closed
    // nothing, conv-b three ran in the successor
    expect(spawns).toEqual([1, 3, 3])
  }, TEST_TIMEOUT_MS)
})
