/**
 * Claude Code transcript entries: one JSON object per line of
 * `<config>/projects/<projectKey>/<sessionId>.jsonl` (and of subagent files), which are also the
 * entries a `SessionStore` receives.
 *
 * An open-ended union over `type`:
 * - conversation entries (`user`, `assistant`, `system`, `attachment`, `progress`) carry the
 *   chain fields (`uuid`, `parentUuid`, `logicalParentUuid`, `isSidechain`, `agentId`, …);
 *   `system` is itself open on `subtype` (compact boundaries, local commands, stop-hook
 *   summaries, turn durations, API errors, informational notes, then any other subtype);
 * - every other type of the CLI's entry table (titles and tags, file history, continuation,
 *   modes, …) and the store-only `agent_metadata` is a named member with its known fields;
 * - anything else with a string `type` decodes as {@link UnknownEntry}, last.
 *
 * Only the discriminators and what an entry means nothing without are required; every other
 * declared field is optional (real transcripts of different CLI versions omit different fields).
 * Unknown fields are preserved everywhere, so a decoded entry re-encodes deep-equal to its line.
 * An entry of a known `type` whose shape is unexpected is not lost: it decodes as
 * {@link UnknownEntry} (see {@link isKnown}).
 *
 * Reading a line (`TranscriptLine.decodeLine`) checks only the envelope that decides whether an object is an
 * entry at all, and returns the parsed object; the deep check against the known schemas runs when
 * asked ({@link isKnown}, {@link decodeLineStrict}).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ContentBlock } from "./ContentBlock.js"
import { excerpt, formatIssues, Open, opt, optNull, orElse, preserve } from "./internal/schema.js"
import { OpaqueObject } from "./Json.js"
// The catch-all entry, the conversation types and the line reader are `TranscriptLine`'s (what a
// reader loads without the schemas here); this module builds on them and does not re-export them.
import { CONVERSATION_ENTRY_TYPES, decodeLine, TranscriptLineError, UnknownEntry } from "./TranscriptLine.js"

// -------------------------------------------------------------------------------------------------
// conversation entries
// -------------------------------------------------------------------------------------------------

/**
 * The fields of every conversation entry (user, assistant, system, attachment, progress), in
 * the order the CLI writes them, plus the flags the SDK's chain reader looks at.
 *
 * @since 0.1.0
 * @category fields
 */
export const ChainFields = {
  parentUuid: optNull(Schema.String),
  logicalParentUuid: optNull(Schema.String),
  isSidechain: opt(Schema.Boolean),
  teamName: opt(Schema.String),
  agentName: opt(Schema.String),
  agentId: opt(Schema.String),
  sessionKind: opt(Schema.String),
  userType: opt(Open("external")),
  entrypoint: opt(Open("cli", "sdk-ts", "sdk-py", "sdk-cli")),
  cwd: opt(Schema.String),
  sessionId: opt(Schema.String),
  version: opt(Schema.String),
  gitBranch: opt(Schema.String),
  slug: opt(Schema.String),
  requestSessionId: opt(Schema.String),
  forkedSkill: opt(Schema.Unknown),
  forkedFrom: opt(OpaqueObject),
  uuid: opt(Schema.String),
  timestamp: opt(Schema.String),
  isMeta: opt(Schema.Boolean),
  isCompactSummary: opt(Schema.Boolean),
  isVisibleInTranscriptOnly: opt(Schema.Boolean),
  isVirtual: opt(Schema.Boolean),
  origin: opt(Schema.Unknown),
  promptSource: opt(Schema.Unknown)
}

