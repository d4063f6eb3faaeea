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
import { randomBytes, randomUUID, type UUID } from "node:crypto"
import { existsSync, realpathSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type PromptMessage, promptMessage } from "./StandInPrompt.js"

/**
 * The prompts `query()` takes as streaming input (defined in `StandInPrompt`).
 *
 * @since 0.1.0
 * @category models
 */
export { type PromptMessage, promptMessage, promptStream } from "./StandInPrompt.js"

// -------------------------------------------------------------------------------------------------
// constants
// -------------------------------------------------------------------------------------------------

/**
 * The environment variable holding the scenario file's path.
 *
 * @since 0.1.0
 * @category constants
 */
export const STANDIN_SCENARIO_ENV = "ACX_STANDIN_SCENARIO"

/**
 * The environment variable holding the log file's path.
 *
 * @since 0.1.0
 * @category constants
 */
export const STANDIN_LOG_ENV = "ACX_STANDIN_LOG"

/**
 * The exit code of the stand-in when a step fails (a failed expectation, a wait that ran out,
 * stdin closing while a prompt is awaited).
 *
 * @since 0.1.0
 * @category constants
 */
export const STANDIN_FAILURE_EXIT_CODE = 2

/**
 * The Claude Code version the realistic conversations claim (`claude_code_version`, entry
 * `version`): the CLI bundled with `@anthropic-ai/claude-agent-sdk@0.3.330`.
 *
 * @since 0.1.0
 * @category constants
 */
export const STANDIN_CLAUDE_CODE_VERSION = "2.1.330"

// -------------------------------------------------------------------------------------------------
// scenario schemas
// -------------------------------------------------------------------------------------------------

const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * A JSON object: an SDK frame, a transcript entry, a control request or response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StandInFrame = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * @since 0.1.0
 * @category models
 */
export type StandInFrame = typeof StandInFrame.Type

const Millis = Schema.NonNegativeInt

/**
 * `{ emit: frame }`: write one frame to stdout. Strings in the frame may hold placeholders,
 * resolved when the step plays: `{{sessionId}}`, `{{projectKey}}`, `{{configDir}}`, `{{cwd}}`,
 * `{{transcriptPath}}` (the main transcript's path), `{{promptUuid}}` (uuid of the last awaited
 * prompt), `{{now}}` (ISO timestamp) and `{{uuid}}` (a fresh UUID per occurrence).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmitStep = Schema.Struct({ emit: StandInFrame })

/**
 * `{ awaitPrompt: true }`: take the next user message from stdin (waiting at most `timeoutMs`,
 * default `scenario.promptTimeoutMs` or 5 s; stdin closing first fails the run). With `replay`,
 * echo it as an `SDKUserMessageReplay` (`isReplay: true`, the message's own `uuid`, else `uuid`,
 * else a fresh one; `session_id` = the scenario's). With `expectText`, assert the prompt's text
 * (string content, or its text blocks joined with `"\n"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AwaitPromptStep = Schema.Struct({
  awaitPrompt: Schema.Literal(true),
  replay: opt(Schema.Boolean),
  uuid: opt(Schema.String),
  expectText: opt(Schema.String),
  timeoutMs: opt(Millis)
})

/**
 * `{ mirror: { entries, subpath? } }`: emit a `transcript_mirror` frame whose `filePath` is
 * `<CLAUDE_CONFIG_DIR>/projects/<projectKey>/<sessionId>[/<subpath>].jsonl`, which the SDK turns
 * into `sessionStore.append({ projectKey, sessionId, subpath? }, entries)`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MirrorStep = Schema.Struct({
  mirror: Schema.Struct({
    entries: Schema.Array(StandInFrame),
    subpath: opt(Schema.String),
    sessionId: opt(Schema.String)
  })
})

/**
 * `{ expectArgs: … }`: assert the stand-in's argv. `resume`: `--resume=<id>` present (a string)
 * or absent (`null`); `sessionMirror`: `--session-mirror` present or absent; `includes` /
 * `excludes`: exact arguments.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExpectArgsStep = Schema.Struct({
  expectArgs: Schema.Struct({
    resume: opt(Schema.NullOr(Schema.String)),
    sessionMirror: opt(Schema.Boolean),
    includes: opt(Schema.Array(Schema.String)),
    excludes: opt(Schema.Array(Schema.String))
  })
})

/**
 * `{ expectResumeTranscript: entries }`: assert that the transcript the SDK materialised for a
 * resume, `<CLAUDE_CONFIG_DIR>/projects/<projectKey>/<sessionId>.jsonl`, deep-equals `entries`.
 * `subagents` (subpath → entries) also asserts the exact set of `<sessionId>/**.jsonl` files
 * and their contents; `agentMetadata` (subpath → object) the `<subpath>.meta.json` files.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExpectResumeTranscriptStep = Schema.Struct({
  expectResumeTranscript: Schema.Array(StandInFrame),
  subagents: opt(Schema.Record({ key: Schema.String, value: Schema.Array(StandInFrame) })),
  agentMetadata: opt(Schema.Record({ key: Schema.String, value: StandInFrame })),
  sessionId: opt(Schema.String)
})

/**
 * `{ sleepMs: n }`: wait `n` ms (control requests are still answered meanwhile).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SleepStep = Schema.Struct({ sleepMs: Millis })

/**
 * `{ stderr: text }`: write a line to stderr (the SDK hands it to `options.stderr`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StderrStep = Schema.Struct({ stderr: Schema.String })

/**
 * `{ request: { subtype, … } }`: send a `control_request` to the SDK (e.g. `can_use_tool`) and
 * wait for its `control_response` (at most `timeoutMs`, default 5 s); with `expectResponse`,
 * assert a success response carrying exactly that payload.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestStep = Schema.Struct({
  request: StandInFrame,
  timeoutMs: opt(Millis),
  expectResponse: opt(Schema.Unknown)
})

/**
 * `{ hook: { event, input?, toolName?, toolUseId? } }`: run the SDK's programmatic hooks for
 * `event` (`options.hooks`) the way the CLI does: one `hook_callback` control request per
 * callback id the SDK registered for that event in its `initialize` request (matchers are
 * applied to `toolName`). The input is `{ session_id, transcript_path, cwd, hook_event_name }`
 * plus `input`. The outputs land in the log (`kind: "hook"`); `expectOutputs` asserts them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookStep = Schema.Struct({
  hook: Schema.Struct({
    event: Schema.String,
    input: opt(StandInFrame),
    toolName: opt(Schema.String),
    toolUseId: opt(Schema.String)
  }),
  timeoutMs: opt(Millis),
  expectOutputs: opt(Schema.Array(Schema.Unknown))
})

/**
 * `{ exit: code }`: exit at once with `code` (after writing `stderr`, if given).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExitStep = Schema.Struct({ exit: Schema.Int, stderr: opt(Schema.String) })

/**
 * One step of a scenario.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StandInStep = Schema.Union(
  EmitStep,
  AwaitPromptStep,
  MirrorStep,
  ExpectArgsStep,
  ExpectResumeTranscriptStep,
  SleepStep,
  StderrStep,
  RequestStep,
  HookStep,
  ExitStep
)

/**
 * @since 0.1.0
 * @category models
 */
