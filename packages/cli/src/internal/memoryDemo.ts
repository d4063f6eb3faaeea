/**
 * The memory demo's world: a scratch project with a bug, a private HOME with acx's hooks
 * installed, and a model double speaking for both the coding model and the observer (scripted
 * XML: the stand-in observer). Where the real Claude Code CLI is installed it runs the session
 * and fires the hooks itself, and the worker a hook starts drives the observer on the real CLI;
 * elsewhere the same hook inputs go through the hook function and the worker records local
 * observations, and the demo says why.
 */
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryInstall from "@acx/memory/MemoryInstall"
import * as MemoryWorker from "@acx/memory/MemoryWorker"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { realClaude } from "@acx/testing/RealClaude"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import { hookCommand } from "./hookCommand.js"
import { writeProject } from "./realSession.js"

/** The two prompts: the work, then a new session asking what is known. */
export const PROMPTS = ["The cart total is always 0. Fix it.", "What do you know about this project?"] as const

const OBSERVATION =
  "<observation><type>bugfix</type><title>Cart total was always 0: total() multiplied the sum by 0</title><subtitle>src/cart.mjs</subtitle><facts><fact>total() in src/cart.mjs ended with `* 0`</fact><fact>node test.mjs passes after the fix</fact></facts><narrative>The cart total was always 0 because total() multiplied its sum by 0. The multiplication was removed and the test passes.</narrative><concepts><concept>cart</concept><concept>total</concept></concepts><files_read><file>src/cart.mjs</file></files_read><files_modified><file>src/cart.mjs</file></files_modified></observation>"

const SUMMARY =
  "<summary><request>Fix the cart total, which was always 0</request><investigated>src/cart.mjs</investigated><learned>total() multiplied the sum by 0</learned><completed>Removed the multiplication; node test.mjs passes</completed><next_steps>Add a test for an empty cart</next_steps><files_read><file>src/cart.mjs</file></files_read><files_edited><file>src/cart.mjs</file></files_edited><notes></notes></summary>"

const isObserver = ModelDouble.systemMentions("acx's memory observer")

/** Both models' words: the coding session's tool calls and the observer's XML. */
const script = (project: string) => (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
  const usage = { inputTokens: 1800, outputTokens: 120 }
  if (isObserver(request)) {
    const text = ModelDouble.lastUserText(request) ?? ""
    if (text.includes("SESSION CHECKPOINT")) {
      // the second session only asked a question: nothing new to summarise
      return {
        content: JSON.stringify(request.body["messages"]).includes(PROMPTS[1]) ? "<skip_summary/>" : SUMMARY,
        usage
      }
    }
    return { content: text.includes("tool Edit") ? OBSERVATION : "<no_observations/>", usage }
  }
  if (ModelDouble.isSideCall(request)) return { content: "Fix the cart total" }
  if (ModelDouble.userSays(PROMPTS[1])(request)) {
    return { content: "From my memory of the last session: the cart total bug (total() multiplied by 0) is fixed." }
  }
  const cart = path.join(project, "src", "cart.mjs")
  switch (ModelDouble.toolResultCount(request)) {
    case 0:
      return { content: [{ type: "tool_use", name: "Read", input: { file_path: cart } }] }
    case 1:
      return {
        content: [{
          type: "tool_use",
          name: "Edit",
          input: { file_path: cart, old_string: ", 0) * 0", new_string: ", 0)" }
        }]
      }
    case 2:
      return {
        content: [{
          type: "tool_use",
          name: "Bash",
          input: { command: `"${process.execPath}" test.mjs`, description: "Run the test" }
        }]
      }
    default:
      return { content: "Fixed: total() multiplied the sum by 0. The test passes." }
  }
}

/** What the demo shows afterwards. */
export interface MemoryDemoWorld {
  readonly home: string
  readonly acxHome: string
  readonly project: string
  /** `real`: the real CLI ran; otherwise why not. */
  readonly mode: { readonly _tag: "Real" } | { readonly _tag: "Hooks"; readonly reason: string }
  /** The context the second session's first request carried (real mode), or would carry. */
  readonly injected: boolean
}

const waitUntil = (check: () => boolean, what: string, timeoutMs = 120_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.fail(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("200 millis")
    }
  })

