/**
 * Claude Code hook inputs (the JSON a command hook reads on stdin, or the `input` of an SDK hook
 * callback) and hook outputs (what a hook prints or returns).
 *
 * Inputs are an open-ended union on `hook_event_name`: SessionStart, UserPromptSubmit,
 * PostToolUse, PostToolUseFailure, Stop, SessionEnd and PreSkillShellCommand are typed; any other event decodes as `UnknownHookInput`.
 * A known event name always selects its own member (a malformed SessionStart is an error, not
 * an Unknown). Enumerations sent by the CLI (`source`, `reason`, …) are kept as open strings so
 * a newer CLI cannot break a hook; their known values are exported as literal schemas.
 * Unknown fields are preserved.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Open, opt, preserve } from "./internal/schema.js"

// -------------------------------------------------------------------------------------------------
// inputs
// -------------------------------------------------------------------------------------------------

/**
 * The event names with a typed input here, their type and guard (plain constants, in
 * `HookEvents`, for code that must not load Schema).
 *
 * @since 0.1.0
 * @category constants
 */
export { isKnownHookEvent, KNOWN_HOOK_EVENTS, type KnownHookEvent } from "./HookEvents.js"
import { isKnownHookEvent } from "./HookEvents.js"

/**
 * `BaseHookInput.effort`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookEffort = Schema.Struct({
  level: Schema.String
}).annotations({ identifier: "HookEffort", ...preserve })

/**
 * The fields every hook input carries. `transcript_path` is `""` when the CLI runs without a
 * disk; `scratchpad_dir` is sent at runtime but not declared by the SDK.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BaseHookInput = Schema.Struct({
  session_id: Schema.String,
  transcript_path: Schema.String,
  cwd: Schema.String,
  prompt_id: opt(Schema.String),
  permission_mode: opt(Schema.String),
  agent_id: opt(Schema.String),
  agent_type: opt(Schema.String),
  effort: opt(HookEffort),
  scratchpad_dir: opt(Schema.String)
}).annotations({ identifier: "BaseHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type BaseHookInput = typeof BaseHookInput.Type

/**
 * Known values of `SessionStartHookInput.source`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionStartSource = Schema.Literal("startup", "resume", "clear", "compact", "fork")

/**
 * @since 0.1.0
 * @category schemas
 */