export type StandInStep = typeof StandInStep.Type

/**
 * What the stand-in plays.
 * - `sessionId`: the session id (`{{sessionId}}`, replays, mirror paths); `prepareStandInCli`
 *   fills in a fresh UUID when absent;
 * - `projectKey`: the transcript directory name; default: the SDK's rule applied to the
 *   stand-in's cwd (which is `options.cwd`), honouring `CLAUDE_CODE_PROJECT_DIR_NAME`;
 * - `initializeResponse` / `controlResponses[subtype]`: payloads of the success responses to the
 *   SDK's control requests (default `{}`);
 * - `promptTimeoutMs`: default bound of `awaitPrompt` (5 s);
 * - `endTimeoutMs`: after the last step, how long to wait for stdin to close before exiting 0
 *   anyway (2 s; logged as a note). The SDK keeps stdin open until a `result` with a string
 *   prompt, and until the prompt iterable ends with streaming input;
 * - `logEnv`: extra environment variables to record in the log's `start` record.
 *
 * After the last step (unless it was `exit`) the stand-in waits for stdin to close and exits 0.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StandInScenario = Schema.Struct({
  sessionId: opt(Schema.String),
  projectKey: opt(Schema.String),
  steps: Schema.Array(StandInStep),
  initializeResponse: opt(StandInFrame),
  controlResponses: opt(Schema.Record({ key: Schema.String, value: StandInFrame })),
  promptTimeoutMs: opt(Millis),
  endTimeoutMs: opt(Millis),
  logEnv: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category models
 */
export type StandInScenario = typeof StandInScenario.Type

// -------------------------------------------------------------------------------------------------
// log schemas
// -------------------------------------------------------------------------------------------------

const at = { at: Schema.Number }

