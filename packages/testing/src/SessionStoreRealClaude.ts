/**
 * A vitest suite that runs the real Claude Code CLI, offline against a {@link ModelDouble},
 * through the SDK's `query()` with a `sessionStore`, and checks what the store holds:
 *
 * - two turns in one process (streaming input) are mirrored: the store's entries equal the
 *   transcript the CLI wrote, less the entries the CLI keeps local ({@link KEPT_LOCAL}); then, with
 *   the local transcript gone, `query({ resume })` loads the session from the store alone:
 *   the model sees the whole history, the result's `total_cost_usd` continues the saved total,
 *   and the store grows by the new turn;
 * - a Task subagent's transcript is mirrored under its subpath (`subagents/agent-<id>`), equal to
 *   the file the CLI wrote, with its `agent_metadata` entries (stores with `listSubkeys`).
 *
 * Each case gets a fresh store from `makeStore` (closed afterwards when it has `close()`), a
 * private HOME and a scratch project directory. Without a Claude Code binary (see `RealClaude`)
 * the cases skip, saying why. The SDK, vitest and `@acx/environment` are loaded when the suite
 * runs (optional peers).
 *
 * @example
 * ```ts
 * import { runSessionStoreRealClaudeSuite } from "@acx/testing/SessionStoreRealClaude"
 *
 * runSessionStoreRealClaudeSuite("SqliteSessionStore", () => createSqliteSessionStore({ filename: tmpFile() }))
 * ```
 *
 * @since 0.1.0
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { loadSdk, loadVitest, requireRunner } from "./internal/optional.js"
import { lastMessageHasToolResult, lastUserText, startModelDouble, userSays } from "./ModelDouble.js"
import { detectClaude, realClaude } from "./RealClaude.js"
import { projectKeyFor, promptMessage } from "./StandInCli.js"

/**
 * A store the suite can run: the SDK's `SessionStore`, maybe closable.
 *
 * @since 0.1.0
 * @category models
 */
export type RealClaudeStore = Sdk.SessionStore & { readonly close?: () => Promise<void> }

/**
 * @since 0.1.0
 * @category models
 */
export interface RealClaudeSuiteOptions {
  /** Per case (default 60 s). */
  readonly timeoutMs?: number | undefined
  /** The model the CLI is asked for (default `claude-sonnet-4-5`). */
  readonly model?: string | undefined
}

const SUBAGENT_PROMPT = "Count the files in the project"

/**
 * The transcript entries the CLI writes and never mirrors to a `sessionStore` (the API requests'
 * own records). Named one by one: `api-request-route` (Claude Code 2.1.337: the provider and the
 * kind of credential a request went to) is mirrored, although it shares their prefix.
 */
const KEPT_LOCAL: ReadonlySet<string> = new Set([
  "api-request",
  "api-request-resumed",
  "api-request-shape",
  "api-request-blob"
])

/** The double's words for the suite: a tool round in turn one, plain answers after. */
const script = [
  {
    when: userSays("List the project"),
    reply: {
      content: [
        { type: "text" as const, text: "Listing it." },
        { type: "tool_use" as const, name: "Bash", input: { command: "ls -a" } }
      ],
      usage: { inputTokens: 1000, outputTokens: 30, cacheReadInputTokens: 200 }
    }
  },
  {
    when: lastMessageHasToolResult,
    reply: { content: "The project is empty.", usage: { inputTokens: 1100, outputTokens: 8 } }
  },
  {
    when: userSays("Now the tests"),
    reply: { content: "There are none.", usage: { inputTokens: 1200, outputTokens: 6 } }
  },
  // a Task subagent (in the foreground: its answer is the Task's tool result)
  {
    when: userSays("Delegate the count"),
    reply: {
      content: [{
        type: "tool_use" as const,
        name: "Task",
        input: {
          description: "Count files",
          prompt: SUBAGENT_PROMPT,
          subagent_type: "general-purpose",
          run_in_background: false
        }
      }]
    }
  },
  { when: userSays(SUBAGENT_PROMPT), reply: { content: "There are 0 files." } },
  { when: userSays("And the docs"), reply: { content: "None either.", usage: { inputTokens: 1300, outputTokens: 5 } } }
]

type Message = { readonly type: string; readonly [key: string]: unknown }

