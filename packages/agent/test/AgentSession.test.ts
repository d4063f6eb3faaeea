/**
 * AgentSession on the real Claude Code CLI, offline against the model double: one process for
 * many turns, turns queued in order, usage equal to what the double declared (cost read from the
 * cumulative total), interrupt, a process killed mid-turn (TurnFailed, then a resume from the
 * store with every earlier turn intact), close and resume with the local transcripts deleted,
 * a binary that cannot start (StartFailed) and runOnce.
 */
import { AgentError } from "@acx/agent/AgentError"
import * as AgentSession from "@acx/agent/AgentSession"
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import type { SdkSessionStore } from "@acx/session-store/SessionStore"
import * as ModelDouble from "@acx/testing/ModelDouble"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  claude,
  costOf,
  makeWorld,
  MODEL,
  openStore,
  sideCalls,
  TEST_TIMEOUT_MS,
  textOf,
  userTexts,
  type World
} from "./utils/world.js"

const usage = {
  one: { inputTokens: 1200, outputTokens: 40, cacheReadInputTokens: 3000, cacheCreationInputTokens: 500 },
  two: { inputTokens: 1500, outputTokens: 60, cacheReadInputTokens: 3300, cacheCreationInputTokens: 0 },
  three: { inputTokens: 1800, outputTokens: 20, cacheReadInputTokens: 3600, cacheCreationInputTokens: 0 }
}

const mentions = (text: string) => (request: ModelDouble.ModelRequest) =>
  ModelDouble.lastUserText(request)?.includes(text) === true

const script: ModelDouble.Script = [
  sideCalls,
  { when: ModelDouble.userSays("First question"), reply: { content: "First answer.", usage: usage.one } },
  // after an interrupt the CLI sends the interrupted tool's result with the next prompt
  { when: mentions("Second question"), reply: { content: "Second answer.", usage: usage.two } },
  { when: ModelDouble.userSays("Third question"), reply: { content: "Third answer.", usage: usage.three } },
  {
    when: ModelDouble.userSays("Run the slow command"),
    reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 30" } }], usage: usage.one }
  },
  { when: ModelDouble.lastMessageHasToolResult, reply: { content: "The command ended." }, times: Infinity },
  { when: ModelDouble.userSays("What did I ask first?"), reply: { content: "You asked the first question." } },
  { when: ModelDouble.userSays("Describe the picture"), reply: { content: "A red dot." } }
]

let world: World | undefined
let store: SdkSessionStore | undefined
afterEach(async () => {
  await store?.close()
  await world?.close()
  store = undefined
  world = undefined
})

const setup = async () => {
  world = await makeWorld(script)
  store = openStore(world)
  return { world, store }
}

const optionsOf = (w: World, s: SdkSessionStore | undefined): AgentSession.AgentSessionOptions => ({
  cwd: w.cwd,
  model: MODEL,
  env: w.env,
  pathToClaudeCodeExecutable: w.binary,
  sessionStore: s,
  allowedTools: ["Bash"]
})

const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.runPromise(Effect.scoped(effect))

const skipWithout = claude.available ? it : it.skip