/**
 * One line of the stand-in's log (every record carries `at`, epoch ms):
 * - `start`: argv, cwd, pid, session id, project key, config dir, selected environment;
 * - `stdin`: a line the SDK wrote (`message` when it parsed as JSON, else `raw`);
 * - `stdinClosed`, `stdout` (a frame written), `stderr`, `step` (a step began);
 * - `assertion`: an expectation's outcome (`ok`, `detail`); `hook`: a hook step's callbacks and
 *   outputs; `note`: something worth knowing that is not a failure; `error`: why the run failed;
 * - `signal`, `exit`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StandInLogRecord = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("start"),
    argv: Schema.Array(Schema.String),
    cwd: Schema.String,
    pid: Schema.Number,
    sessionId: Schema.String,
    projectKey: Schema.String,
    configDir: Schema.String,
    env: Schema.Record({ key: Schema.String, value: Schema.String }),
    ...at
  }),
  Schema.Struct({ kind: Schema.Literal("stdin"), message: opt(Schema.Unknown), raw: opt(Schema.String), ...at }),
  Schema.Struct({ kind: Schema.Literal("stdinClosed"), ...at }),
  Schema.Struct({ kind: Schema.Literal("stdout"), frame: StandInFrame, ...at }),
  Schema.Struct({ kind: Schema.Literal("stderr"), text: Schema.String, ...at }),
  Schema.Struct({ kind: Schema.Literal("step"), index: Schema.Number, name: Schema.String, ...at }),
  Schema.Struct({
    kind: Schema.Literal("assertion"),
    index: Schema.Number,
    name: Schema.String,
    ok: Schema.Boolean,
    detail: Schema.String,
    ...at
  }),
  Schema.Struct({
    kind: Schema.Literal("hook"),
    index: Schema.Number,
    event: Schema.String,
    callbackIds: Schema.Array(Schema.String),
    input: StandInFrame,
    outputs: Schema.Array(Schema.Unknown),
    ...at
  }),
  Schema.Struct({ kind: Schema.Literal("note"), message: Schema.String, ...at }),
  Schema.Struct({ kind: Schema.Literal("error"), message: Schema.String, ...at }),
  Schema.Struct({ kind: Schema.Literal("signal"), signal: Schema.String, ...at }),
  Schema.Struct({ kind: Schema.Literal("exit"), code: Schema.Number, ...at })
)

/**
 * @since 0.1.0
 * @category models
 */
export type StandInLogRecord = typeof StandInLogRecord.Type

// -------------------------------------------------------------------------------------------------
// errors
// -------------------------------------------------------------------------------------------------

/**
 * Preparing the stand-in or reading its log failed:
 * - `ScriptNotFound`: the stand-in script is not next to this module (nor in `src/` of the
 *   package, for a build);
 * - `InvalidScenario`: the scenario does not match {@link StandInScenario};
 * - `Io`: creating, writing, reading or removing files failed;
 * - `InvalidLog`: a log line is not a {@link StandInLogRecord}.
 *
 * @since 0.1.0
 * @category errors
 */