/**
 * `message` of a user entry: a `MessageParam` (string or block content).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserEntryMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union(Schema.String, Schema.Array(ContentBlock))
}).annotations({ identifier: "UserEntryMessage", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UserEntryMessage = typeof UserEntryMessage.Type

/**
 * Known values of `UserEntry.rowSource` (Claude Code 2.1.332+): who wrote the row. `local`: the
 * person at this session (typed, or sent by an SDK host); `hook`: a hook's output; `harness`:
 * Claude Code itself (task notifications, resume notices); `recorded`: replayed from elsewhere.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RowSource = Schema.Literal("local", "hook", "harness", "recorded")

/**
 * A user turn: a prompt, a tool result (with `toolUseResult`, the tool's structured output, and
 * `sourceToolAssistantUUID`), a compact summary (`isCompactSummary`), or a meta message. Since
 * 2.1.332 a prompt carries `sentAtMs` (when it was sent, epoch ms) and `rowSource`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserEntry = Schema.Struct({
  type: Schema.Literal("user"),
  ...ChainFields,
  promptId: opt(Schema.String),
  message: UserEntryMessage,
  toolUseResult: opt(Schema.Unknown),
  sourceToolAssistantUUID: opt(Schema.String),
  permissionMode: opt(Schema.String),
  imagePasteIds: opt(Schema.Array(Schema.Unknown)),
  todos: opt(Schema.Array(Schema.Unknown)),
  planContent: opt(Schema.String),
  mcpMeta: opt(Schema.Unknown),
  thinkingMetadata: opt(Schema.Unknown),
  sentAtMs: opt(Schema.Number),
  rowSource: opt(Open(...RowSource.literals))
}).annotations({ identifier: "UserEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UserEntry = typeof UserEntry.Type

/**
 * `message` of an assistant entry: the API message, usually holding one content block (the CLI
 * writes one entry per block; entries of one response share `message.id`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AssistantEntryMessage = Schema.Struct({
  id: opt(Schema.String),
  type: opt(Schema.String),
  role: Schema.Literal("assistant"),
  model: opt(Schema.String),
  content: Schema.Array(ContentBlock),
  stop_reason: optNull(Schema.String),
  stop_sequence: optNull(Schema.String),
  usage: optNull(OpaqueObject),
  container: opt(Schema.Unknown),
  context_management: opt(Schema.Unknown)
}).annotations({ identifier: "AssistantEntryMessage", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantEntryMessage = typeof AssistantEntryMessage.Type

/**
 * An assistant turn (one content block). `isApiErrorMessage` marks a synthetic message
 * reporting an API failure (`model: "<synthetic>"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AssistantEntry = Schema.Struct({
  type: Schema.Literal("assistant"),
  ...ChainFields,
  message: AssistantEntryMessage,
  requestId: opt(Schema.String),
  isApiErrorMessage: opt(Schema.Boolean),
  error: opt(Schema.Unknown)
}).annotations({ identifier: "AssistantEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantEntry = typeof AssistantEntry.Type

const SystemFields = {
  ...ChainFields,
  content: opt(Schema.String),
  level: opt(Schema.String),
  toolUseID: opt(Schema.String)
}

/**
 * `compactMetadata.preservedSegment`: the messages kept verbatim across a compaction.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PreservedSegment = Schema.Struct({
  headUuid: opt(Schema.String),
  anchorUuid: opt(Schema.String),
  tailUuid: opt(Schema.String)
}).annotations({ identifier: "PreservedSegment", ...preserve })

/**
 * `compactMetadata.preservedMessages`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PreservedMessages = Schema.Struct({
  anchorUuid: opt(Schema.String),
  uuids: opt(Schema.Array(Schema.String)),
  allUuids: opt(Schema.Array(Schema.String))
}).annotations({ identifier: "PreservedMessages", ...preserve })

/**
 * `compactMetadata` of a compact boundary (camelCase on disk; `compact_metadata` with
 * snake_case keys on the SDK stream).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompactMetadata = Schema.Struct({
  trigger: opt(Open("manual", "auto")),
  preTokens: opt(Schema.Number),
  postTokens: opt(Schema.Number),
  durationMs: opt(Schema.Number),
  preservedSegment: opt(PreservedSegment),
  preservedMessages: opt(PreservedMessages)
}).annotations({ identifier: "CompactMetadata", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type CompactMetadata = typeof CompactMetadata.Type

/**
 * A compaction: `parentUuid` is null and `logicalParentUuid` points at the last entry before
 * it; a `user` entry with `isCompactSummary: true` (the summary) follows.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CompactBoundaryEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("compact_boundary"),
  ...SystemFields,
  compactMetadata: opt(CompactMetadata)
}).annotations({ identifier: "CompactBoundaryEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type CompactBoundaryEntry = typeof CompactBoundaryEntry.Type

/**
 * A micro-compaction (old tool results cleared in place).
 *
 * @since 0.1.0
 * @category schemas
 */
