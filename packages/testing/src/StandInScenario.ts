/**
 * What the stand-in CLI plays and what it logs: the scenario schemas (steps, frames, hooks), the
 * log records, the error, and the constants the script and the tests share. Declarative: the
 * stand-in script (`standInCli.mjs`) reads the same shapes. Re-exported by `StandInCli`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

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
