/**
 * The real Claude Code CLI for tests, offline: found the one way acx finds it
 * (`ClaudeBinary` of `@acx/environment`: `ACX_CLAUDE_PATH`, the installed
 * `@anthropic-ai/claude-code` platform binary, `claude` on `PATH`) and run with a private `HOME`
 * whose API base URL is a {@link ModelDouble}. Everything but the model's words is real: tools
 * run, hooks fire, transcripts land in `<home>/.claude/projects`.
 *
 * `@anthropic-ai/claude-code` and `@acx/environment` are optional peers of `@acx/testing`:
 * {@link detectClaude} says whether a binary is there (tests skip with its reason when not);
 * {@link realClaude} rejects with the lookup's typed error, which lists every place tried.
 *
 * @example
 * ```ts
 * import { realClaude, startModelDouble } from "@acx/testing"
 *
 * const model = await startModelDouble({ script: [{ content: "Hello!" }] })
 * const claude = await realClaude({ baseUrl: model.url })
 * const run = await claude.run({ prompt: "Say hello", cwd: projectDir })
 * run.messages.at(-1) // { type: "result", subtype: "success", total_cost_usd, … }
 * // with the SDK: query({ prompt, options: { ...claude.queryOptions(run.home), cwd } })
 * ```
 *
 * @since 0.1.0
 */
import type * as ClaudeBinary from "@acx/environment/ClaudeBinary"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * @since 0.1.0
 * @category models
 */
export interface RealClaudeOptions {
  /** The model double's URL, the CLI's `ANTHROPIC_BASE_URL`. */
  readonly baseUrl: string
  /** The binary; default: the `ClaudeBinary` lookup. */
  readonly path?: string | undefined
}

/**
 * One print-mode run (`claude -p <prompt> --output-format stream-json --verbose`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RealClaudeRunOptions {
  readonly prompt: string
  /** The working directory: the project the session belongs to. */
  readonly cwd: string
  /**
   * A private HOME (`<home>/.claude` is the config dir). Default: a fresh temporary directory,
   * returned as the run's `home`: the caller reads it and removes it.
   */
  readonly home?: string | undefined
  /** Written to `<home>/.claude/settings.json` before the run (hooks, permissions, …). */
  readonly settings?: { readonly [key: string]: unknown } | undefined
  /** `--allowedTools`. */
  readonly allowedTools?: ReadonlyArray<string> | undefined
  /** `--resume <sessionId>`. */
  readonly resume?: string | undefined
  /** `--model`. */
  readonly model?: string | undefined
  /** More arguments, appended. */
  readonly args?: ReadonlyArray<string> | undefined
  /** More environment, over the run's own (e.g. `MCP_CONNECTION_NONBLOCKING`). */
  readonly env?: { readonly [name: string]: string } | undefined
  /** Default 60 s; the process is killed after it. */
  readonly timeoutMs?: number | undefined
}

/**
 * What a run left: the stream-json messages, the exit code, stderr, and where its files are.
 *
 * @since 0.1.0
 * @category models
 */
export interface RealClaudeRun {
  readonly messages: ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>
  readonly exitCode: number | null
  readonly stderr: string
  readonly home: string
  /** `<home>/.claude`: `projects/<encoded cwd>/<sessionId>.jsonl` holds the transcript. */
  readonly configDir: string
  /** From the run's `system/init` message. */
  readonly sessionId: string | undefined
}

/**
 * A located binary, ready to run against a model double.
 *
 * @since 0.1.0
 * @category models
 */
export interface RealClaude {
  readonly path: string
  /** The environment of a run with `home` as HOME: the double's URL, a dummy key, no traffic. */
  readonly env: (home: string) => { readonly [name: string]: string }
  /** What to spread into the SDK's `query({ options })` to run this CLI with `home`. */
  readonly queryOptions: (home: string) => {
    readonly pathToClaudeCodeExecutable: string
    readonly env: { readonly [name: string]: string }
  }
  readonly run: (options: RealClaudeRunOptions) => Promise<RealClaudeRun>
}

/**
 * Whether a binary is there: its path, or why not (to print when skipping).
 *
 * @since 0.1.0
 * @category models
 */
export type ClaudeDetection =
  | { readonly available: true; readonly path: string }
  | { readonly available: false; readonly reason: string }

const loadLookup = (): Promise<typeof ClaudeBinary> =>
  import("@acx/environment/ClaudeBinary").catch((cause: unknown) => {
    throw new Error("@acx/testing: realClaude() needs @acx/environment: npm install --save-dev @acx/environment", {
      cause
    })
  })

/**
 * Looks for the binary without failing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const detectClaude = async (): Promise<ClaudeDetection> => {
  const lookup = await loadLookup().catch((error: Error) => error)
  if (lookup instanceof Error) return { available: false, reason: lookup.message }
  const found = lookup.findSync()
  return found instanceof lookup.ClaudeBinaryError
    ? { available: false, reason: found.message }
    : { available: true, path: found.path }
}

/** Variables kept from this process: what a program needs to run at all, nothing of the user's. */
const INHERITED = ["PATH", "TMPDIR", "LANG", "LC_ALL", "SYSTEMROOT", "TZ"]

/**
 * Locates the binary (rejects with `ClaudeBinaryError` when there is none) and returns a runner.
 *
 * @since 0.1.0
 * @category constructors
 */
export const realClaude = async (options: RealClaudeOptions): Promise<RealClaude> => {
  const binary = options.path ?? (await (await loadLookup()).findClaudeBinary()).path
  const env = (home: string) => ({
    ...Object.fromEntries(INHERITED.flatMap((name) => {
      const value = process.env[name]
      return value === undefined ? [] : [[name, value]]
    })),
    HOME: home,
    USERPROFILE: home,
    // Said explicitly: the SDK maps mirrored transcript paths against the child's config dir,
    // which it reads from this environment, not from the child's HOME.
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-model-double",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1"
  })
  const run = async (run: RealClaudeRunOptions): Promise<RealClaudeRun> => {
    const home = run.home ?? fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-home-"))
    const configDir = path.join(home, ".claude")
    fs.mkdirSync(configDir, { recursive: true })
    if (run.settings !== undefined) {
      fs.writeFileSync(path.join(configDir, "settings.json"), JSON.stringify(run.settings, null, 2))
    }
    const args = [
      "-p",
      run.prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      ...(run.allowedTools === undefined ? [] : ["--allowedTools", run.allowedTools.join(",")]),
      ...(run.resume === undefined ? [] : ["--resume", run.resume]),
      ...(run.model === undefined ? [] : ["--model", run.model]),
      ...(run.args ?? [])
    ]
    const child = spawn(binary, args, {
      cwd: run.cwd,
      env: { ...env(home), ...run.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), run.timeoutMs ?? 60_000)
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject)
      child.on("close", (code) => resolve(code))
    }).finally(() => clearTimeout(timer))
    const messages = stdout.split("\n").flatMap((line) => {
      if (line.trim() === "") return []
      try {
        const value: unknown = JSON.parse(line)
        return typeof value === "object" && value !== null && "type" in value
          ? [value as RealClaudeRun["messages"][number]]
          : []
      } catch {
        return [{ type: "unparsed", line }]
      }
    })
    const init = messages.find((message) => message.type === "system" && message["subtype"] === "init")
    const sessionId = typeof init?.["session_id"] === "string" ? init["session_id"] : undefined
    return { messages, exitCode, stderr, home, configDir, sessionId }
  }
  return {
    path: binary,
    env,
    queryOptions: (home) => ({ pathToClaudeCodeExecutable: binary, env: env(home) }),
    run
  }
}