export const MicrocompactBoundaryEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("microcompact_boundary"),
  ...SystemFields,
  microcompactMetadata: opt(OpaqueObject)
}).annotations({ identifier: "MicrocompactBoundaryEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type MicrocompactBoundaryEntry = typeof MicrocompactBoundaryEntry.Type

/**
 * Output of a local slash command (`content` holds the command's tags and output).
 *
 * @since 0.1.0
 * @category schemas
 */
export const LocalCommandEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("local_command"),
  ...SystemFields
}).annotations({ identifier: "LocalCommandEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type LocalCommandEntry = typeof LocalCommandEntry.Type

/**
 * One hook that ran at Stop.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopHookInfo = Schema.Struct({
  command: opt(Schema.String)
}).annotations({ identifier: "StopHookInfo", ...preserve })

/**
 * What the Stop hooks did at the end of a turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StopHookSummaryEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("stop_hook_summary"),
  ...SystemFields,
  hookCount: opt(Schema.Number),
  hookInfos: opt(Schema.Array(StopHookInfo)),
  hookErrors: opt(Schema.Array(Schema.Unknown)),
  preventedContinuation: opt(Schema.Boolean),
  stopReason: opt(Schema.String),
  hasOutput: opt(Schema.Boolean)
}).annotations({ identifier: "StopHookSummaryEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type StopHookSummaryEntry = typeof StopHookSummaryEntry.Type

/**
 * How long a turn took.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnDurationEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("turn_duration"),
  ...SystemFields,
  durationMs: opt(Schema.Number)
}).annotations({ identifier: "TurnDurationEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type TurnDurationEntry = typeof TurnDurationEntry.Type

/**
 * A failed API request (and the retry the CLI scheduled).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ApiErrorEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("api_error"),
  ...SystemFields,
  error: opt(Schema.Unknown),
  cause: opt(Schema.Unknown),
  retryInMs: opt(Schema.Number),
  retryAttempt: opt(Schema.Number),
  maxRetries: opt(Schema.Number)
}).annotations({ identifier: "ApiErrorEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type ApiErrorEntry = typeof ApiErrorEntry.Type

/**
 * A note shown to the user (`level`: info, notice, suggestion, warning).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InformationalEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: Schema.Literal("informational"),
  ...SystemFields
}).annotations({ identifier: "InformationalEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type InformationalEntry = typeof InformationalEntry.Type

/**
 * Any other system entry: another `subtype` (or none, as older CLIs wrote), or a known subtype
 * with an unexpected shape.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OtherSystemEntry = Schema.Struct({
  type: Schema.Literal("system"),
  subtype: opt(Schema.String),
  ...SystemFields
}).annotations({ identifier: "OtherSystemEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type OtherSystemEntry = typeof OtherSystemEntry.Type

/**
 * The `subtype`s with their own schema.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_SYSTEM_SUBTYPES = [
  "compact_boundary",
  "microcompact_boundary",
  "local_command",
  "stop_hook_summary",
  "turn_duration",
  "api_error",
  "informational"
] as const

/**
 * A system entry, open on `subtype` ({@link OtherSystemEntry} last).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SystemEntry = Schema.Union(
  CompactBoundaryEntry,
  MicrocompactBoundaryEntry,
  LocalCommandEntry,
  StopHookSummaryEntry,
  TurnDurationEntry,
  ApiErrorEntry,
  InformationalEntry,
  OtherSystemEntry
).annotations({ identifier: "SystemEntry" })

/**
 * @since 0.1.0
 * @category models
 */
export type SystemEntry = typeof SystemEntry.Type

/**
 * Context attached to a turn (files, hook output, diagnostics, …): `attachment.type` is open.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentEntry = Schema.Struct({
  type: Schema.Literal("attachment"),
  ...ChainFields,
  attachment: opt(OpaqueObject)
}).annotations({ identifier: "AttachmentEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type AttachmentEntry = typeof AttachmentEntry.Type

/**
 * `data` of a progress entry: `hook_progress`, `bash_progress`, `agent_progress`,
 * `waiting_for_task`, … (open).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProgressData = Schema.Struct({
  type: Schema.String
}).annotations({ identifier: "ProgressData", ...preserve })

/**
 * Progress of a running tool or hook, tied to the tool call by `toolUseID` /
 * `parentToolUseID`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProgressEntry = Schema.Struct({
  type: Schema.Literal("progress"),
  ...ChainFields,
  data: ProgressData,
  toolUseID: opt(Schema.String),
  parentToolUseID: opt(Schema.String)
}).annotations({ identifier: "ProgressEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type ProgressEntry = typeof ProgressEntry.Type

// -------------------------------------------------------------------------------------------------
// other entry types
// -------------------------------------------------------------------------------------------------

const metadataEntry = <const T extends string, Fields extends Schema.Struct.Fields>(
  type: T,
  identifier: string,
  fields: Fields
) =>
  Schema.Struct({
    type: Schema.Literal(type),
    sessionId: opt(Schema.String),
    uuid: opt(Schema.String),
    timestamp: opt(Schema.String),
    ...fields
  }).annotations({ identifier, ...preserve })

/**
 * A conversation summary of older CLIs (`leafUuid`: the last message it covers).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SummaryEntry = metadataEntry("summary", "SummaryEntry", {
  summary: Schema.String,
  leafUuid: optNull(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type SummaryEntry = typeof SummaryEntry.Type

/**
 * A user-chosen title (`renameSession`); in store mode with `uuid` and `timestamp`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CustomTitleEntry = metadataEntry("custom-title", "CustomTitleEntry", {
  customTitle: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type CustomTitleEntry = typeof CustomTitleEntry.Type

/**
 * A generated title.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AiTitleEntry = metadataEntry("ai-title", "AiTitleEntry", {
  aiTitle: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type AiTitleEntry = typeof AiTitleEntry.Type

/**
 * A tag (`tagSession`); `""` clears it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TagEntry = metadataEntry("tag", "TagEntry", {
  tag: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type TagEntry = typeof TagEntry.Type

/**
 * The last prompt of the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LastPromptEntry = metadataEntry("last-prompt", "LastPromptEntry", {
  lastPrompt: opt(Schema.String),
  leafUuid: optNull(Schema.String),
  explicit: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LastPromptEntry = typeof LastPromptEntry.Type

/**
 * A checkpoint of tracked files (`snapshot.trackedFileBackups`), keyed by the user message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileHistorySnapshotEntry = metadataEntry("file-history-snapshot", "FileHistorySnapshotEntry", {
  messageId: Schema.String,
  snapshot: OpaqueObject,
  isSnapshotUpdate: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type FileHistorySnapshotEntry = typeof FileHistorySnapshotEntry.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const FileHistoryDeltaEntry = metadataEntry("file-history-delta", "FileHistoryDeltaEntry", {
  messageId: opt(Schema.String)
})

/**
 * Tool results replaced by references to keep the context small.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentReplacementEntry = metadataEntry("content-replacement", "ContentReplacementEntry", {
  agentId: opt(Schema.String),
  replacements: opt(Schema.Array(Schema.Unknown))
})

/**
 * The session continues in another one (`listSessions` hides this one when the target exists).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContinuedInEntry = metadataEntry("continued-in", "ContinuedInEntry", {
  continuedInSessionId: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type ContinuedInEntry = typeof ContinuedInEntry.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResumeHeadVouchEntry = metadataEntry("resume-head-vouch", "ResumeHeadVouchEntry", {})

/**
 * The session's working directory moved (overrides `cwd` in listings).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RelocatedEntry = metadataEntry("relocated", "RelocatedEntry", {
  relocatedCwd: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type RelocatedEntry = typeof RelocatedEntry.Type

/**
 * The sessions this one was derived from (forks), `sessions: [{ type, id, via }]`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DerivedFromEntry = metadataEntry("derived-from", "DerivedFromEntry", {
  v: opt(Schema.Number),
  sessions: opt(Schema.Array(Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ForkContextRefEntry = metadataEntry("fork-context-ref", "ForkContextRefEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const FrameLinkEntry = metadataEntry("frame-link", "FrameLinkEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const DataFlowRecordsEntry = metadataEntry("data-flow-records", "DataFlowRecordsEntry", {
  agentId: opt(Schema.String),
  v: opt(Schema.Number),
  records: opt(Schema.Array(Schema.Unknown)),
  snapshot: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const DataFlowIncompleteEntry = metadataEntry("data-flow-incomplete", "DataFlowIncompleteEntry", {
  agentId: opt(Schema.String),
  codes: opt(Schema.Array(Schema.Unknown))
})

/**
 * Known values of `ApiRequestThread.type`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestThreadType = Schema.Literal("none", "create", "continue")

/**
 * `thread` of an `api-request` entry (Claude Code 2.1.332+): whether the request stood alone
 * (`none`), opened a server-side thread (`create`) or continued one after
 * `previous_message_id` (`continue`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestThread = Schema.Struct({
  type: Open(...ApiRequestThreadType.literals),
  previous_message_id: opt(Schema.String)
}).annotations({ identifier: "ApiRequestThread", ...preserve })

/**
 * One request the CLI sent to the API, by reference (`shapeHash`, blob hashes): its
 * parameters, and since 2.1.332 its `thread`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestEntry = metadataEntry("api-request", "ApiRequestEntry", {
  id: opt(Schema.String),
  version: opt(Schema.String),
  querySource: opt(Schema.String),
  shapeHash: opt(Schema.String),
  thread: opt(ApiRequestThread)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestResumedEntry = metadataEntry("api-request-resumed", "ApiRequestResumedEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestShapeEntry = metadataEntry("api-request-shape", "ApiRequestShapeEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ApiRequestBlobEntry = metadataEntry("api-request-blob", "ApiRequestBlobEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AgentNameEntry = metadataEntry("agent-name", "AgentNameEntry", {
  agentName: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AgentColorEntry = metadataEntry("agent-color", "AgentColorEntry", {
  agentColor: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AgentSettingEntry = metadataEntry("agent-setting", "AgentSettingEntry", {
  agentSetting: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ModeEntry = metadataEntry("mode", "ModeEntry", {
  mode: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const PermissionModeEntry = metadataEntry("permission-mode", "PermissionModeEntry", {
  permissionMode: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReplModeEntry = metadataEntry("repl-mode", "ReplModeEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const IsolationLatchEntry = metadataEntry("isolation-latch", "IsolationLatchEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const SessionOwnerEntry = metadataEntry("session-owner", "SessionOwnerEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const DevModsEntry = metadataEntry("dev-mods", "DevModsEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const MemoryModeEntry = metadataEntry("memory-mode", "MemoryModeEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AtisLatchEntry = metadataEntry("atis-latch", "AtisLatchEntry", {
  atis: opt(Schema.String)
})

/**
 * The tools used in the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolsUsedEntry = metadataEntry("tools-used", "ToolsUsedEntry", {
  tools: opt(Schema.Array(Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const WorktreeStateEntry = metadataEntry("worktree-state", "WorktreeStateEntry", {
  worktreeSession: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const BridgeSessionEntry = metadataEntry("bridge-session", "BridgeSessionEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const HybridOrganizationEntry = metadataEntry("hybrid-organization", "HybridOrganizationEntry", {
  organizationUuid: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const HistorySuppressionEntry = metadataEntry("history-suppression", "HistorySuppressionEntry", {})

/**
 * A pull request linked to the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PrLinkEntry = metadataEntry("pr-link", "PrLinkEntry", {
  prNumber: opt(Schema.Number),
  prUrl: opt(Schema.String),
  prRepository: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AttributionSnapshotEntry = metadataEntry("attribution-snapshot", "AttributionSnapshotEntry", {
  messageId: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ArtifactCommentMonitorEntry = metadataEntry(
  "artifact-comment-monitor",
  "ArtifactCommentMonitorEntry",
  {}
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const ArtifactAutoreactLedgerEntry = metadataEntry(
  "artifact-autoreact-ledger",
  "ArtifactAutoreactLedgerEntry",
  {}
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const EndedByModelEntry = metadataEntry("ended-by-model", "EndedByModelEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const CostStateEntry = metadataEntry("cost-state", "CostStateEntry", {})

/**
 * A change to the prompt queue (`operation`: enqueue, remove, …); on `remove` the SDK reads
 * `reason`, `deliveryId` and `commandUuid`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QueueOperationEntry = metadataEntry("queue-operation", "QueueOperationEntry", {
  operation: Open("enqueue", "remove"),
  content: opt(Schema.String),
  reason: opt(Schema.String),
  deliveryId: opt(Schema.String),
  commandUuid: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type QueueOperationEntry = typeof QueueOperationEntry.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ObserverRefEntry = metadataEntry("observer-ref", "ObserverRefEntry", {})

/**
 * @since 0.1.0
 * @category schemas
 */
export const HostRowEntry = metadataEntry("host-row", "HostRowEntry", {
  ranByToolUseId: opt(Schema.String),
  rowUuid: opt(Schema.String),
  withheld: opt(Schema.Boolean)
})

/**
 * A subagent's metadata (its `agent-<id>.meta.json`), which the SDK appends as the last entry
 * of the subagent's subpath in a `SessionStore`; never written to a `.jsonl` file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AgentMetadataEntry = metadataEntry("agent_metadata", "AgentMetadataEntry", {
  agentType: opt(Schema.String),
  isFork: opt(Schema.Boolean),
  isBuiltIn: opt(Schema.Boolean),
  worktreePath: opt(Schema.String),
  cwd: opt(Schema.String),
  description: opt(Schema.String),
  name: opt(Schema.String),
  toolUseId: opt(Schema.String),
  parentAgentId: opt(Schema.String),
  stoppedByUser: opt(Schema.Boolean),
  finished: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type AgentMetadataEntry = typeof AgentMetadataEntry.Type

// -------------------------------------------------------------------------------------------------
// unions
// -------------------------------------------------------------------------------------------------

const knownMembers = [
  UserEntry,
  AssistantEntry,
  ...SystemEntry.members,
  AttachmentEntry,
  ProgressEntry,
  SummaryEntry,
  CustomTitleEntry,
  AiTitleEntry,
  TagEntry,
  LastPromptEntry,
  FileHistorySnapshotEntry,
  FileHistoryDeltaEntry,
  ContentReplacementEntry,
  ContinuedInEntry,
  ResumeHeadVouchEntry,
  RelocatedEntry,
  DerivedFromEntry,
  ForkContextRefEntry,
  FrameLinkEntry,
  DataFlowRecordsEntry,
  DataFlowIncompleteEntry,
  ApiRequestEntry,
  ApiRequestResumedEntry,
  ApiRequestShapeEntry,
  ApiRequestBlobEntry,
  AgentNameEntry,
  AgentColorEntry,
  AgentSettingEntry,
  ModeEntry,
  PermissionModeEntry,
  ReplModeEntry,
  IsolationLatchEntry,
  SessionOwnerEntry,
  DevModsEntry,
  MemoryModeEntry,
  AtisLatchEntry,
  ToolsUsedEntry,
  WorktreeStateEntry,
  BridgeSessionEntry,
  HybridOrganizationEntry,
  HistorySuppressionEntry,
  PrLinkEntry,
  AttributionSnapshotEntry,
  ArtifactCommentMonitorEntry,
  ArtifactAutoreactLedgerEntry,
  EndedByModelEntry,
  CostStateEntry,
  QueueOperationEntry,
  ObserverRefEntry,
  HostRowEntry,
  AgentMetadataEntry
] as const

/**
 * Every entry of a known `type` (no Unknown member).
 *
 * @since 0.1.0
 * @category schemas
 */
export const KnownTranscriptEntry = Schema.Union(...knownMembers).annotations({ identifier: "KnownTranscriptEntry" })

/**
 * @since 0.1.0
 * @category models
 */
export type KnownTranscriptEntry = typeof KnownTranscriptEntry.Type

/**
 * Any transcript entry: the known entries, then {@link UnknownEntry} last, so decoding fails only
 * on values that are not objects with a string `type` (and, as for a `SessionStoreEntry`, a
 * string `uuid` and `timestamp` when present).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TranscriptEntry = Schema.Union(...knownMembers, UnknownEntry).annotations({
  identifier: "TranscriptEntry"
})

/**
 * @since 0.1.0
 * @category models
 */
export type TranscriptEntry = typeof TranscriptEntry.Type

/**
 * The `type`s with their own schema: the CLI's entry-type table and the store-only
 * `agent_metadata`.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_ENTRY_TYPES: ReadonlyArray<KnownTranscriptEntry["type"]> = Array.from(
  new Set(knownMembers.map((member) => member.fields.type.literals[0]))
)

const knownTypes: ReadonlySet<string> = new Set(KNOWN_ENTRY_TYPES)

/**
 * Whether a `type` has its own schema.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownType = (type: string): type is KnownTranscriptEntry["type"] => knownTypes.has(type)

const isKnownEntry = Schema.is(KnownTranscriptEntry)

/**
 * Whether a decoded entry matches a known entry schema (a known `type` with an unexpected shape
 * is not known: it decoded as {@link UnknownEntry}).
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnown = (entry: TranscriptEntry): entry is KnownTranscriptEntry =>
  knownTypes.has(entry.type) && orElse(() => isKnownEntry(entry), () => false)

/**
 * Whether a decoded entry fell into {@link UnknownEntry}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUnknown = (entry: TranscriptEntry): entry is UnknownEntry => !isKnown(entry)

/**
 * Whether an entry is a conversation entry (user, assistant, system, attachment, progress).
 *
 * @since 0.1.0
 * @category guards
 */
export const isConversationEntry = (
  entry: TranscriptEntry
): entry is UserEntry | AssistantEntry | SystemEntry | AttachmentEntry | ProgressEntry =>
  isKnown(entry) && (CONVERSATION_ENTRY_TYPES as ReadonlyArray<string>).includes(entry.type)

// -------------------------------------------------------------------------------------------------
// line decoding
// -------------------------------------------------------------------------------------------------

const decodeTranscriptEntry = Schema.decodeUnknownEither(TranscriptEntry)

/**
 * Decodes one entry value (already parsed JSON).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeEntry = (value: unknown): Either.Either<TranscriptEntry, ParseResult.ParseError> =>
  orElse(
    () => decodeTranscriptEntry(value),
    () =>
      Either.left(
        new ParseResult.ParseError({
          issue: new ParseResult.Type(TranscriptEntry.ast, value, "a discriminator cannot be read as a string")
        })
      )
  )

const decodeKnownEntry = Schema.decodeUnknownEither(KnownTranscriptEntry)

/**
 * Reads one line of a transcript and validates it deeply, without throwing: an entry of a known
 * `type` must match its own schema (content blocks, compact metadata, progress data, …), so one
 * with an unexpected shape is an `InvalidEntry` error with the schema's issues, instead of an
 * entry {@link isKnown} rejects; an entry of another `type` is decoded as {@link UnknownEntry}.
 * Costs a full schema decode per line: for audits and tests, not for reading transcripts.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLineStrict = (
  text: string,
  lineNumber: number
): Either.Either<TranscriptEntry, TranscriptLineError> => {
  const read = decodeLine(text, lineNumber)
  if (Either.isLeft(read)) return read
  const value = read.right
  const type = value.type
  const decode = knownTypes.has(type) ? decodeKnownEntry : decodeTranscriptEntry
  const result: Either.Either<TranscriptEntry, string> = orElse(
    () => Either.mapLeft(decode(value), formatIssues),
    () => Either.left("a discriminator cannot be converted to a string")
  )
  return Either.isRight(result)
    ? Either.right(result.right)
    : Either.left(
      new TranscriptLineError({
        reason: "InvalidEntry",
        line: lineNumber,
        excerpt: excerpt(text),
        description: `a \`${type}\` entry that matches no known schema: ${result.left}`
      })
    )
}