describe("AgentSession on the real Claude Code CLI", () => {
  skipWithout("answers three turns with ONE process; usage equals what the double declared", async () => {
    const { store, world } = await setup()
    const seen: Array<AgentSession.Turn> = []
    const result = await run(Effect.gen(function*() {
      const session = yield* AgentSession.make({
        ...optionsOf(world, store),
        onTurnComplete: (turn) => Effect.sync(() => seen.push(turn))
      })
      const first = yield* Stream.runCollect(session.send("First question"))
      const second = yield* session.ask("Second question")
      const third = yield* session.ask("Third question")
      return {
        first: Chunk.toReadonlyArray(first),
        second,
        third,
        usage: yield* session.usage,
        sessionId: yield* session.sessionId,
        busy: yield* session.isBusy
      }
    }))
    expect(world.spawns()).toBe(1)
    expect(textOf(result.first)).toBe("First answer.")
    expect(result.first.some((event) => event._tag === "TextDelta")).toBe(true)
    expect(result.first.at(-1)?._tag).toBe("TurnComplete")
    expect(textOf(result.second.events)).toBe("Second answer.")
    expect(textOf(result.third.events)).toBe("Third answer.")
    expect(result.busy).toBe(false)
    expect(Option.isSome(result.sessionId)).toBe(true)

    // tokens by model: exactly the scripted figures
    const tokens = (u: ModelDouble.ModelUsage) => ({
      input: u.inputTokens ?? 0,
      output: u.outputTokens ?? 0,
      cacheRead: u.cacheReadInputTokens ?? 0,
      cacheWrite: u.cacheCreationInputTokens ?? 0
    })
    expect(result.second.usage.tokensByModel).toEqual({ [MODEL]: tokens(usage.two) })
    expect(result.usage.turns).toBe(3)
    expect(result.usage.tokens).toEqual({
      input: 1200 + 1500 + 1800,
      output: 40 + 60 + 20,
      cacheRead: 3000 + 3300 + 3600,
      cacheWrite: 500
    })
    // dollars: each turn's own cost, the total read (never summed) from the cumulative result
    expect(result.second.usage.costUsd).toBeCloseTo(costOf(usage.two), 9)
    expect(result.third.usage.costUsd).toBeCloseTo(costOf(usage.three), 9)
    expect(result.usage.costUsd).toBeCloseTo(costOf(usage.one) + costOf(usage.two) + costOf(usage.three), 9)
    expect(result.third.result.totalCostUsd).toBeCloseTo(result.usage.costUsd, 9)

    // onTurnComplete saw every turn, in order
    expect(seen.map((turn) => turn.prompt)).toEqual(["First question", "Second question", "Third question"])
    expect(seen[2]?.conversation.turns).toBe(3)
  }, TEST_TIMEOUT_MS)

  // one process for both: queued turns, then a turn of content blocks (each process started
  // costs about a CPU-second)
  skipWithout(
    "queues sends made while a turn runs, in call order, each answer to its own turn; prompts with content blocks reach the model as blocks",
    async () => {
      const { store, world } = await setup()
      const dot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
      const { answers, blocks } = await run(Effect.gen(function*() {
        const session = yield* AgentSession.make(optionsOf(world, store))
        const streams = yield* Effect.all([
          session.submit("First question"),
          session.submit("Second question"),
          session.submit("Third question")
        ])
        expect(yield* session.isBusy).toBe(true)
        const answers = yield* Effect.forEach(
          streams,
          (stream) => Stream.runCollect(stream).pipe(Effect.map((events) => textOf(Chunk.toReadonlyArray(events)))),
          { concurrency: "unbounded" }
        )
        const blocks = yield* session.ask([
          { type: "image", source: { type: "base64", media_type: "image/png", data: dot } },
          { type: "text", text: "Describe the picture" }
        ])
        return { answers, blocks }
      }))
      expect(answers).toEqual(["First answer.", "Second answer.", "Third answer."])
      expect(textOf(blocks.events)).toBe("A red dot.")
      const request = world.double.agentRequests().at(-1)!
      expect(JSON.stringify(request.body["messages"])).toContain(dot)
      expect(world.spawns()).toBe(1)
    },
    TEST_TIMEOUT_MS
  )

  skipWithout("eight sessions side by side, three queued turns each, all closed: none hangs", async () => {
    // a regression: closing waited on the SDK iterator's return(), which an async generator
    // queues behind a next() that never settles once the CLI is gone — under load, forever
    const worlds = await Promise.all(Array.from({ length: 8 }, () => makeWorld(script)))
    try {
      const answers = await Promise.all(worlds.map((w) =>
        Effect.runPromise(
          Effect.scoped(Effect.gen(function*() {
            const session = yield* AgentSession.make({ ...optionsOf(w, undefined), sessionStore: null })
            const streams = yield* Effect.all([
              session.submit("First question"),
              session.submit("Second question"),
              session.submit("Third question")
            ])
            return yield* Effect.forEach(
              streams,
              (stream) => Stream.runCollect(stream).pipe(Effect.map((events) => textOf(Chunk.toReadonlyArray(events)))),
              { concurrency: "unbounded" }
            )
          })).pipe(Effect.timeoutFail({ duration: "90 seconds", onTimeout: () => new Error("a session hung") }))
        )
      ))
      for (const answer of answers) expect(answer).toEqual(["First answer.", "Second answer.", "Third answer."])
    } finally {
      await Promise.all(worlds.map((w) => w.close()))
    }
  }, 150_000)

  skipWithout(
    "interrupt ends the running turn with an error result; the next turn runs in the same process",
    async () => {
      const { store, world } = await setup()
      const result = await run(Effect.gen(function*() {
        const session = yield* AgentSession.make(optionsOf(world, store))
        const slow = yield* session.submit("Run the slow command")
        // at the tool call the turn certainly runs: its 30 s command has not been interrupted yet
        const busyMidTurn: Array<boolean> = []
        const events = yield* slow.pipe(
          Stream.tap((event) =>
            event._tag === "ToolUse"
              ? session.isBusy.pipe(
                Effect.tap((busy) => busyMidTurn.push(busy)),
                Effect.zipRight(Effect.fork(session.interrupt))
              )
              : Effect.void
          ),
          Stream.runCollect
        )
        const next = yield* session.ask("Second question")
        return { events: Chunk.toReadonlyArray(events), next, busyMidTurn, busyAfter: yield* session.isBusy }
      }))
      expect(result.busyMidTurn).toEqual([true])
      expect(result.busyAfter).toBe(false)
      const last = result.events.at(-1)
      expect(last?._tag === "TurnComplete" && last.isError).toBe(true)
      expect(textOf(result.next.events)).toBe("Second answer.")
      expect(world.spawns()).toBe(1)
    },
    // Once in a loaded CI run (2026-11-24) the real CLI stopped the tool at once but ended the turn
    // with a success result: which one it sends depends on where the interrupt meets its loop.
    // One retry; the race is noted as needing work.
    { timeout: TEST_TIMEOUT_MS, retry: 1 }
  )

  skipWithout(
    "a process killed mid-turn fails the turn with TurnFailed; the next send resumes from the store",
    async () => {
      const { store, world } = await setup()
      const result = await run(Effect.gen(function*() {
        const session = yield* AgentSession.make(optionsOf(world, store))
        yield* session.ask("First question")
        const sessionId = Option.getOrThrow(yield* session.sessionId)
        const failed = yield* session.send("Run the slow command").pipe(
          Stream.tap((event) =>
            event._tag === "ToolUse"
              ? Effect.flatMap(
                session.processId,
                (pid) => Effect.sync(() => process.kill(Option.getOrThrow(pid), "SIGKILL"))
              )
              : Effect.void
          ),
          Stream.runDrain,
          Effect.either
        )
        const resumed = yield* session.ask("What did I ask first?")
        return { failed, resumed, sessionId, after: yield* session.sessionId }
      }))
      expect(Either.isLeft(result.failed) && result.failed.left.reason).toBe("TurnFailed")
      expect(textOf(result.resumed.events)).toBe("You asked the first question.")
      expect(world.spawns()).toBe(2)
      expect(Option.getOrThrow(result.after)).toBe(result.sessionId)
      // the resumed process showed the model the first turn
      const last = world.double.agentRequests().at(-1)!
      expect(userTexts(last)).toContain("First question")
      // the store holds every prompt once: nothing lost, nothing doubled by the resume
      const entries = (await store.load({ projectKey: encodeProjectDir(world.cwd), sessionId: result.sessionId })) ?? []
      const prompts = entries.flatMap((entry) => {
        const message = entry["message"] as { role?: string; content?: unknown } | undefined
        if (entry.type !== "user" || message?.role !== "user") return []
        const content = message.content
        return typeof content === "string"
          ? [content]
          : Array.isArray(content)
          ? content.flatMap((
            block: { type?: string; text?: string }
          ) => (block.type === "text" ? [block.text ?? ""] : []))
          : []
      })
      expect(prompts.filter((text) => text === "First question")).toHaveLength(1)
      expect(prompts.filter((text) => text === "What did I ask first?")).toHaveLength(1)
      expect(prompts.filter((text) => text === "Run the slow command").length).toBeLessThanOrEqual(1)
    },
    TEST_TIMEOUT_MS
  )

  skipWithout("a closed conversation resumes from the store alone (local transcripts deleted)", async () => {
    const { store, world } = await setup()
    const first = await run(Effect.gen(function*() {
      const session = yield* AgentSession.make(optionsOf(world, store))
      const turn = yield* session.ask("First question")
      yield* session.close
      const afterClose = yield* Effect.either(session.ask("Second question"))
      return { turn, afterClose, usage: yield* session.usage }
    }))
    expect(Either.isLeft(first.afterClose) && first.afterClose.left.reason).toBe("Closed")
    fs.rmSync(path.join(world.home, ".claude", "projects"), { recursive: true, force: true })
    const resumed = await run(Effect.gen(function*() {
      const session = yield* AgentSession.make({
        ...optionsOf(world, store),
        resume: first.turn.sessionId,
        usage: first.usage
      })
      const turn = yield* session.ask("What did I ask first?")
      return { turn, usage: yield* session.usage }
    }))
    expect(textOf(resumed.turn.events)).toBe("You asked the first question.")
    expect(resumed.turn.sessionId).toBe(first.turn.sessionId)
    expect(userTexts(world.double.agentRequests().at(-1)!)).toContain("First question")
    // the resumed process continues the saved total: the conversation's total is the result's
    expect(resumed.usage.costUsd).toBeCloseTo(resumed.turn.result.totalCostUsd, 9)
    expect(resumed.usage.turns).toBe(2)
    expect(world.spawns()).toBe(2)
  }, TEST_TIMEOUT_MS)
})

describe("AgentSession without a process", () => {
  it("rejects an empty prompt with InvalidPrompt, and a binary that cannot start with StartFailed", async () => {
    const missing = path.join(fs.mkdtempSync(path.join(import.meta.dirname ?? ".", ".tmp-")), "no-claude")
    try {
      const outcome = await run(Effect.gen(function*() {
        const session = yield* AgentSession.make({ pathToClaudeCodeExecutable: missing, sessionStore: null })
        const empty = yield* Effect.either(session.ask("  "))
        const start = yield* Effect.either(session.ask("Hello"))
        return { empty, start }
      }))
      expect(Either.isLeft(outcome.empty) && outcome.empty.left.reason).toBe("InvalidPrompt")
      expect(Either.isLeft(outcome.start) && outcome.start.left).toBeInstanceOf(AgentError)
      expect(Either.isLeft(outcome.start) && outcome.start.left.reason).toBe("StartFailed")
    } finally {
      fs.rmSync(path.dirname(missing), { recursive: true, force: true })
    }
  }, TEST_TIMEOUT_MS)
})
