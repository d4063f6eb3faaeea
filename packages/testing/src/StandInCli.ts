/**
 * A scriptable stand-in for the Claude Code CLI, so the real Claude Agent SDK's `query()` runs
 * fully offline: no binary, no network, no API key.
 *
 * `query()` spawns the CLI and talks stream-json with it over stdin/stdout. Pointing
 * `pathToClaudeCodeExecutable` at the stand-in script (a plain Node ESM file) makes the SDK play
 * a {@link StandInScenario} instead: the script answers the SDK's `initialize` (and any other)
 * control request, then runs the scenario's steps in order — emit frames, wait for prompts and
 * echo them as replays, mirror transcript entries, assert on its argv and on the transcript the
 * SDK materialised for a resume, call the SDK's hook callbacks, sleep, exit — and logs
 * everything it saw to a JSONL file the test reads back.
 *
 * ```ts
 * const cli = await prepareStandInCli({ scenario })
 * for await (const message of query({ prompt: "hi", options: { ...cli.queryOptions } })) { … }
 * const log = await cli.readLog()
 * await cli.cleanup()
 * ```
 *
 * What the real SDK (0.3.330) does with the stand-in's output, observed:
 * - it yields every stdout frame verbatim (unknown `type`s included), except `control_request`,
 *   `control_response`, `control_cancel_request`, `keep_alive` and `transcript_mirror`;
 * - `transcript_mirror` frames become `sessionStore.append()` calls, flushed before the next
 *   `result` frame is yielded (so a consumer that sees `result` sees the store up to date);
 * - with a string prompt, the SDK closes stdin right after the first `result` (single turn); with
 *   an async-iterable prompt it closes stdin as soon as the iterable ends (when no hooks, MCP
 *   servers or `canUseTool` need the channel; otherwise after the run ends);
 * - a non-zero exit makes the query iterator throw, after every frame written before the exit has
 *   been yielded: `Error("Claude Code process exited with code 2. stderr: <what the script
 *   wrote>")` with `exitCode`, so an assertion failure's reason reaches the test;
 * - on `resume` with a `sessionStore`, the CLI runs with `CLAUDE_CONFIG_DIR` set to a temporary
 *   directory of the SDK's (`<tmpdir>/claude-resume-<uuid>`, removed afterwards) holding the
 *   loaded transcript; `transcript_mirror` paths under it still map to the original keys;
 * - a consumer that leaves the loop early makes the SDK close stdin, wait about 2 s for the CLI
 *   to exit, then SIGTERM it; the `break` awaits that.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { StandInFrame } from "./StandInScenario.js"
import {
  STANDIN_LOG_ENV,
  STANDIN_SCENARIO_ENV,
  StandInCliError,
  StandInLogRecord,
  StandInScenario
} from "./StandInScenario.js"

/**
 * The prompts `query()` takes as streaming input (defined in `StandInPrompt`).
 *
 * @since 0.1.0
 * @category models
 */
export { type PromptMessage, promptMessage, promptStream } from "./StandInPrompt.js"

/**
 * The scenario and log schemas, the error and the constants (defined in `StandInScenario`).
 *
 * @since 0.1.0
 */
export * from "./StandInScenario.js"

/**
 * Project keys and stored transcripts (defined in `StandInTranscript`).
 *
 * @since 0.1.0
 */
export * from "./StandInTranscript.js"

/**
 * Realistic conversations (defined in `StandInConversation`).
 *
 * @since 0.1.0
 */
export * from "./StandInConversation.js"

// -------------------------------------------------------------------------------------------------
// preparing
// -------------------------------------------------------------------------------------------------

// Next to this module: in `src/` (sources, as inside the repository) and in `dist/` (the build
// copies the script there; it is never compiled).
const scriptCandidates = ["./internal/standin/cli.mjs"]

/**
 * The absolute path of the stand-in script, located relative to this module.
 *
 * @since 0.1.0
 * @category constructors
 */
export const standInScriptPath = (): string => {
  for (const candidate of scriptCandidates) {
    const file = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(file)) return file
  }
  throw new StandInCliError({
    reason: "ScriptNotFound",
    description: `the stand-in script is not at any of ${scriptCandidates.join(", ")} relative to ${import.meta.url}`
  })
}

/**
 * What to spread into `query({ prompt, options: { ...queryOptions, … } })`.
 *
 * @since 0.1.0
 * @category models
 */