export class StandInCliError extends Schema.TaggedError<StandInCliError>("@acx/testing/StandInCli/StandInCliError")(
  "StandInCliError",
  {
    reason: Schema.Literal("ScriptNotFound", "InvalidScenario", "Io", "InvalidLog"),
    description: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.reason}: ${this.description}`
  }
}

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)

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

// -------------------------------------------------------------------------------------------------
// project keys and transcripts
// -------------------------------------------------------------------------------------------------

const MAX_PROJECT_KEY = 200

const hashPath = (text: string): string => {
  let hash = 0
  for (let index = 0; index < text.length; index++) hash = ((hash << 5) - hash + text.charCodeAt(index)) | 0
  return Math.abs(hash).toString(36)
}

/**
 * The SDK's `SessionStore` project key for a working directory (the default `projectKey` of a
 * `query()` with that `options.cwd`): the real path with every non-alphanumeric character
 * replaced by `-`, names over 200 characters truncated and suffixed with a hash.
 *
 * @since 0.1.0
 * @category utils
 */
export const projectKeyFor = (cwd: string): string => {
  let resolved = path.resolve(cwd)
  try {
    resolved = realpathSync(resolved)
  } catch {
    // a path that does not exist keeps its resolved form, as in the SDK
  }
  resolved = resolved.normalize("NFC")
  const key = resolved.replace(/[^a-zA-Z0-9]/g, "-")
  return key.length <= MAX_PROJECT_KEY ? key : `${key.slice(0, MAX_PROJECT_KEY)}-${hashPath(resolved)}`
}

/**
 * Transcript entries as a `SessionStore` holds them: the main transcript, and each subpath's
 * entries (for a subagent, `subagents/agent-<id>`, ending with its `agent_metadata` entry).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredTranscript {
  readonly main: ReadonlyArray<StandInFrame>
  readonly subagents: { readonly [subpath: string]: ReadonlyArray<StandInFrame> }
}

/**
 * The `expectResumeTranscript` step asserting that a resume materialised `stored` the way the
 * SDK does: the main entries as `<sid>.jsonl`; each subpath's entries minus `agent_metadata` as
 * `<sid>/<subpath>.jsonl`; the last `agent_metadata` entry (without `type`) as
 * `<sid>/<subpath>.meta.json`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const expectResumeStep = (stored: StoredTranscript): StandInStep => {
  const subagents: Record<string, ReadonlyArray<StandInFrame>> = {}
  const agentMetadata: Record<string, StandInFrame> = {}
  for (const [subpath, entries] of Object.entries(stored.subagents)) {
    subagents[subpath] = entries.filter((entry) => entry.type !== "agent_metadata")
    const meta = entries.filter((entry) => entry.type === "agent_metadata").at(-1)
    if (meta !== undefined) {
      const { type: _type, ...rest } = meta
      agentMetadata[subpath] = rest
    }
  }
  return { expectResumeTranscript: stored.main, subagents, agentMetadata }
}

// -------------------------------------------------------------------------------------------------
// realistic conversations
// -------------------------------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface RealisticConversationOptions {
  /** The session id (default: a fresh UUID; with `resumeOf`, its session id). */
  readonly sessionId?: string
  /** One turn per prompt (at least one). */
  readonly prompts: ReadonlyArray<string>
  /** The first turn delegates to an `Explore` subagent through the `Task` tool. */
  readonly subagent?: boolean
  /** Each turn opens with a signed thinking block. */
  readonly thinking?: boolean
  /**
   * Emit `transcript_mirror` frames (main transcript and subagent), so `sessionStore` receives
   * the entries. `projectKey` defaults to the SDK's key for the stand-in's cwd.
   */
  readonly mirror?: boolean | { readonly projectKey?: string }
  /** The `cwd` the frames and entries claim (default `/home/dev/projects/acme-api`). */
  readonly cwd?: string
  /** Default `claude-sonnet-4-5-20250929`. */
  readonly model?: string
  /** Timestamp of the first entry (default: now). */
  readonly startTime?: Date
  /**
   * Continue that conversation's session: the scenario first asserts `--resume=<sid>` and that
   * the SDK materialised `resumeOf.storedTranscript`; the new entries chain onto its last one.
   */
  readonly resumeOf?: RealisticConversation
}

/**
 * A scripted multi-turn coding session and what should come out of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RealisticConversation {
  readonly sessionId: string
  readonly scenario: StandInScenario
  /** The prompts as streaming-input messages; their uuids are the replays' uuids. */
  readonly promptMessages: ReadonlyArray<PromptMessage>
  /**
   * What `query()` yields, in order, when the prompts are sent as `promptMessages` (or, for one
   * prompt, as a plain string): every frame except the swallowed `transcript_mirror` ones.
   */
  readonly expectedFrames: ReadonlyArray<StandInFrame>
  /** The transcript entries this run writes (mirrored when `mirror` is set). */
  readonly transcript: StoredTranscript
  /** `resumeOf`'s stored transcript followed by this run's: what a store holds afterwards. */
  readonly storedTranscript: StoredTranscript
  /** The subagents' ids (`subagents/agent-<id>`). */
  readonly subagentIds: ReadonlyArray<string>
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const base62 = (length: number): string => Array.from(randomBytes(length), (byte) => BASE62[byte % 62]).join("")

const DEFAULT_CWD = "/home/dev/projects/acme-api"
const DEFAULT_MODEL = "claude-sonnet-4-5-20250929"
const TOOLS = [
  "Task",
  "Bash",
  "Glob",
  "Grep",
  "Read",
  "Edit",
  "Write",
  "NotebookEdit",
  "WebFetch",
  "TodoWrite",
  "WebSearch"
]

interface TurnFile {
  readonly file: string
  readonly test: string
  readonly lines: ReadonlyArray<string>
  readonly oldString: string
  readonly newString: string
  readonly failure: string
  readonly summary: string
}

const FILES: ReadonlyArray<TurnFile> = [
  {
    file: "src/dates.ts",
    test: "test/dates.test.ts",
    lines: [
      "export const parseDate = (input: string): Date => {",
      "  const [year, month, day] = input.split(\"-\").map(Number)",
      "  return new Date(year, month - 1, day)",
      "}",
      "",
      "export const formatDate = (date: Date): string => date.toISOString().slice(0, 10)"
    ],
    oldString: "  return new Date(year, month - 1, day)",
    newString: "  return new Date(Date.UTC(year, month - 1, day))",
    failure: " FAIL  test/dates.test.ts > parseDate > keeps the calendar day in UTC\n" +
      "AssertionError: expected '2024-03-09' to be '2024-03-10' // Object.is equality",
    summary: "`parseDate` now builds the date in UTC, so `formatDate(parseDate(s))` round-trips in every time zone."
  },
  {
    file: "src/routes/invoices.ts",
    test: "test/routes/invoices.test.ts",
    lines: [
      "import { parseDate } from \"../dates.js\"",
      "",
      "export const dueDate = (body: { readonly dueDate: string }): Date => parseDate(body.dueDate)",
      "",
      "export const isOverdue = (due: Date, now: Date): boolean => due.getTime() < now.getTime()"
    ],
    oldString: "due.getTime() < now.getTime()",
    newString: "due.getTime() + 86_400_000 <= now.getTime()",
    failure: "",
    summary: "an invoice is now overdue only once its whole due day has passed."
  },
  {
    file: "src/jobs/reminders.ts",
    test: "test/jobs/reminders.test.ts",
    lines: [
      "import { isOverdue } from \"../routes/invoices.js\"",
      "",
      "export const remindersFor = (rows: ReadonlyArray<{ readonly due: Date }>, now: Date) =>",
      "  rows.filter((row) => isOverdue(row.due, now))"
    ],
    oldString: "rows.filter((row) => isOverdue(row.due, now))",
    newString: "rows.filter((row) => isOverdue(row.due, now)).slice(0, 100)",
    failure: "",
    summary: "reminders are capped at 100 per run, matching the mail provider's batch limit."
  }
]

const numbered = (lines: ReadonlyArray<string>): string =>
  lines.map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join("\n")

interface Builder {
  readonly sessionId: string
  readonly cwd: string
  readonly model: string
  readonly mirror: boolean
  readonly steps: Array<StandInStep>
  readonly frames: Array<StandInFrame>
  readonly main: Array<StandInFrame>
  readonly subagents: Record<string, Array<StandInFrame>>
  readonly subagentIds: Array<string>
  pendingMain: Array<StandInFrame>
  lastMainUuid: string | null
  clock: number
}

const emitFrame = (b: Builder, frame: StandInFrame): StandInFrame => {
  b.steps.push({ emit: frame })
  b.frames.push(frame)
  return frame
}

const tick = (b: Builder, ms: number): string => {
  b.clock += ms
  return new Date(b.clock).toISOString()
}

const entryBase = (b: Builder, parentUuid: string | null, timestamp: string) => ({
  parentUuid,
  isSidechain: false,
  userType: "external",
  entrypoint: "sdk-ts",
  cwd: b.cwd,
  sessionId: b.sessionId,
  version: STANDIN_CLAUDE_CODE_VERSION,
  gitBranch: "main",
  timestamp
})

const addMainEntry = (b: Builder, entry: StandInFrame): void => {
  b.pendingMain.push(entry)
  if (typeof entry.uuid === "string") b.lastMainUuid = entry.uuid
}

const flushMain = (b: Builder): void => {
  if (b.pendingMain.length === 0) return
  if (b.mirror) b.steps.push({ mirror: { entries: b.pendingMain } })
  b.main.push(...b.pendingMain)
  b.pendingMain = []
}

interface ApiMessage {
  readonly id: string
  readonly requestId: string
  readonly usage: StandInFrame
}

const apiMessage = (inputTokens: number, outputTokens: number): ApiMessage => {
  const variation = randomBytes(1)[0] % 7
  const cacheCreation = 1_200 + variation * 137
  return {
    id: `msg_01${base62(22)}`,
    requestId: `req_011C${base62(20)}`,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: 18_432 + variation * 911,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: cacheCreation },
      output_tokens: outputTokens,
      service_tier: "standard"
    }
  }
}

interface Thread {
  /** `null` on the main thread, the `Task` tool_use id in a subagent. */
  readonly parentToolUseId: string | null
  /** The subagent's id and entries, in a subagent. */
  readonly agent?: { readonly id: string; readonly entries: Array<StandInFrame>; lastUuid: string | null }
}

const record = (b: Builder, thread: Thread, entry: StandInFrame): void => {
  if (thread.agent === undefined) {
    addMainEntry(b, entry)
  } else {
    thread.agent.entries.push(entry)
    if (typeof entry.uuid === "string") thread.agent.lastUuid = entry.uuid
  }
}

const baseFor = (b: Builder, thread: Thread, timestamp: string) =>
  thread.agent === undefined
    ? entryBase(b, b.lastMainUuid, timestamp)
    : { ...entryBase(b, thread.agent.lastUuid, timestamp), isSidechain: true, agentId: thread.agent.id }

/** One assistant frame (and entry) per content block; the blocks of a response share its id. */
const assistant = (b: Builder, thread: Thread, api: ApiMessage, block: StandInFrame): StandInFrame => {
  const message = {
    model: b.model,
    id: api.id,
    type: "message",
    role: "assistant",
    content: [block],
    stop_reason: null,
    stop_sequence: null,
    usage: api.usage
  }
  const frame = emitFrame(b, {
    type: "assistant",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 900)),
    type: "assistant",
    message,
    requestId: api.requestId,
    uuid: frame.uuid
  })
  return frame
}

const toolResult = (
  b: Builder,
  thread: Thread,
  toolUse: { readonly id: string; readonly assistantUuid: unknown },
  content: string | ReadonlyArray<StandInFrame>,
  toolUseResult: unknown,
  isError = false
): StandInFrame => {
  const message = {
    role: "user",
    content: [{ tool_use_id: toolUse.id, type: "tool_result", content, ...(isError ? { is_error: true } : {}) }]
  }
  const frame = emitFrame(b, {
    type: "user",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID(),
    tool_use_result: toolUseResult
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 1_400)),
    type: "user",
    message,
    uuid: frame.uuid,
    toolUseResult,
    sourceToolAssistantUUID: toolUse.assistantUuid
  })
  return frame
}

const toolUse = (
  b: Builder,
  thread: Thread,
  api: ApiMessage,
  name: string,
  input: StandInFrame
): { readonly id: string; readonly assistantUuid: unknown } => {
  const id = `toolu_01${base62(22)}`
  const frame = assistant(b, thread, api, { type: "tool_use", id, name, input })
  return { id, assistantUuid: frame.uuid }
}

const text = (value: string): StandInFrame => ({ type: "text", text: value })

const MAIN: Thread = { parentToolUseId: null }

const systemInit = (b: Builder): void => {
  emitFrame(b, {
    type: "system",
    subtype: "init",
    cwd: b.cwd,
    session_id: b.sessionId,
    tools: TOOLS,
    mcp_servers: [],
    model: b.model,
    permissionMode: "default",
    slash_commands: ["compact", "context", "cost", "init", "review", "security-review"],
    apiKeySource: "none",
    claude_code_version: STANDIN_CLAUDE_CODE_VERSION,
    output_style: "default",
    agents: ["general-purpose", "statusline-setup", "output-style-setup", "Explore", "Plan"],
    skills: [],
    plugins: [],
    uuid: randomUUID()
  })
}

const subagentTurn = (b: Builder, taskSource: TurnFile, api: ApiMessage): void => {
  const description = "Find callers of the changed function"
  const prompt = `Find every caller of the function defined in ${taskSource.file} under src/ and report, ` +
    "for each one, how it uses the returned value. Do not modify any file."
  const task = toolUse(b, MAIN, api, "Task", { description, prompt, subagent_type: "Explore" })
  const agentId = `a${randomBytes(8).toString("hex")}`
  b.subagentIds.push(agentId)
  emitFrame(b, {
    type: "system",
    subtype: "task_started",
    task_id: agentId,
    tool_use_id: task.id,
    description,
    subagent_type: "Explore",
    task_type: "local_agent",
    prompt,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  const agentState = { id: agentId, entries: [] as Array<StandInFrame>, lastUuid: null as string | null }
  const agent: Thread = { parentToolUseId: task.id, agent: agentState }
  const promptMessage = { role: "user", content: [text(prompt)] }
  const promptFrame = emitFrame(b, {
    type: "user",
    message: promptMessage,
    parent_tool_use_id: task.id,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  record(b, agent, { ...baseFor(b, agent, tick(b, 300)), type: "user", message: promptMessage, uuid: promptFrame.uuid })
  const grepApi = apiMessage(4, 96)
  const grep = toolUse(b, agent, grepApi, "Grep", {
    pattern: "parseDate\\(",
    path: `${b.cwd}/src`,
    output_mode: "content",
    "-n": true
  })
  const matches = "src/routes/invoices.ts:3:export const dueDate = (body: { readonly dueDate: string }): Date => " +
    "parseDate(body.dueDate)\nsrc/jobs/reminders.ts:4:  rows.filter((row) => isOverdue(row.due, now))"
  toolResult(b, agent, grep, matches, {
    mode: "content",
    numFiles: 0,
    filenames: [],
    content: matches,
    numLines: 2
  })
  const answer = "`parseDate` has one direct caller, `dueDate` in src/routes/invoices.ts, whose result feeds " +
    "`isOverdue`; src/jobs/reminders.ts reaches it indirectly through `isOverdue`. Both compare whole days, so " +
    "a UTC date is what they expect."
  assistant(b, agent, apiMessage(5, 148), text(answer))
  const subpath = `subagents/agent-${agentId}`
  const entries = [
    ...agentState.entries,
    { type: "agent_metadata", agentType: "Explore", toolUseId: task.id, description }
  ]
  b.subagents[subpath] = entries
  if (b.mirror) b.steps.push({ mirror: { entries, subpath } })
  emitFrame(b, {
    type: "system",
    subtype: "task_notification",
    task_id: agentId,
    tool_use_id: task.id,
    status: "completed",
    output_file: "",
    summary: "Found the callers of parseDate",
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  const usage = {
    input_tokens: 15,
    cache_creation_input_tokens: 9_923,
    cache_read_input_tokens: 12_118,
    output_tokens: 244,
    service_tier: "standard"
  }
  toolResult(b, MAIN, task, [text(answer)], {
    status: "completed",
    prompt,
    agentId,
    content: [text(answer)],
    totalDurationMs: 8_423,
    totalTokens: 22_300,
    totalToolUseCount: 1,
    usage
  })
}

interface TurnOptions {
  readonly index: number
  readonly text: string
  readonly uuid: UUID
  readonly thinking: boolean
  readonly subagent: boolean
  readonly rateLimit: boolean
}

const turn = (b: Builder, options: TurnOptions): void => {
  const source = FILES[options.index % FILES.length]
  const filePath = `${b.cwd}/${source.file}`
  const started = b.clock
  b.steps.push({ awaitPrompt: true, replay: true, uuid: options.uuid, expectText: options.text })
  const promptContent = [text(options.text)]
  b.frames.push({
    type: "user",
    message: { role: "user", content: promptContent },
    parent_tool_use_id: null,
    uuid: options.uuid,
    session_id: b.sessionId,
    isReplay: true
  })
  addMainEntry(b, {
    ...entryBase(b, b.lastMainUuid, tick(b, 2_000)),
    type: "user",
    message: { role: "user", content: promptContent },
    uuid: options.uuid,
    permissionMode: "default"
  })
  const apiCalls: Array<ApiMessage> = []
  const api = (input: number, output: number) => {
    const message = apiMessage(input, output)
    apiCalls.push(message)
    return message
  }

  // 1. think, say what comes next, read the file
  const first = api(3, 187)
  if (options.thinking) {
    assistant(b, MAIN, first, {
      type: "thinking",
      thinking: `The user asked: "${options.text.slice(0, 120)}". I should read ${source.file} before changing ` +
        `anything, then run ${source.test} to see the current behaviour.`,
      signature: randomBytes(96).toString("base64")
    })
  }
  assistant(b, MAIN, first, text(`I'll start by reading \`${source.file}\` to see the current implementation.`))
  const read = toolUse(b, MAIN, first, "Read", { file_path: filePath })
  const content = source.lines.join("\n")
  toolResult(b, MAIN, read, numbered(source.lines), {
    type: "text",
    file: { filePath, content, numLines: source.lines.length, startLine: 1, totalLines: source.lines.length }
  })

  // 2. run the tests (failing on the first turn)
  const bashApi = api(5, 96)
  const command = `pnpm vitest run ${source.test}`
  const bash = toolUse(b, MAIN, bashApi, "Bash", { command, description: `Run ${source.test}` })
  emitFrame(b, {
    type: "tool_progress",
    tool_use_id: bash.id,
    tool_name: "Bash",
    parent_tool_use_id: null,
    elapsed_time_seconds: 3,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  if (options.index === 0 && source.failure !== "") {
    const output = `Exit code 1\n${source.failure}\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)`
    toolResult(b, MAIN, bash, [text(output)], `Error: ${output}`, true)
  } else {
    const stdout = ` ✓ ${source.test} (5 tests) 12ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)`
    toolResult(b, MAIN, bash, [text(stdout)], { stdout, stderr: "", interrupted: false, isImage: false })
  }
  flushMain(b)

  // 3. delegate to a subagent
  if (options.subagent) {
    subagentTurn(b, source, api(6, 212))
    flushMain(b)
  }
  if (options.rateLimit) {
    emitFrame(b, {
      type: "rate_limit_event",
      rate_limit_info: {
        status: "allowed_warning",
        resetsAt: Math.floor(b.clock / 1000) + 3 * 3600,
        rateLimitType: "five_hour",
        utilization: 0.82
      },
      session_id: b.sessionId,
      uuid: randomUUID()
    })
  }

  // 4. edit, then report
  const editApi = api(4, 161)
  const edit = toolUse(b, MAIN, editApi, "Edit", {
    file_path: filePath,
    old_string: source.oldString,
    new_string: source.newString
  })
  const lineIndex = source.lines.findIndex((line) => line.includes(source.oldString))
  toolResult(b, MAIN, edit, `The file ${filePath} has been updated successfully.`, {
    filePath,
    oldString: source.oldString,
    newString: source.newString,
    originalFile: content,
    structuredPatch: [{
      oldStart: lineIndex + 1,
      oldLines: 1,
      newStart: lineIndex + 1,
      newLines: 1,
      lines: [`-${source.lines[lineIndex]}`, `+${source.lines[lineIndex].replace(source.oldString, source.newString)}`]
    }],
    userModified: false,
    replaceAll: false
  })
  const finalApi = api(3, 74)
  const finalText = `Done: in \`${source.file}\`, ${source.summary}`
  assistant(b, MAIN, finalApi, text(finalText))
  if (options.index === 0) {
    addMainEntry(b, { type: "ai-title", aiTitle: "Fix date handling in invoices", sessionId: b.sessionId })
  }
  flushMain(b)

  // 5. the turn's result
  const sum = (pick: (usage: StandInFrame) => unknown) =>
    apiCalls.reduce((total, call) => total + Number(pick(call.usage)), 0)
  const inputTokens = sum((usage) => usage.input_tokens)
  const outputTokens = sum((usage) => usage.output_tokens)
  const cacheRead = sum((usage) => usage.cache_read_input_tokens)
  const cacheCreation = sum((usage) => usage.cache_creation_input_tokens)
  const cost = Number(((inputTokens * 3 + outputTokens * 15 + cacheRead * 0.3 + cacheCreation * 3.75) / 1e6).toFixed(6))
  const duration = Math.max(1, b.clock - started)
  emitFrame(b, {
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: duration,
    duration_api_ms: Math.round(duration * 0.8),
    num_turns: apiCalls.length,
    result: finalText,
    stop_reason: "end_turn",
    session_id: b.sessionId,
    total_cost_usd: cost,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: cacheRead,
      output_tokens: outputTokens,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: "standard"
    },
    modelUsage: {
      [b.model]: {
        inputTokens,
        outputTokens,
        cacheReadInputTokens: cacheRead,
        cacheCreationInputTokens: cacheCreation,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: 200_000,
        maxOutputTokens: 64_000
      }
    },
    permission_denials: [],
    uuid: randomUUID()
  })
}

const lastUuid = (entries: ReadonlyArray<StandInFrame>): string | null => {
  for (let index = entries.length - 1; index >= 0; index--) {
    const uuid = entries[index].uuid
    if (typeof uuid === "string") return uuid
  }
  return null
}

/**
 * A scenario for a realistic multi-turn coding session, with the frames `query()` should yield
 * and the transcript entries it writes. Per prompt: await the prompt and replay it; assistant
 * frames of one content block each, sharing `message.id` within a response (a signed thinking
 * block with `thinking`, text, `Read` / `Bash` / `Edit` tool_use); user tool_result frames with
 * `tool_use_result` (string and array content; the first turn's test run fails with
 * `is_error: true`); a `tool_progress`; and a `result/success`. The first turn also has, with
 * `subagent`, a `Task` tool_use, `system/task_started`, the subagent's user/assistant frames
 * (`parent_tool_use_id` = the Task id), `system/task_notification` and the Task's tool_result;
 * and a `rate_limit_event`. A `system/init` opens the run.
 *
 * Transcript entries look like the CLI's (`parentUuid` chain, `sessionId`, `cwd`, `timestamp`,
 * `requestId`, `toolUseResult`, `sourceToolAssistantUUID`, `isSidechain` + `agentId` in the
 * subagent, which ends with an `agent_metadata` entry, plus an `ai-title` entry); their uuids are
 * the frames' uuids. With `mirror`, they are mirrored in three batches per turn (before the
 * subagent, the subagent's file, the rest), all before the turn's `result`.
 *
 * Send the prompts as `promptMessages` (e.g. `promptStream(conversation.promptMessages)`), or a
 * single prompt as a plain string: replays then match `expectedFrames`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const realisticConversation = (options: RealisticConversationOptions): RealisticConversation => {
  if (options.prompts.length === 0) throw new Error("realisticConversation: at least one prompt is needed")
  const previous = options.resumeOf
  const sessionId = previous?.sessionId ?? options.sessionId ?? randomUUID()
  const mirror = options.mirror === undefined ? false : options.mirror !== false
  const projectKey = typeof options.mirror === "object" ? options.mirror.projectKey : undefined
  const b: Builder = {
    sessionId,
    cwd: options.cwd ?? DEFAULT_CWD,
    model: options.model ?? DEFAULT_MODEL,
    mirror,
    steps: [],
    frames: [],
    main: [],
    subagents: {},
    subagentIds: [],
    pendingMain: [],
    lastMainUuid: previous === undefined ? null : lastUuid(previous.storedTranscript.main),
    clock: (options.startTime ?? new Date()).getTime()
  }
  if (previous !== undefined) {
    b.steps.push({ expectArgs: { resume: sessionId } }, expectResumeStep(previous.storedTranscript))
  }
  systemInit(b)
  const offset = previous?.promptMessages.length ?? 0
  const promptMessages = options.prompts.map((prompt) => promptMessage(prompt))
  for (const [index, message] of promptMessages.entries()) {
    turn(b, {
      index: offset + index,
      text: message.message.content[0].text,
      uuid: message.uuid,
      thinking: options.thinking === true,
      subagent: options.subagent === true && index === 0,
      rateLimit: index === 0
    })
  }
  const transcript: StoredTranscript = { main: b.main, subagents: b.subagents }
  const storedTranscript: StoredTranscript = previous === undefined ? transcript : {
    main: [...previous.storedTranscript.main, ...b.main],
    subagents: { ...previous.storedTranscript.subagents, ...b.subagents }
  }
  return {
    sessionId,
    scenario: { sessionId, ...(projectKey === undefined ? {} : { projectKey }), steps: b.steps },
    promptMessages,
    expectedFrames: b.frames,
    transcript,
    storedTranscript,
    subagentIds: b.subagentIds
  }
}
