/**
 * The demo's real session: the real Claude Code CLI, driven by the SDK's `query()` and run
 * offline against the model double (only the model's words are scripted). In a scratch project
 * with a bug it runs two turns in one process — commands the CLI really executes: read the
 * code, fix it, run the test, add a test — then a third turn in a resumed process. Its transcript
 * lands in the demo's config directory; the SDK messages it streamed (prompts included: the CLI
 * is asked to echo them) are what the demo then saves into Acontext.
 */
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { realClaude } from "@acx/testing/RealClaude"
import { promptMessage } from "@acx/testing/StandInPrompt"
import { query, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"

/** What the demo needs of the session it ran. */
export interface RealSession {
  readonly projectDir: string
  /** The title the CLI asked the model for (a side call). */
  readonly title: string
  readonly sessionId: string
  readonly messages: ReadonlyArray<SDKMessage>
  readonly turns: number
  readonly costUsd: number
  readonly commands: ReadonlyArray<string>
}

const PROMPTS = [
  "The cart total is always 0. Find out why and fix it.",
  "Add a test for an empty cart.",
  "What did we change, in one sentence?"
] as const

const TITLE = "Fix the cart total"

const bash = (command: string, description: string) =>
  ({ type: "tool_use", name: "Bash", input: { command, description } }) as const

/** The model's words; the commands are real and run in the project. */
const script = (node: string): ModelDouble.Script => [
  { when: ModelDouble.isSideCall, reply: { content: TITLE }, times: Infinity },
  {
    when: ModelDouble.userSays(PROMPTS[0]),
    reply: {
      content: [
        { type: "text", text: "Let me read the code first." },
        bash("cat src/cart.mjs", "Read the cart module")
      ],
      usage: { inputTokens: 3120, outputTokens: 48, cacheReadInputTokens: 11800, cacheCreationInputTokens: 2400 }
    }
  },
  {
    when: ModelDouble.lastMessageHasToolResult,
    reply: {
      content: [
        { type: "text", text: "`total()` multiplies the sum by 0. Removing that and running the test:" },
        bash(`sed -i 's/ \\* 0$//' src/cart.mjs && "${node}" test.mjs`, "Fix total() and run the test")
      ],
      usage: { inputTokens: 3390, outputTokens: 96, cacheReadInputTokens: 14200 }
    }
  },
  {
    when: ModelDouble.lastMessageHasToolResult,
    reply: {
      content: "Fixed: `total()` multiplied the sum by 0. The test passes now.",
      usage: { inputTokens: 3610, outputTokens: 22, cacheReadInputTokens: 14200 }
    }
  },
  {
    when: ModelDouble.userSays(PROMPTS[1]),
    reply: {
      content: [bash(
        `printf '%s\\n' 'assert.equal(total([]), 0)' >> test.mjs && "${node}" test.mjs`,
        "Add an empty-cart test and run the tests"
      )],
      usage: { inputTokens: 3800, outputTokens: 71, cacheReadInputTokens: 14500 }
    }
  },
  {
    when: ModelDouble.lastMessageHasToolResult,
    reply: {
      content: "Added: an empty cart totals 0, and both tests pass.",
      usage: { inputTokens: 3950, outputTokens: 18, cacheReadInputTokens: 14500 }
    }
  },
  {
    when: ModelDouble.userSays(PROMPTS[2]),
    reply: {
      content: "`total()` no longer multiplies by 0, and a test now covers the empty cart.",
      usage: { inputTokens: 4100, outputTokens: 24, cacheReadInputTokens: 14800 }
    }
  }
]

/** The scratch project: a cart module whose total is always 0, and its test. */
export const writeProject = (projectDir: string) => {
  fs.mkdirSync(path.join(projectDir, "src"), { recursive: true })
  fs.writeFileSync(
    path.join(projectDir, "src", "cart.mjs"),
    "export const total = (items) => items.reduce((sum, item) => sum + item.price * item.quantity, 0) * 0\n"
  )
  fs.writeFileSync(
    path.join(projectDir, "test.mjs"),
    [
      "import assert from \"node:assert/strict\"",
      "import { total } from \"./src/cart.mjs\"",
      "assert.equal(total([{ price: 3, quantity: 2 }, { price: 4, quantity: 1 }]), 10)",
      ""
    ].join("\n")
  )
}

/** Runs the session; `configDir` receives the transcript (`CLAUDE_CONFIG_DIR` of the CLI). */
export const runRealSession = (options: {
  readonly binary: string
  readonly root: string
  readonly configDir: string
}): Effect.Effect<RealSession, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const double = yield* ModelDouble.make({ script: script(process.execPath) })
    const projectDir = path.join(options.root, "acme-shop")
    const home = path.join(options.root, "home")
    yield* Effect.sync(() => {
      writeProject(projectDir)
      fs.mkdirSync(home, { recursive: true })
    })
    const claude = yield* Effect.promise(() => realClaude({ baseUrl: double.url, path: options.binary }))
    const sdkOptions = ClaudeAgentStorage.withReplayedPrompts({
      pathToClaudeCodeExecutable: claude.path,
      env: { ...claude.env(home), CLAUDE_CONFIG_DIR: options.configDir },
      cwd: projectDir,
      allowedTools: ["Bash"],
      model: "claude-sonnet-4-5"
    })
    const run = (prompt: string | AsyncIterable<SDKUserMessage>, extra: { resume?: string }, onResult: () => void) =>
      Effect.tryPromise({
        try: async () => {
          const messages: Array<SDKMessage> = []
          for await (const message of query({ prompt, options: { ...sdkOptions, ...extra } })) {
            messages.push(message)
            if (message.type === "result") onResult()
          }
          return messages
        },
        catch: (cause) => new Error(`the real Claude Code session failed: ${String(cause)}`, { cause })
      })
    // two turns in one process: the second prompt once the first turn's result arrived
    let firstDone!: () => void
    const first = new Promise<void>((resolve) => (firstDone = resolve))
    const prompts = async function*(): AsyncGenerator<SDKUserMessage> {
      yield promptMessage(PROMPTS[0]) as unknown as SDKUserMessage
      await first
      yield promptMessage(PROMPTS[1]) as unknown as SDKUserMessage
    }
    const live = yield* run(prompts(), {}, () => firstDone())
    const init = live.find((message) => message.type === "system" && message.subtype === "init")
    if (init === undefined) return yield* Effect.fail(new Error("the real Claude Code session sent no init message"))
    const resumed = yield* run(PROMPTS[2], { resume: init.session_id }, () => undefined)
    const messages = [...live, ...resumed]
    const results = messages.filter((message) => message.type === "result")
    const failed = results.find((result) => result.subtype !== "success")
    if (failed !== undefined || results.length !== 3) {
      return yield* Effect.fail(new Error(`the real Claude Code session did not complete its 3 turns`))
    }
    const requests = yield* double.agentRequests
    return {
      projectDir,
      title: TITLE,
      sessionId: init.session_id,
      messages,
      turns: results.length,
      costUsd: results.at(-1)!.total_cost_usd,
      commands: requests.flatMap((request) =>
        (request.response?.content ?? []).flatMap((block) =>
          block["type"] === "tool_use" ? [String((block["input"] as { command?: unknown })?.command)] : []
        )
      )
    }
  })