export const SessionStartHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("SessionStart"),
  source: Open(...SessionStartSource.literals),
  model: opt(Schema.String),
  session_title: opt(Schema.String),
  seconds_since_last_response: opt(Schema.Number),
  context_tokens: opt(Schema.Number),
  prompt_cache_likely_expired: opt(Schema.Boolean),
  estimated_cache_write_usd: opt(Schema.Number)
}).annotations({ identifier: "SessionStartHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStartHookInput = typeof SessionStartHookInput.Type

/**
 * Known values of `UserPromptSubmitHookInput.source`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserPromptSource = Schema.Literal(
  "user",
  "sdk",
  "system",
  "loop_wakeup",
  "schedule_wakeup",
  "poll_event"
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const UserPromptSubmitHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("UserPromptSubmit"),
  prompt: Schema.String,
  source: opt(Open(...UserPromptSource.literals)),
  session_title: opt(Schema.String)
}).annotations({ identifier: "UserPromptSubmitHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UserPromptSubmitHookInput = typeof UserPromptSubmitHookInput.Type

/**
 * Where an MCP tool's server was configured (`sdk`, `plugin`, `user`, … an open set).
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpServerProvenance = Schema.Struct({
  name: Schema.String,
  source: Schema.String
}).annotations({ identifier: "McpServerProvenance", ...preserve })

/**
 * `tool_input` and `tool_response` are the tool's own shapes (the response has the shapes of a
 * transcript's `toolUseResult`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PostToolUseHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("PostToolUse"),
  tool_name: Schema.String,
  tool_input: Schema.Unknown,
  tool_response: Schema.Unknown,
  tool_use_id: Schema.String,
  duration_ms: opt(Schema.Number),
  mcp_server: opt(McpServerProvenance)
}).annotations({ identifier: "PostToolUseHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type PostToolUseHookInput = typeof PostToolUseHookInput.Type

/**
 * A tool call that failed: Claude Code fires PostToolUseFailure instead of PostToolUse, with the
 * error text (`is_interrupt` when the user interrupted it).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PostToolUseFailureHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("PostToolUseFailure"),
  tool_name: Schema.String,
  tool_input: Schema.Unknown,
  tool_use_id: Schema.String,
  error: Schema.String,
  is_interrupt: opt(Schema.Boolean),
  duration_ms: opt(Schema.Number),
  mcp_server: opt(McpServerProvenance)
}).annotations({ identifier: "PostToolUseFailureHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type PostToolUseFailureHookInput = typeof PostToolUseFailureHookInput.Type

/**
 * One in-flight background task, as listed on Stop.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BackgroundTaskSummary = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  status: Schema.String,
  description: Schema.String,
  command: opt(Schema.String),
  agent_type: opt(Schema.String),
  server: opt(Schema.String),
  tool: opt(Schema.String),
  name: opt(Schema.String)
}).annotations({ identifier: "BackgroundTaskSummary", ...preserve })

/**
 * One session-scoped cron task, as listed on Stop.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionCronSummary = Schema.Struct({
  id: Schema.String,
  schedule: Schema.String,
  recurring: Schema.Boolean,
  prompt: Schema.String
}).annotations({ identifier: "SessionCronSummary", ...preserve })

/**
 * `last_assistant_message` is the text of the last assistant message: a Stop hook need not read
 * the transcript (which is written asynchronously and can lag).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("Stop"),
  stop_hook_active: Schema.Boolean,
  last_assistant_message: opt(Schema.String),
  background_tasks: opt(Schema.Array(BackgroundTaskSummary)),
  session_crons: opt(Schema.Array(SessionCronSummary))
}).annotations({ identifier: "StopHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type StopHookInput = typeof StopHookInput.Type

/**
 * Known values of `SessionEndHookInput.reason` (the SDK's `ExitReason`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExitReason = Schema.Literal("clear", "resume", "logout", "prompt_input_exit", "other")

/**
 * @since 0.1.0
 * @category schemas
 */
export const SessionEndHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("SessionEnd"),
  reason: Open(...ExitReason.literals)
}).annotations({ identifier: "SessionEndHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionEndHookInput = typeof SessionEndHookInput.Type

/**
 * Known values of `PreSkillShellCommandHookInput.invoked_by`: who started loading the skill
 * (`user`: typed, or sent by an SDK host; `claude`: the Skill tool or a turn Claude scheduled;
 * `other`: a subagent's preload, a channel message, or not known).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillInvoker = Schema.Literal("user", "claude", "other")

/**
 * `tool_input` of PreSkillShellCommand: the command as it would run, arguments filled in.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillShellCommandInput = Schema.Struct({
  command: Schema.String
}).annotations({ identifier: "SkillShellCommandInput", ...preserve })

/**
 * Claude Code 2.1.332+: a skill or command's text holds a shell command (`` !`…` ``) that is
 * about to run while it loads. `tool_name` is the shell tool (Bash or PowerShell); `tool_use_id`
 * names this command only (`<Skill tool_use id>:preamble-<n>`), no tool call of the transcript.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PreSkillShellCommandHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.Literal("PreSkillShellCommand"),
  tool_name: Schema.String,
  tool_input: SkillShellCommandInput,
  tool_use_id: Schema.String,
  command_name: Schema.String,
  command_source: opt(Schema.String),
  invoked_by: Open(...SkillInvoker.literals)
}).annotations({ identifier: "PreSkillShellCommandHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type PreSkillShellCommandHookInput = typeof PreSkillShellCommandHookInput.Type

/**
 * The input of any other event (PreToolUse, SubagentStop, PreCompact, … and events of newer
 * CLIs): the base fields and the event name, everything else preserved.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UnknownHookInput = Schema.Struct({
  ...BaseHookInput.fields,
  hook_event_name: Schema.String.pipe(
    Schema.filter((name) => !isKnownHookEvent(name) || `${name} input must match its own schema`)
  )
}).annotations({ identifier: "UnknownHookInput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UnknownHookInput = typeof UnknownHookInput.Type

/**
 * The typed hook inputs.
 *
 * @since 0.1.0
 * @category schemas
 */
export const KnownHookInput = Schema.Union(
  SessionStartHookInput,
  UserPromptSubmitHookInput,
  PostToolUseHookInput,
  PostToolUseFailureHookInput,
  StopHookInput,
  SessionEndHookInput,
  PreSkillShellCommandHookInput
)

/**
 * @since 0.1.0
 * @category models
 */
export type KnownHookInput = typeof KnownHookInput.Type

/**
 * Any hook input, open-ended (Unknown last).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookInput = Schema.Union(
  SessionStartHookInput,
  UserPromptSubmitHookInput,
  PostToolUseHookInput,
  PostToolUseFailureHookInput,
  StopHookInput,
  SessionEndHookInput,
  PreSkillShellCommandHookInput,
  UnknownHookInput
).annotations({ identifier: "HookInput" })

/**
 * @since 0.1.0
 * @category models
 */
export type HookInput = typeof HookInput.Type

/**
 * Whether a decoded input is one of the typed events.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownHookInput = (input: HookInput): input is KnownHookInput => isKnownHookEvent(input.hook_event_name)

// -------------------------------------------------------------------------------------------------
// outputs
// -------------------------------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category schemas
 */
export const SessionStartHookSpecificOutput = Schema.Struct({
  hookEventName: Schema.Literal("SessionStart"),
  additionalContext: opt(Schema.String),
  initialUserMessage: opt(Schema.String),
  sessionTitle: opt(Schema.String),
  watchPaths: opt(Schema.mutable(Schema.Array(Schema.String))),
  reloadSkills: opt(Schema.Boolean)
}).annotations({ identifier: "SessionStartHookSpecificOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStartHookSpecificOutput = typeof SessionStartHookSpecificOutput.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const UserPromptSubmitHookSpecificOutput = Schema.Struct({
  hookEventName: Schema.Literal("UserPromptSubmit"),
  additionalContext: opt(Schema.String),
  sessionTitle: opt(Schema.String),
  suppressOriginalPrompt: opt(Schema.Boolean)
}).annotations({ identifier: "UserPromptSubmitHookSpecificOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UserPromptSubmitHookSpecificOutput = typeof UserPromptSubmitHookSpecificOutput.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PostToolUseHookSpecificOutput = Schema.Struct({
  hookEventName: Schema.Literal("PostToolUse"),
  additionalContext: opt(Schema.String),
  classifierContext: opt(Schema.String),
  updatedToolOutput: opt(Schema.Unknown),
  updatedMCPToolOutput: opt(Schema.Unknown)
}).annotations({ identifier: "PostToolUseHookSpecificOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type PostToolUseHookSpecificOutput = typeof PostToolUseHookSpecificOutput.Type

/**
 * `additionalContext` is added for the model after the failed call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PostToolUseFailureHookSpecificOutput = Schema.Struct({
  hookEventName: Schema.Literal("PostToolUseFailure"),
  additionalContext: opt(Schema.String)
}).annotations({ identifier: "PostToolUseFailureHookSpecificOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type PostToolUseFailureHookSpecificOutput = typeof PostToolUseFailureHookSpecificOutput.Type

/**
 * `additionalContext` is non-error feedback to the model; the conversation continues.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopHookSpecificOutput = Schema.Struct({
  hookEventName: Schema.Literal("Stop"),
  additionalContext: opt(Schema.String)
}).annotations({ identifier: "StopHookSpecificOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type StopHookSpecificOutput = typeof StopHookSpecificOutput.Type

/**
 * The event-specific outputs acx produces (SessionEnd has none). Closed, so that the Type is
 * assignable to the SDK's `SyncHookJSONOutput["hookSpecificOutput"]`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookSpecificOutput = Schema.Union(
  SessionStartHookSpecificOutput,
  UserPromptSubmitHookSpecificOutput,
  PostToolUseHookSpecificOutput,
  PostToolUseFailureHookSpecificOutput,
  StopHookSpecificOutput
).annotations({ identifier: "HookSpecificOutput" })

/**
 * @since 0.1.0
 * @category models
 */
export type HookSpecificOutput = typeof HookSpecificOutput.Type

/**
 * A synchronous hook result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SyncHookOutput = Schema.Struct({
  continue: opt(Schema.Boolean),
  suppressOutput: opt(Schema.Boolean),
  stopReason: opt(Schema.String),
  decision: opt(Schema.Literal("approve", "block")),
  systemMessage: opt(Schema.String),
  terminalSequence: opt(Schema.String),
  reason: opt(Schema.String),
  hookSpecificOutput: opt(HookSpecificOutput)
}).annotations({ identifier: "SyncHookOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SyncHookOutput = typeof SyncHookOutput.Type

/**
 * "Running in the background": the hook's real result arrives later.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AsyncHookOutput = Schema.Struct({
  async: Schema.Literal(true),
  asyncTimeout: opt(Schema.Number)
}).annotations({ identifier: "AsyncHookOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type AsyncHookOutput = typeof AsyncHookOutput.Type

/**
 * The SDK's `HookJSONOutput`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookOutput = Schema.Union(AsyncHookOutput, SyncHookOutput).annotations({ identifier: "HookOutput" })

/**
 * @since 0.1.0
 * @category models
 */
export type HookOutput = typeof HookOutput.Type