export interface StandInQueryOptions {
  readonly pathToClaudeCodeExecutable: string
  readonly executable: "node"
  /**
   * `process.env`, `options.env`, the scenario and log paths, and `CLAUDE_CONFIG_DIR` if any. To
   * add variables, merge: `env: { ...cli.queryOptions.env, FOO: "1" }` (or use `options.env`).
   */
  readonly env: { readonly [name: string]: string | undefined }
  /** Present when {@link PrepareStandInCliOptions.cwd} was given. */
  readonly cwd?: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PrepareStandInCliOptions {
  readonly scenario: StandInScenario
  /** Where to create the stand-in's temporary directory (default `os.tmpdir()`). */
  readonly dir?: string
  /**
   * `CLAUDE_CONFIG_DIR` for the CLI: `true` (default) creates an empty one inside the temporary
   * directory, so the SDK reads no user settings or credentials; a string uses that directory;
   * `false` leaves the variable as the environment has it.
   */
  readonly configDir?: string | boolean
  /** The CLI's working directory (`options.cwd`), which decides the SDK's project key. */
  readonly cwd?: string
  /** Extra environment for the CLI, applied over `process.env`. */
  readonly env?: { readonly [name: string]: string | undefined }
}

/**
 * A prepared stand-in: its files, the `query()` options that run it, and its log.
 *
 * @since 0.1.0
 * @category models
 */
export interface StandInCli {
  /** The temporary directory holding the scenario, the log and (by default) the config dir. */
  readonly dir: string
  readonly scriptPath: string
  readonly scenarioFile: string
  readonly logFile: string
  /** The `CLAUDE_CONFIG_DIR` the CLI gets, if one was set. */
  readonly configDir: string | undefined
  /** The scenario's session id (filled in when the scenario had none). */
  readonly sessionId: string
  /** The scenario as written, session id included. */
  readonly scenario: StandInScenario
  readonly queryOptions: StandInQueryOptions
  /** Everything every run of the stand-in logged so far, in order. */
  readonly readLog: () => Promise<ReadonlyArray<StandInLogRecord>>
  /** Removes the temporary directory. Idempotent. */
  readonly cleanup: () => Promise<void>
}

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)

const decodeScenario = Schema.decodeUnknownEither(StandInScenario)
const decodeLogRecord = Schema.decodeUnknownEither(Schema.parseJson(StandInLogRecord))

const io = <A>(what: string, run: () => Promise<A>): Promise<A> =>
  run().catch((cause: unknown) => {
    throw new StandInCliError({ reason: "Io", description: `${what}: ${describe(cause)}`, cause })
  })

const readLogFile = async (logFile: string): Promise<ReadonlyArray<StandInLogRecord>> => {
  const text = await io(
    `reading ${logFile}`,
    () =>
      fs.readFile(logFile, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return ""
        throw error
      })
  )
  const records: Array<StandInLogRecord> = []
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue
    const decoded = decodeLogRecord(line)
    if (decoded._tag === "Left") {
      throw new StandInCliError({
        reason: "InvalidLog",
        description: `${logFile}:${index + 1}: ${decoded.left.message}`,
        cause: decoded.left
      })
    }
    records.push(decoded.right)
  }
  return records
}