// One case's world: the model double, the real CLI, the store, a HOME and a project directory.
interface World {
  readonly double: Awaited<ReturnType<typeof startModelDouble>>
  readonly claude: Awaited<ReturnType<typeof realClaude>>
  readonly store: RealClaudeStore
  readonly home: string
  readonly cwd: string
  readonly query: typeof Sdk.query
  readonly model: string
}

/** Runs `body` in a fresh world (skipped without a Claude Code binary); everything released after it. */
const withWorld = async (
  makeStore: () => Promise<RealClaudeStore> | RealClaudeStore,
  model: string,
  skip: (note?: string) => void,
  body: (world: World) => Promise<void>
) => {
  const detected = await detectClaude()
  if (!detected.available) return skip(`no Claude Code binary: ${detected.reason}`)
  const { query } = await loadSdk()
  const double = await startModelDouble({ script })
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-home-"))
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-project-")))
  const store = await makeStore()
  try {
    const claude = await realClaude({ baseUrl: double.url, path: detected.path })
    await body({ double, claude, store, home, cwd, query, model })
  } finally {
    await store.close?.()
    await double.close()
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(cwd, { recursive: true, force: true })
  }
}

/** Every message of one `query()` in the world, with the store mirroring it. */
const collect = async (
  world: World,
  prompt: string | AsyncIterable<Sdk.SDKUserMessage>,
  options: Partial<Sdk.Options>
): Promise<Array<Message>> => {
  const messages: Array<Message> = []
  for await (
    const message of world.query({
      prompt,
      options: {
        ...world.claude.queryOptions(world.home),
        cwd: world.cwd,
        sessionStore: world.store,
        model: world.model,
        ...options
      }
    })
  ) messages.push(message as Message)
  return messages
}

/** Two prompts in one process, the second sent once the first turn's result arrived. */
const twoTurns = async (world: World): Promise<Array<Message>> => {
  let firstDone!: () => void
  const first = new Promise<void>((resolve) => (firstDone = resolve))
  const prompts = async function*() {
    yield promptMessage("List the project")
    await first
    yield promptMessage("Now the tests")
  }
  const messages: Array<Message> = []
  for await (
    const message of world.query({
      prompt: prompts() as AsyncIterable<Sdk.SDKUserMessage>,
      options: {
        ...world.claude.queryOptions(world.home),
        cwd: world.cwd,
        sessionStore: world.store,
        allowedTools: ["Bash"],
        model: world.model
      }
    })
  ) {
    messages.push(message as Message)
    if (message.type === "result") firstDone()
  }
  return messages
}

/** The JSON lines of a transcript the CLI wrote under the world's HOME. */
const readTranscript = (file: string): Array<Message> =>
  fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) =>
    JSON.parse(line) as Message
  )

const transcriptOf = (home: string, key: { projectKey: string; sessionId: string }): Array<Message> =>
  readTranscript(path.join(home, ".claude", "projects", key.projectKey, `${key.sessionId}.jsonl`))

/** Two turns in one process: both mirrored, in order, but what the CLI keeps local. */
const mirrorTwoTurns = async (world: World) => {
  const { expect } = await loadVitest()
  const messages = await twoTurns(world)
  const results = messages.filter((message) => message.type === "result")
  expect(results.map((result) => result["subtype"])).toEqual(["success", "success"])
  const sessionId = String(results[0]!["session_id"])
  expect(results[1]!["session_id"]).toBe(sessionId)
  const key = { projectKey: projectKeyFor(world.cwd), sessionId }
  const stored = (await world.store.load(key)) ?? []
  const written = transcriptOf(world.home, key)
  // everything the CLI wrote, in order, but what it keeps local
  expect(stored).toEqual(written.filter((entry) => !KEPT_LOCAL.has(entry.type)))
  expect(stored.filter((entry) => entry.type === "user" || entry.type === "assistant").length)
    .toBeGreaterThanOrEqual(6)
  const [summary] = (await world.store.listSessionSummaries?.(key.projectKey)) ?? []
  if (world.store.listSessionSummaries !== undefined) expect(summary?.sessionId).toBe(sessionId)
  return { key, stored: stored.length, savedCost: Number(results.at(-1)!["total_cost_usd"]) }
}