/** The hook inputs a session like the real one sends, for a machine without Claude Code. */
const hookInputs = (project: string, sessionId: string) => {
  const cart = path.join(project, "src", "cart.mjs")
  const base = { session_id: sessionId, transcript_path: "", cwd: project }
  return [
    { ...base, hook_event_name: "UserPromptSubmit", prompt: PROMPTS[0] },
    {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_use_id: "toolu_demo_1",
      tool_input: { file_path: cart },
      tool_response: { type: "text", file: { filePath: cart, content: fs.readFileSync(cart, "utf8") } }
    },
    {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_use_id: "toolu_demo_2",
      tool_input: { file_path: cart, old_string: ", 0) * 0", new_string: ", 0)" },
      tool_response: { filePath: cart }
    },
    {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_use_id: "toolu_demo_3",
      tool_input: { command: "node test.mjs" },
      tool_response: { stdout: "", stderr: "", interrupted: false }
    },
    { ...base, hook_event_name: "Stop", stop_hook_active: false },
    { ...base, hook_event_name: "SessionEnd", reason: "other" }
  ]
}

/**
 * Runs the demo's sessions under `root`; `binary` is the real Claude Code CLI, or why there is
 * none.
 */
export const runMemoryDemo = (options: {
  readonly root: string
  readonly binary: { readonly path: string } | { readonly reason: string }
  /** The acx bin the installed hooks run. */
  readonly bin: string
}): Effect.Effect<MemoryDemoWorld, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const home = path.join(options.root, "home")
    const acxHome = path.join(home, ".acx")
    const project = path.join(options.root, "acme-shop")
    const files = MemoryConfig.paths(acxHome)
    yield* Effect.sync(() => {
      writeProject(project)
      fs.mkdirSync(acxHome, { recursive: true })
      fs.writeFileSync(
        files.config,
        JSON.stringify({ memory: { batchWaitSeconds: 0, workerIdleMinutes: 0.02 } }, null, 2)
      )
    })
    if ("reason" in options.binary) {
      for (const input of hookInputs(project, "demo-session")) {
        HookRunner.runHook(input.hook_event_name, JSON.stringify(input), { home: acxHome, env: {} })
      }
      yield* MemoryWorker.run({
        home: acxHome,
        env: {},
        config: { ...MemoryConfig.load(acxHome).config, mode: "local" },
        idleTimeout: 0,
        log: () => {}
      }).pipe(
        Effect.provide(MemoryDatabase.layer(files.database)),
        Effect.mapError((error) => new Error(error.message))
      )
      return { home, acxHome, project, mode: { _tag: "Hooks", reason: options.binary.reason }, injected: false }
    }
    const double = yield* ModelDouble.make({ script: script(project) })
    const claude = yield* Effect.promise(() =>
      realClaude({ baseUrl: double.url, path: (options.binary as { path: string }).path })
    )
    yield* MemoryInstall.install({
      scope: "user",
      home,
      claudeConfigDir: path.join(home, ".claude"),
      acxHome,
      env: {},
      hookCommand: hookCommand(options.bin)
    }).pipe(Effect.mapError((error) => new Error(error.message)))
    const first = yield* Effect.promise(() =>
      claude.run({ prompt: PROMPTS[0], cwd: project, home, allowedTools: ["Read", "Edit", "Bash"] })
    )
    if (first.exitCode !== 0) {
      return yield* Effect.fail(new Error(`the real Claude Code session failed: ${first.stderr}`))
    }
    // the worker a hook started turns the events into memory and exits when idle
    yield* waitUntil(() => HookRunner.isIdle(acxHome), "the worker to record the session")
    const second = yield* Effect.promise(() => claude.run({ prompt: PROMPTS[1], cwd: project, home }))
    if (second.exitCode !== 0) return yield* Effect.fail(new Error(`the second session failed: ${second.stderr}`))
    // and the worker its hooks started is done before the demo reads (and maybe deletes) its files
    yield* waitUntil(() => HookRunner.isIdle(acxHome), "the worker to finish")
    const requests = yield* double.requests
    const injected = requests.some((request) =>
      !isObserver(request) && ModelDouble.userSays(PROMPTS[1])(request) &&
      JSON.stringify(request.body).includes("Memory of earlier sessions")
    )
    return { home, acxHome, project, mode: { _tag: "Real" }, injected }
  })