/**
 * Writes the scenario to a fresh temporary directory and returns the `query()` options that run
 * the stand-in on it. Rejects with a {@link StandInCliError}. Call `cleanup()` when done (or use
 * {@link makeStandInCli}, which does it when its scope closes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const prepareStandInCli = async (options: PrepareStandInCliOptions): Promise<StandInCli> => {
  const scriptPath = standInScriptPath()
  const checked = decodeScenario(options.scenario)
  if (checked._tag === "Left") {
    throw new StandInCliError({ reason: "InvalidScenario", description: checked.left.message, cause: checked.left })
  }
  const sessionId = options.scenario.sessionId ?? randomUUID()
  const scenario: StandInScenario = { ...options.scenario, sessionId }
  const dir = await io(
    "creating the temporary directory",
    () => fs.mkdtemp(path.join(options.dir ?? os.tmpdir(), "acx-standin-"))
  )
  const scenarioFile = path.join(dir, "scenario.json")
  const logFile = path.join(dir, "log.jsonl")
  const configDir = options.configDir === undefined || options.configDir === true
    ? path.join(dir, "claude-config")
    : typeof options.configDir === "string"
    ? options.configDir
    : undefined
  if (configDir !== undefined && typeof options.configDir !== "string") {
    await io("creating the config directory", () => fs.mkdir(configDir))
  }
  await io(`writing ${scenarioFile}`, () => fs.writeFile(scenarioFile, JSON.stringify(scenario, null, 2)))
  const env: { [name: string]: string | undefined } = {
    ...process.env,
    ...options.env,
    [STANDIN_SCENARIO_ENV]: scenarioFile,
    [STANDIN_LOG_ENV]: logFile
  }
  if (configDir !== undefined) env.CLAUDE_CONFIG_DIR = configDir
  const queryOptions: StandInQueryOptions = {
    pathToClaudeCodeExecutable: scriptPath,
    executable: "node",
    env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  }
  return {
    dir,
    scriptPath,
    scenarioFile,
    logFile,
    configDir,
    sessionId,
    scenario,
    queryOptions,
    readLog: () => readLogFile(logFile),
    cleanup: () => io(`removing ${dir}`, () => fs.rm(dir, { recursive: true, force: true }))
  }
}

const toStandInCliError = (error: unknown): StandInCliError =>
  error instanceof StandInCliError
    ? error
    : new StandInCliError({ reason: "Io", description: describe(error), cause: error })

/**
 * {@link prepareStandInCli} as a scoped `Effect`: the temporary directory is removed when the
 * scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeStandInCli = (
  options: PrepareStandInCliOptions
): Effect.Effect<StandInCli, StandInCliError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => prepareStandInCli(options), catch: toStandInCliError }),
    (cli) => Effect.promise(() => cli.cleanup().catch(() => undefined))
  )

/**
 * The stand-in's log as an `Effect`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const readStandInLog = (cli: StandInCli): Effect.Effect<ReadonlyArray<StandInLogRecord>, StandInCliError> =>
  Effect.tryPromise({ try: () => cli.readLog(), catch: toStandInCliError })

// -------------------------------------------------------------------------------------------------
// reading the log
// -------------------------------------------------------------------------------------------------

const stdinMessages = (log: ReadonlyArray<StandInLogRecord>): ReadonlyArray<StandInFrame> =>
  log.flatMap((record) =>
    record.kind === "stdin" && typeof record.message === "object" && record.message !== null
      ? [record.message as StandInFrame]
      : []
  )

/**
 * The user messages the SDK sent (prompts), in order.
 *
 * @since 0.1.0
 * @category accessors
 */
export const promptsOf = (log: ReadonlyArray<StandInLogRecord>): ReadonlyArray<StandInFrame> =>
  stdinMessages(log).filter((message) => message.type === "user")

/**
 * The control requests the SDK sent (`initialize` first), in order.
 *
 * @since 0.1.0
 * @category accessors
 */
export const controlRequestsOf = (log: ReadonlyArray<StandInLogRecord>): ReadonlyArray<StandInFrame> =>
  stdinMessages(log).filter((message) => message.type === "control_request")

/**
 * The frames the stand-in wrote to stdout (control responses and mirror frames included).
 *
 * @since 0.1.0
 * @category accessors
 */
export const framesOf = (log: ReadonlyArray<StandInLogRecord>): ReadonlyArray<StandInFrame> =>
  log.flatMap((record) => record.kind === "stdout" ? [record.frame] : [])

/**
 * Why runs failed: failed assertions' details and error messages, in order (empty when every
 * run went as scripted).
 *
 * @since 0.1.0
 * @category accessors
 */
export const failuresOf = (log: ReadonlyArray<StandInLogRecord>): ReadonlyArray<string> =>
  log.flatMap((record) =>
    record.kind === "assertion" && !record.ok
      ? [`step ${record.index} (${record.name}): ${record.detail}`]
      : record.kind === "error"
      ? [record.message]
      : []
  )

/**
 * The `start` records, one per run of the stand-in (argv, cwd, environment), in order.
 *
 * @since 0.1.0
 * @category accessors
 */
export const startsOf = (
  log: ReadonlyArray<StandInLogRecord>
): ReadonlyArray<Extract<StandInLogRecord, { readonly kind: "start" }>> =>
  log.flatMap((record) => record.kind === "start" ? [record] : [])