/** A resume from the store alone: the whole history sent, the running cost continued, the new turn stored. */
const resumeFromStore = async (world: World, mirrored: Awaited<ReturnType<typeof mirrorTwoTurns>>) => {
  const { expect } = await loadVitest()
  const { key } = mirrored
  // only the store has the session now
  fs.rmSync(path.join(world.home, ".claude", "projects"), { recursive: true, force: true })
  const asked = world.double.agentRequests().length
  const resumed = await collect(world, "And the docs", { resume: key.sessionId })
  const result = resumed.find((message) => message.type === "result")
  expect(result?.["subtype"]).toBe("success")
  expect(result?.["session_id"]).toBe(key.sessionId)
  // the model saw both earlier turns, the tool round included, then the new prompt
  const firstRequest = world.double.agentRequests()[asked]!
  const history = firstRequest.body["messages"] as ReadonlyArray<unknown>
  const roles = world.double.agentRequests()[asked - 1]!.body["messages"] as ReadonlyArray<unknown>
  expect(history.length).toBeGreaterThan(roles.length)
  expect(JSON.stringify(history)).toContain("List the project")
  expect(JSON.stringify(history)).toContain("Now the tests")
  expect(lastUserText(firstRequest)).toContain("And the docs")
  // cost is cumulative per session: the resumed run starts from the saved total
  expect(Number(result?.["total_cost_usd"])).toBeGreaterThan(mirrored.savedCost)
  expect(((await world.store.load(key)) ?? []).length).toBeGreaterThan(mirrored.stored)
}

/** A Task subagent's transcript mirrored under its subpath, with its `agent_metadata`. */
const mirrorSubagent = async (world: World) => {
  const { expect } = await loadVitest()
  const messages = await collect(world, "Delegate the count", { allowedTools: ["Task"] })
  const result = messages.find((message) => message.type === "result")
  expect(result?.["subtype"]).toBe("success")
  const key = { projectKey: projectKeyFor(world.cwd), sessionId: String(result?.["session_id"]) }
  if (world.store.listSubkeys === undefined) return
  const subkeys = await world.store.listSubkeys(key)
  const subagents = subkeys.filter((subpath) => subpath.startsWith("subagents/agent-"))
  expect(subagents).toHaveLength(1)
  const entries = (await world.store.load({ ...key, subpath: subagents[0]! })) ?? []
  // the subagent's conversation, as the CLI wrote it, and its metadata: the CLI mirrors an
  // `agent_metadata` entry as the subagent starts and as it ends (the SDK restores the last)
  expect(JSON.stringify(entries)).toContain(SUBAGENT_PROMPT)
  expect(JSON.stringify(entries)).toContain("There are 0 files.")
  const metadata = entries.filter((entry) => entry.type === "agent_metadata")
  expect(metadata.length).toBeGreaterThanOrEqual(1)
  for (const entry of metadata) expect(entry).toMatchObject({ agentType: "general-purpose" })
  const written = readTranscript(
    path.join(world.home, ".claude", "projects", key.projectKey, key.sessionId, `${subagents[0]!}.jsonl`)
  )
  expect(entries.filter((entry) => entry.type !== "agent_metadata")).toEqual(
    written.filter((entry) => !KEPT_LOCAL.has(entry.type))
  )
}

/**
 * Registers the suite (one `describe(name)`, one `it` per case).
 *
 * @since 0.1.0
 * @category constructors
 */
export const runSessionStoreRealClaudeSuite = (
  name: string,
  makeStore: () => Promise<RealClaudeStore> | RealClaudeStore,
  options: RealClaudeSuiteOptions = {}
): void => {
  const { describe, it } = requireRunner("runSessionStoreRealClaudeSuite")
  const timeout = options.timeoutMs ?? 60_000
  const model = options.model ?? "claude-sonnet-4-5"
  describe(`${name} with the real Claude Code CLI`, () => {
    // one case, not two: the resume continues the two mirrored turns (each CLI process started
    // costs about a CPU-second; a separate resume case ran the same two turns again)
    it(
      "mirrors two turns of one process, then resumes from the store alone: the whole history, the running cost, the new turn stored",
      ({ skip }) =>
        withWorld(makeStore, model, skip, async (world) => resumeFromStore(world, await mirrorTwoTurns(world))),
      timeout
    )
    it(
      "mirrors a Task subagent's transcript under its subpath, with its agent_metadata",
      ({ skip }) => withWorld(makeStore, model, skip, mirrorSubagent),
      timeout
    )
  })
}
