/**
 * The world of an agent test: the real Claude Code CLI, offline against a model double, behind a
 * wrapper script that logs every spawn (so a test counts processes), a private HOME, a scratch
 * project and a SQLite session store in a temporary directory.
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import { removeTreeWhenIdle } from "@acx/fixtures/treeRemoval"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

/** The model the tests ask for (Claude Code 2.1.330 prices it $3 / $15 / $0.30 / $3.75 per MTok). */
export const MODEL = "claude-sonnet-4-5"

/** What Claude Code charges for a reply's usage on {@link MODEL}. */
export const costOf = (usage: ModelDouble.ModelUsage): number =>
  ((usage.inputTokens ?? 0) * 3 + (usage.outputTokens ?? 0) * 15 + (usage.cacheReadInputTokens ?? 0) * 0.3 +
    (usage.cacheCreationInputTokens ?? 0) * 3.75) / 1e6

/** Side calls (titles and the like) answer with no usage, so the costs are the agent loop's alone. */
export const sideCalls: ModelDouble.ScriptStep = {
  when: ModelDouble.isSideCall,
  reply: { content: "A title", usage: { inputTokens: 0, outputTokens: 0 } },
  times: Infinity
}

export const TEST_TIMEOUT_MS = 120_000

export interface World {
  readonly root: string
  readonly home: string
  readonly cwd: string
  readonly double: ModelDouble.ModelDoubleHandle
  /** The wrapper script to give as `pathToClaudeCodeExecutable`. */
  readonly binary: string
  readonly env: { readonly [name: string]: string }
  readonly storePath: string
  /** How many Claude Code processes were started so far. */
  readonly spawns: () => number
  /** How many of this world's Claude Code processes are alive now (read from /proc). */
  readonly alive: () => number
  readonly close: () => Promise<void>
}

/** A new world; `script` is the model double's. */
export const makeWorld = async (script: ModelDouble.Script): Promise<World> => {
  if (!claude.available) throw new Error(claude.reason)
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-agent-"))
  const home = path.join(root, "home")
  const cwd = path.join(root, "project")
  fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
  fs.mkdirSync(cwd)
  const double = await ModelDouble.startModelDouble({ script })
  const real = await realClaude({ baseUrl: double.url, path: claude.path })
  const spawnLog = path.join(root, "spawns.log")
  const binary = path.join(root, "claude-wrapper")
  fs.writeFileSync(binary, `#!/bin/sh\necho "$$" >> '${spawnLog}'\nexec '${claude.path}' "$@"\n`, { mode: 0o755 })
  return {
    root,
    home,
    cwd,
    double,
    binary,
    env: real.env(home),
    storePath: path.join(root, "agent.db"),
    alive: () => aliveIn(claude.path, home),
    spawns: () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, "utf8").trim().split("\n").length : 0),
    close: async () => {
      await double.close()
      // a Claude Code process of a pool worker killed with SIGKILL outlives it for a moment, still
      // writing under its HOME
      await removeTreeWhenIdle(root)
    }
  }
}

/**
 * This world's Claude Code processes: the binary's, with the world's HOME in their environment,
 * less the short-lived helpers a CLI forks of itself (their parent is a CLI process).
 */
const aliveIn = (binary: string, home: string): number => {
  const parents = new Map<string, string>()
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]
      if (argv0 !== binary) continue
      const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
      if (!environ.includes(`HOME=${home}`)) continue
      // the fourth field of /proc/<pid>/stat is the parent pid (the name, in parentheses, has no spaces here)
      parents.set(pid, fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[3] ?? "")
    } catch {
      // the process ended while being read
    }
  }
  return [...parents.values()].filter((parent) => !parents.has(parent)).length
}

/** Samples `alive()` every 20 ms until stopped; returns the largest count seen. */
export const watchAlive = (world: World): { readonly stop: () => number } => {
  let max = world.alive()
  const timer = setInterval(() => {
    max = Math.max(max, world.alive())
  }, 20)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(max, world.alive())
    }
  }
}

/** A SQLite store on the world's file (the SDK-facing Promise object). */
export const openStore = (world: World) => createSqliteSessionStore({ filename: world.storePath })

/** The user texts of a request's messages (what the model was shown). */
export const userTexts = (request: ModelDouble.ModelRequest): ReadonlyArray<string> =>
  (request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }>).flatMap((message) =>
    message.role !== "user"
      ? []
      : typeof message.content === "string"
      ? [message.content]
      : (message.content as ReadonlyArray<{ type: string; text?: string }>).flatMap((block) =>
        block.type === "text" && block.text !== undefined ? [block.text] : []
      )
  )

/** The text blocks of a turn's events, joined. */
export const textOf = (events: ReadonlyArray<AgentEvent>): string =>
  events.flatMap((event) => (event._tag === "Text" ? [event.text] : [])).join("")

/**
 * A gate for a slow tool call: `command` (a shell command) marks that it started, then waits
 * until the test opens the gate — so a test pauses or interrupts a turn while its tool call
 * certainly runs, and ends it when it chooses, instead of guessing with a `sleep`.
 */
export interface Gate {
  readonly command: string
  /** Resolves once the command runs. */
  readonly entered: () => Promise<void>
  readonly open: () => void
  readonly close: () => void
}

/** A new, closed gate in a temporary directory of its own. */
export const makeGate = (): Gate => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-gate-"))
  const file = path.join(dir, "open")
  const entered = path.join(dir, "entered")
  return {
    // the directory gone (the gate closed) ends it too
    command: `touch '${entered}'; while [ -d '${dir}' ] && [ ! -e '${file}' ]; do sleep 0.05; done`,
    entered: async () => {
      while (!fs.existsSync(entered)) await new Promise((resolve) => setTimeout(resolve, 20))
    },
    open: () => fs.writeFileSync(file, ""),
    close: () => fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The pool tests' model: it repeats the prompt and says how many of the conversation's prompts it
 * was shown (the history). A prompt mentioning "slow" runs the gate's command first (the turn
 * lasts until the test opens the gate). The CLI may put reminders in text blocks of their own:
 * the prompts are the texts that start "conv-".
 */
export const echoScript = (gate: Gate): ModelDouble.Script => (request) => {
  if (ModelDouble.isSideCall(request)) return { content: "A title", usage: { inputTokens: 0, outputTokens: 0 } }
  const prompts = userTexts(request).filter((text) => text.startsWith("conv-"))
  const prompt = prompts.at(-1) ?? ""
  if (prompt.includes("slow")) {
    return ModelDouble.lastMessageHasToolResult(request)
      ? { content: "late answer" }
      : { content: [{ type: "tool_use", name: "Bash", input: { command: gate.command } }] }
  }
  return { content: `ack ${prompt} (seen ${prompts.length})`, usage: { inputTokens: 100, outputTokens: 10 } }
}
