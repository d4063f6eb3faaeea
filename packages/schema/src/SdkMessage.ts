/**
 * Every `SDKMessage` variant of `@anthropic-ai/claude-agent-sdk` 0.3.330 (40 union members,
 * 41 shapes with `SDKResultMessage` split into success and error), the frames the SDK forwards
 * without declaring them (`system/post_turn_summary`, `system/task_summary`,
 * `system/session_metadata`, `active_goal`, `autocompact_state`), and an Unknown member so a
 * newer SDK's messages still decode.
 *
 * Rules, applied throughout:
 * - Discriminators are required `Schema.Literal`s (`type`, `subtype`, `isReplay`), so the
 *   union decodes through Effect's literal search tree. The payload without which a variant is
 *   meaningless is required too (`message` for user/assistant, `event` for stream_event).
 *   Every other field is optional (exact) with the SDK's type, nullable where the SDK says so:
 *   real CLI and test frames omit many fields the d.ts marks required (a result without
 *   `uuid`/`usage`, an assistant message with only `content` and `model`).
 * - `uuid` / `session_id` are plain strings (real frames carry `"uuid-1"`, `"test-session"`).
 * - Enum-valued fields that are not discriminators (`stop_reason`, `permissionMode`,
 *   `status`, `error`, …) are open: the SDK's literals plus any newer string, so a new value
 *   does not push a known message into Unknown. `true`-only flags (`aborted`,
 *   `client_composed`, `resumed_from_incomplete_thinking`) decode as booleans for the same
 *   reason. Nested unions the SDK grows (`origin`, stream events and deltas) are modelled as
 *   open structs or end with an unknown member.
 * - Unknown fields are preserved, in their original key order (`parseOptions:
 *   { onExcessProperty: "preserve", propertyOrder: "original" }` on every struct), including
 *   inside `message`, `usage` and content blocks: `JSON.stringify` of a decoded message is the
 *   same text as that of its input.
 * - {@link SdkMessage} ends with {@link UnknownSdkMessage} (`type: string`): any object with a
 *   string `type` decodes; a known `(type, subtype)` with an unexpected shape decodes as Unknown
 *   too. Anything else fails with a `ParseError`.
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { ContentBlock, TextCitation } from "./ContentBlock.js"
import { Open, opt, optNull, preserve, struct } from "./internal/schema.js"
import { OpaqueObject, RecordKey } from "./Json.js"

const Strings = Schema.Array(Schema.String)

/** `uuid` and `session_id`, on every variant (optional: real frames omit them). */
const ids = {
  uuid: opt(Schema.String),
  session_id: opt(Schema.String)
}

// ---------------------------------------------------------------------------------------------
// supporting types
// ---------------------------------------------------------------------------------------------

/**
 * `SDKAssistantMessageError` (open).
 *
 * @since 0.1.0
 * @category supporting types
 */
export const AssistantMessageError = Open(
  "authentication_failed",
  "oauth_org_not_allowed",
  "account_on_hold",
  "verification_required",
  "billing_error",
  "rate_limit",
  "overloaded",
  "invalid_request",
  "model_not_found",
  "server_error",
  "unknown",
  "max_output_tokens",
  "cloud_credential_error"
)

/**
 * `PermissionMode` (open).
 *
 * @since 0.1.0
 * @category supporting types
 */
export const PermissionMode = Open("default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto")

const CacheCreation = struct("CacheCreation", {
  ephemeral_1h_input_tokens: opt(Schema.Number),
  ephemeral_5m_input_tokens: opt(Schema.Number)
})

const FallbackCreditUsage = struct("FallbackCreditUsage", {
  status: opt(struct("FallbackCreditStatus", {
    type: Open("redeemed", "not_applied"),
    reason: opt(Open(
      "body_mismatch",
      "continuation_excluded",
      "continuation_only",
      "expired",
      "invalid_target_model",
      "not_enabled",
      "reprice_unavailable",
      "temporarily_unavailable",
      "variant_fields_present",
      "wrong_organization",
      "wrong_platform",
      "wrong_workspace"
    )),
    remove_to_redeem: optNull(Strings)
  }))
})

const IterationUsage = struct("IterationUsage", {
  type: Open("message", "compaction", "advisor_message", "fallback_message"),
  cache_creation: optNull(CacheCreation),
  cache_creation_input_tokens: opt(Schema.Number),
  cache_read_input_tokens: opt(Schema.Number),
  input_tokens: opt(Schema.Number),
  output_tokens: opt(Schema.Number),
  model: optNull(Schema.String)
})

/**
 * Token usage: `BetaUsage` (assistant messages), `NonNullableUsage` (results) and
 * `BetaMessageDeltaUsage` (stream `message_delta`), every field optional.
 *
 * @since 0.1.0
 * @category supporting types
 */
export const Usage = struct("Usage", {
  input_tokens: optNull(Schema.Number),
  output_tokens: opt(Schema.Number),
  cache_creation: optNull(CacheCreation),
  cache_creation_input_tokens: optNull(Schema.Number),
  cache_read_input_tokens: optNull(Schema.Number),
  fallback_credit: optNull(FallbackCreditUsage),
  inference_geo: optNull(Schema.String),
  iterations: optNull(Schema.Array(IterationUsage)),
  output_tokens_details: optNull(struct("OutputTokensDetails", { thinking_tokens: opt(Schema.Number) })),
  server_tool_use: optNull(struct("ServerToolUsage", {
    web_fetch_requests: opt(Schema.Number),
    web_search_requests: opt(Schema.Number)
  })),
  service_tier: optNull(Open("standard", "priority", "batch")),
  speed: optNull(Open("standard", "fast"))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Usage = typeof Usage.Type

/**
 * `ModelUsage`: per-model totals of a result (camelCase).
 *
 * @since 0.1.0
 * @category supporting types
 */
export const ModelUsage = struct("ModelUsage", {
  inputTokens: opt(Schema.Number),
  outputTokens: opt(Schema.Number),
  thinkingTokens: opt(Schema.Number),
  cacheReadInputTokens: opt(Schema.Number),
  cacheCreationInputTokens: opt(Schema.Number),
  cacheCreationEphemeral5mInputTokens: opt(Schema.Number),
  cacheCreationEphemeral1hInputTokens: opt(Schema.Number),
  webSearchRequests: opt(Schema.Number),
  costUSD: opt(Schema.Number),
  contextWindow: opt(Schema.Number),
  maxOutputTokens: opt(Schema.Number),
  canonicalModel: opt(Schema.String),
  provider: opt(Schema.String),
  costBasis: opt(Open("list", "managed", "unknown"))
})

const ModelUsageRecord = Schema.Record({ key: RecordKey, value: ModelUsage })

/**
 * `SDKMessageOrigin`: a union on `kind` in the SDK, modelled as one open struct (every field
 * of every kind optional) so a new `kind` keeps the user message known.
 *
 * @since 0.1.0
 * @category supporting types
 */
export const MessageOrigin = struct("MessageOrigin", {
  kind: Open(
    "human",
    "channel",
    "peer",
    "task-notification",
    "coordinator",
    "unclassified",
    "observer",
    "auto-continuation",
    "observer-activity"
  ),
  server: opt(Schema.String),
  from: opt(Schema.String),
  fromMode: opt(Open("bypass", "prompting")),
  name: opt(Schema.String),
  fromSession: opt(Schema.String),
  senderTaskId: opt(Schema.String),
  body: opt(Schema.String),
  verifiedPeerPid: opt(Schema.Number),
  subkind: opt(Open("scheduled-trigger", "peer-send-message", "projects-relay", "session-inbox", "external-event")),
  fireReason: opt(Schema.String),
  runId: opt(Schema.String)
})

const TaskUsage = struct("TaskUsage", {
  total_tokens: opt(Schema.Number),
  tool_uses: opt(Schema.Number),
  duration_ms: opt(Schema.Number)
})

const TerminalReason = Open(
  "blocking_limit",
  "rapid_refill_breaker",
  "prompt_too_long",
  "image_error",
  "model_error",
  "api_error",
  "malformed_tool_use_exhausted",
  "aborted_streaming",
  "aborted_tools",
  "stop_hook_prevented",
  "hook_stopped",
  "tool_deferred",
  "max_turns",
  "background_requested",
  "completed",
  "budget_exhausted",
  "structured_output_retry_exhausted",
  "tool_deferred_unavailable",
  "turn_setup_failed"
)

const FastModeState = Open("off", "cooldown", "on")

const FastModeDisabledReason = Open(
  "free",
  "preference",
  "extra_usage_disabled",
  "network_error",
  "unknown",
  "not_first_party",
  "disabled_by_env",
  "model_not_allowed",
  "sdk_opt_in_required",
  "pending"
)

const PostQueuedBehind = Open("durable_post", "ephemeral_post", "retry_backoff", "hold", "none")

// ---------------------------------------------------------------------------------------------
// API messages (`message` of user / assistant)
// ---------------------------------------------------------------------------------------------

const StopReason = Open(
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "compaction",
  "refusal",
  "model_context_window_exceeded"
)

const RefusalStopDetails = struct("RefusalStopDetails", {
  type: Open("refusal"),
  category: optNull(Open("cyber", "bio", "frontier_llm", "reasoning_extraction", "general_harms")),
  explanation: optNull(Schema.String),
  fallback_credit_token: optNull(Schema.String),
  fallback_has_prefill_claim: optNull(Schema.Boolean),
  recommended_model: optNull(Schema.String)
})

const Container = struct("Container", {
  id: opt(Schema.String),
  expires_at: opt(Schema.String),
  skills: optNull(Schema.Array(struct("ContainerSkill", {
    skill_id: opt(Schema.String),
    type: opt(Open("anthropic", "custom")),
    version: opt(Schema.String)
  })))
})

const ContextManagement = struct("ContextManagement", {
  applied_edits: opt(Schema.Array(struct("AppliedEdit", {
    type: Open("clear_tool_uses_20250919", "clear_thinking_20251015"),
    cleared_input_tokens: opt(Schema.Number),
    cleared_tool_uses: opt(Schema.Number),
    cleared_thinking_turns: opt(Schema.Number)
  })))
})

const Diagnostics = struct("Diagnostics", {
  cache_miss_reason: optNull(struct("CacheMissReason", {
    type: Open(
      "model_changed",
      "system_changed",
      "tools_changed",
      "messages_changed",
      "previous_message_not_found",
      "unavailable"
    ),
    cache_missed_input_tokens: opt(Schema.Number)
  }))
})

const InputTransformation = struct("InputTransformation", {
  type: Open("thinking_dropped", "thinking_mismatch_allowed"),
  path: opt(Schema.String),
  reason: opt(Open(
    "model_binding_mismatch",
    "prefix_binding_mismatch",
    "organization_binding_mismatch",
    "end_user_binding_mismatch"
  ))
})

/**
 * `BetaMessage`: the `message` of an assistant message (and of a stream `message_start`).
 * Only `content` is required.
 *
 * @since 0.1.0
 * @category api messages
 */
export const BetaMessage = struct("BetaMessage", {
  id: opt(Schema.String),
  type: opt(Open("message")),
  role: opt(Open("assistant")),
  model: opt(Schema.String),
  content: Schema.Array(ContentBlock),
  stop_reason: optNull(StopReason),
  stop_sequence: optNull(Schema.String),
  stop_details: optNull(RefusalStopDetails),
  usage: opt(Usage),
  container: optNull(Container),
  context_management: optNull(ContextManagement),
  diagnostics: optNull(Diagnostics),
  input_transformations: optNull(Schema.Array(InputTransformation))
})

/**
 * @since 0.1.0
 * @category models
 */
export type BetaMessage = typeof BetaMessage.Type

/**
 * `MessageParam` (non-Beta): the `message` of a user message. `content` is a string or
 * content blocks; `role` is optional (real frames omit it).
 *
 * @since 0.1.0
 * @category api messages
 */
export const MessageParam = struct("MessageParam", {
  role: opt(Open("user", "assistant", "system")),
  content: Schema.Union(Schema.String, Schema.Array(ContentBlock))
})

/**
 * @since 0.1.0
 * @category models
 */
export type MessageParam = typeof MessageParam.Type

// ---------------------------------------------------------------------------------------------
// assistant, user, replay
// ---------------------------------------------------------------------------------------------

const ContextUsage = struct("ContextUsage", {
  model: opt(Schema.String),
  total_tokens: opt(Schema.Number),
  raw_max_tokens: opt(Schema.Number),
  percentage: opt(Schema.Number),
  over_limit: opt(struct("ContextUsageOverLimit", {
    tokens_over: opt(Schema.Number),
    kind: opt(Open("hard_limit", "compaction_window"))
  })),
  categories: opt(Schema.Array(struct("ContextUsageCategory", {
    name: opt(Schema.String),
    tokens: opt(Schema.Number),
    kind: opt(Open("used", "free", "buffer", "deferred"))
  }))),
  mcp_tools: opt(Schema.Array(struct("ContextUsageMcpTool", {
    name: opt(Schema.String),
    server_name: opt(Schema.String),
    tokens: opt(Schema.Number)
  }))),
  memory_files: opt(Schema.Array(struct("ContextUsageMemoryFile", {
    path: opt(Schema.String),
    type: opt(Schema.String),
    tokens: opt(Schema.Number)
  }))),
  agents: opt(Schema.Array(struct("ContextUsageAgent", {
    agent_type: opt(Schema.String),
    source: opt(Schema.String),
    tokens: opt(Schema.Number)
  }))),
  skills: opt(Schema.Array(struct("ContextUsageSkill", {
    name: opt(Schema.String),
    source: opt(Schema.String),
    plugin_name: opt(Schema.String),
    tokens: opt(Schema.Number)
  })))
})

const DisplayName = struct("DisplayName", { display_name: opt(Schema.String) })

const UsageReport = struct("UsageReport", {
  session: opt(struct("UsageReportSession", {
    total_cost_usd: opt(Schema.Number),
    total_api_duration_ms: opt(Schema.Number),
    total_duration_ms: opt(Schema.Number),
    total_lines_added: opt(Schema.Number),
    total_lines_removed: opt(Schema.Number),
    model_usage: opt(ModelUsageRecord)
  })),
  rate_limits: optNull(struct("UsageReportRateLimits", {
    limits: optNull(Schema.Array(struct("UsageReportRateLimit", {
      kind: opt(Schema.String),
      group: opt(Schema.String),
      percent: opt(Schema.Number),
      resets_at: optNull(Schema.String),
      scope: optNull(struct("UsageReportRateLimitScope", {
        model: optNull(DisplayName),
        surface: optNull(DisplayName)
      })),
      severity: opt(Schema.String),
      is_active: opt(Schema.Boolean)
    }))),
    extra_usage: optNull(struct("UsageReportExtraUsage", {
      is_enabled: opt(Schema.Boolean),
      monthly_limit: optNull(Schema.Number),
      used_credits: optNull(Schema.Number),
      utilization: optNull(Schema.Number),
      currency: optNull(Schema.String)
    }))
  }))
})

/**
 * `SDKAssistantMessage`. Streamed assistant turns arrive as one message per content block
 * sharing `message.id`.
 *
 * @since 0.1.0
 * @category messages
 */
export const AssistantMessage = struct("AssistantMessage", {
  type: Schema.Literal("assistant"),
  message: BetaMessage,
  parent_tool_use_id: optNull(Schema.String),
  error: opt(AssistantMessageError),
  ...ids,
  request_id: opt(Schema.String),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Strings),
  resume_reason: opt(Schema.String),
  resumed_from_incomplete_thinking: opt(Schema.Boolean),
  supersedes: opt(Strings),
  aborted: opt(Schema.Boolean),
  agent_id: opt(Schema.String),
  subagent_type: opt(Schema.String),
  task_description: opt(Schema.String),
  timestamp: opt(Schema.String),
  context_usage: opt(ContextUsage),
  usage_report: opt(UsageReport)
})

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantMessage = typeof AssistantMessage.Type

const userFields = {
  type: Schema.Literal("user"),
  message: MessageParam,
  parent_tool_use_id: optNull(Schema.String),
  isSynthetic: opt(Schema.Boolean),
  tool_use_result: opt(Schema.Unknown),
  priority: opt(Open("now", "next", "later")),
  origin: opt(MessageOrigin),
  shouldQuery: opt(Schema.Boolean),
  timestamp: opt(Schema.String),
  client_composed: opt(Schema.Boolean),
  ...ids
}

/**
 * `SDKUserMessageReplay`: a user message echoed back by the CLI (`isReplay: true`). Listed
 * before {@link UserMessage} in the unions, which would otherwise accept it.
 *
 * @since 0.1.0
 * @category messages
 */
export const UserMessageReplay = struct("UserMessageReplay", {
  ...userFields,
  isReplay: Schema.Literal(true),
  file_attachments: opt(Schema.Array(Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessageReplay = typeof UserMessageReplay.Type

/**
 * `SDKUserMessage`: a prompt, or tool results (with the `tool_use_result` sidecar).
 *
 * @since 0.1.0
 * @category messages
 */
export const UserMessage = struct("UserMessage", {
  ...userFields,
  pasted_content: opt(Schema.Array(Schema.Union(Schema.String, Schema.Array(ContentBlock)))),
  inline_pastes: opt(Strings),
  agent_id: opt(Schema.String),
  subagent_type: opt(Schema.String),
  task_description: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessage = typeof UserMessage.Type

// ---------------------------------------------------------------------------------------------
// results
// ---------------------------------------------------------------------------------------------

const resultFields = {
  type: Schema.Literal("result"),
  duration_ms: opt(Schema.Number),
  duration_api_ms: opt(Schema.Number),
  is_error: opt(Schema.Boolean),
  num_turns: opt(Schema.Number),
  stop_reason: optNull(Schema.String),
  total_cost_usd: opt(Schema.Number),
  usage: opt(Usage),
  modelUsage: opt(ModelUsageRecord),
  permission_denials: opt(Schema.Array(struct("PermissionDenial", {
    tool_name: opt(Schema.String),
    tool_use_id: opt(Schema.String),
    tool_input: opt(OpaqueObject)
  }))),
  queued_turn_count: opt(Schema.Number),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Strings),
  resume_reason: opt(Schema.String),
  terminal_reason: opt(TerminalReason),
  result_index: opt(Schema.Number),
  credential_expires_at: opt(Schema.String),
  fast_mode_state: opt(FastModeState),
  fast_mode_disabled_reason: opt(FastModeDisabledReason),
  origin: opt(MessageOrigin),
  ...ids
}

/**
 * `SDKResultSuccess`: the end of a turn, with the final text in `result`.
 *
 * @since 0.1.0
 * @category messages
 */
export const ResultSuccess = struct("ResultSuccess", {
  ...resultFields,
  subtype: Schema.Literal("success"),
  result: opt(Schema.String),
  ttft_ms: opt(Schema.Number),
  ttft_stream_ms: opt(Schema.Number),
  time_to_request_ms: opt(Schema.Number),
  local_command: opt(Schema.String),
  request_sent_wall_ms: opt(Schema.Number),
  first_content_frame_ms: opt(Schema.Number),
  first_stream_post_ms: opt(Schema.Number),
  first_stream_post_ack_ms: opt(Schema.Number),
  first_stream_post_queue_wait_ms: opt(Schema.Number),
  first_stream_post_queued_behind: opt(PostQueuedBehind),
  first_stream_post_wall_ms: opt(Schema.Number),
  first_text_post_ms: opt(Schema.Number),
  first_text_post_queue_wait_ms: opt(Schema.Number),
  first_text_post_queued_behind: opt(PostQueuedBehind),
  first_text_post_wall_ms: opt(Schema.Number),
  time_to_request_from_spawn_ms: opt(Schema.Number),
  warm_spare_claimed: opt(Schema.Boolean),
  time_origin_ms: opt(Schema.Number),
  api_error_status: optNull(Schema.Number),
  structured_output: opt(Schema.Unknown),
  deferred_tool_use: opt(struct("DeferredToolUse", {
    id: opt(Schema.String),
    name: opt(Schema.String),
    input: opt(OpaqueObject)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResultSuccess = typeof ResultSuccess.Type

/**
 * `SDKResultError`: a turn that ended in an error (4 subtypes).
 *
 * @since 0.1.0
 * @category messages
 */
export const ResultError = struct("ResultError", {
  ...resultFields,
  subtype: Schema.Literal(
    "error_during_execution",
    "error_max_turns",
    "error_max_budget_usd",
    "error_max_structured_output_retries"
  ),
  errors: opt(Strings),
  startup_failure_reason: opt(Open(
    "org_pin_api_key_conflict",
    "provider_not_allowed",
    "org_verify_failed",
    "org_pin_mismatch",
    "managed_settings_invalid",
    "remote_settings_required_unavailable",
    "gateway_signin_required",
    "gateway_access_denied",
    "proxy_invalid",
    "temp_dir_unusable",
    "cwd_unavailable",
    "shell_tool_missing",
    "session_held_by_background",
    "worktree_resume_refused",
    "worktree_unverified",
    "cli_version_too_old",
    "bypass_root",
    "org_config_required_unavailable",
    "org_config_refused",
    "sandbox_required_unavailable",
    "initialize_not_first",
    "config_file_invalid",
    "managed_settings_not_delivered",
    "initialize_fields_not_delivered"
  )),
  invalid_config_file: opt(struct("InvalidConfigFile", {
    path: opt(Schema.String),
    is_global: opt(Schema.Boolean),
    backup_searched: opt(Schema.Boolean),
    backup_path: opt(Schema.String)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResultError = typeof ResultError.Type

// ---------------------------------------------------------------------------------------------
// stream events
// ---------------------------------------------------------------------------------------------

const UnknownStreamPart = struct("UnknownStreamPart", { type: Schema.String })

/**
 * The deltas of a `content_block_delta` event (`BetaRawContentBlockDelta`).
 *
 * @since 0.1.0
 * @category stream events
 */
export const KnownContentBlockDelta = Schema.Union(
  struct("TextDelta", { type: Schema.Literal("text_delta"), text: Schema.String }),
  struct("InputJsonDelta", { type: Schema.Literal("input_json_delta"), partial_json: Schema.String }),
  struct("CitationsDelta", { type: Schema.Literal("citations_delta"), citation: TextCitation }),
  struct("ThinkingDelta", {
    type: Schema.Literal("thinking_delta"),
    thinking: Schema.String,
    estimated_tokens: optNull(Schema.Number)
  }),
  struct("SignatureDelta", { type: Schema.Literal("signature_delta"), signature: Schema.String }),
  struct("CompactionDelta", {
    type: Schema.Literal("compaction_delta"),
    content: optNull(Schema.String),
    encrypted_content: optNull(Schema.String)
  })
).annotations({ identifier: "KnownContentBlockDelta" })

const ContentBlockDelta = Schema.Union(...KnownContentBlockDelta.members, UnknownStreamPart)

/**
 * `BetaRawMessageStreamEvent`: the six known events.
 *
 * @since 0.1.0
 * @category stream events
 */
export const KnownStreamEvent = Schema.Union(
  struct("MessageStartEvent", { type: Schema.Literal("message_start"), message: BetaMessage }),
  struct("MessageDeltaEvent", {
    type: Schema.Literal("message_delta"),
    delta: opt(struct("MessageDelta", {
      container: optNull(Container),
      stop_details: optNull(RefusalStopDetails),
      stop_reason: optNull(StopReason),
      stop_sequence: optNull(Schema.String)
    })),
    usage: opt(Usage),
    context_management: optNull(ContextManagement),
    input_transformations: optNull(Schema.Array(InputTransformation))
  }),
  struct("MessageStopEvent", { type: Schema.Literal("message_stop") }),
  struct("ContentBlockStartEvent", {
    type: Schema.Literal("content_block_start"),
    index: opt(Schema.Number),
    content_block: ContentBlock
  }),
  struct("ContentBlockDeltaEvent", {
    type: Schema.Literal("content_block_delta"),
    index: opt(Schema.Number),
    delta: ContentBlockDelta
  }),
  struct("ContentBlockStopEvent", { type: Schema.Literal("content_block_stop"), index: opt(Schema.Number) })
).annotations({ identifier: "KnownStreamEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type KnownStreamEvent = typeof KnownStreamEvent.Type

/**
 * A stream event: the known events, then an unknown event (`type: string`, fields preserved)
 * last, and likewise for the deltas inside `content_block_delta`.
 *
 * @since 0.1.0
 * @category stream events
 */
export const StreamEvent = Schema.Union(...KnownStreamEvent.members, UnknownStreamPart)
  .annotations({ identifier: "StreamEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type StreamEvent = typeof StreamEvent.Type

/**
 * `SDKPartialAssistantMessage` (`includePartialMessages`): one raw stream event.
 *
 * @since 0.1.0
 * @category messages
 */
export const StreamEventMessage = struct("StreamEventMessage", {
  type: Schema.Literal("stream_event"),
  event: StreamEvent,
  parent_tool_use_id: optNull(Schema.String),
  ...ids,
  ttft_ms: opt(Schema.Number),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Strings),
  resume_reason: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type StreamEventMessage = typeof StreamEventMessage.Type

// ---------------------------------------------------------------------------------------------
// system messages
// ---------------------------------------------------------------------------------------------

const system = <const Subtype extends string, Fields extends Schema.Struct.Fields>(
  identifier: string,
  subtype: Subtype,
  fields: Fields
) =>
  struct(identifier, {
    type: Schema.Literal("system"),
    subtype: Schema.Literal(subtype),
    ...fields,
    ...ids
  })

/**
 * `SDKSystemMessage` (`system/init`): the session's configuration, first message of a query.
 *
 * @since 0.1.0
 * @category system messages
 */
export const SystemInit = system("SystemInit", "init", {
  agents: opt(Strings),
  apiKeySource: opt(
    Open(
      "ANTHROPIC_API_KEY",
      "apiKeyHelper",
      "/login managed key",
      "none",
      "user",
      "project",
      "org",
      "temporary",
      "oauth"
    )
  ),
  betas: opt(Strings),
  claude_code_version: opt(Schema.String),
  cwd: opt(Schema.String),
  tools: opt(Strings),
  mcp_servers: opt(Schema.Array(struct("McpServerStatus", {
    name: opt(Schema.String),
    status: opt(Schema.String),
    source: opt(Schema.String)
  }))),
  model: opt(Schema.String),
  permissionMode: opt(PermissionMode),
  slash_commands: opt(Strings),
  terminal_slash_commands: opt(Strings),
  output_style: opt(Schema.String),
  skills: opt(Strings),
  plugins: opt(Schema.Array(struct("PluginInfo", {
    name: opt(Schema.String),
    path: opt(Schema.String),
    version: opt(Schema.String)
  }))),
  plugin_errors: opt(Schema.Array(struct("PluginError", {
    plugin: opt(Schema.String),
    type: opt(Schema.String),
    message: opt(Schema.String),
    path: opt(Schema.String),
    managed_lock: opt(struct("PluginManagedLock", {
      plugin_enabled: opt(Schema.Boolean),
      name: opt(Schema.String),
      marketplace: opt(Schema.String)
    }))
  }))),
  fast_mode_state: opt(FastModeState),
  fast_mode_disabled_reason: opt(FastModeDisabledReason),
  effort: optNull(Open("low", "medium", "high", "xhigh", "max")),
  view_mode: opt(Open("focus", "default")),
  capabilities: opt(Strings)
})

/**
 * @since 0.1.0
 * @category models
 */
export type SystemInit = typeof SystemInit.Type

/**
 * `SDKCompactBoundaryMessage`: the conversation was compacted here.
 *
 * @since 0.1.0
 * @category system messages
 */
export const CompactBoundary = system("CompactBoundary", "compact_boundary", {
  compact_metadata: opt(struct("CompactMetadata", {
    trigger: opt(Open("manual", "auto")),
    pre_tokens: opt(Schema.Number),
    post_tokens: opt(Schema.Number),
    duration_ms: opt(Schema.Number),
    preserved_segment: opt(struct("PreservedSegment", {
      head_uuid: opt(Schema.String),
      anchor_uuid: opt(Schema.String),
      tail_uuid: opt(Schema.String)
    })),
    preserved_messages: opt(struct("PreservedMessages", {
      anchor_uuid: opt(Schema.String),
      uuids: opt(Strings)
    }))
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type CompactBoundary = typeof CompactBoundary.Type

/**
 * `SDKStatusMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const Status = system("Status", "status", {
  status: optNull(Open("compacting", "requesting")),
  permissionMode: opt(PermissionMode),
  compact_result: opt(Open("success", "failed")),
  compact_error: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Status = typeof Status.Type

/**
 * `SDKAPIRetryMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ApiRetry = system("ApiRetry", "api_retry", {
  attempt: opt(Schema.Number),
  max_retries: opt(Schema.Number),
  retry_delay_ms: opt(Schema.Number),
  error_status: optNull(Schema.Number),
  error: opt(AssistantMessageError),
  no_response: opt(struct("ApiRetryNoResponse", {
    waited_ms: opt(Schema.Number),
    retry_wait_ms: opt(Schema.Number)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ApiRetry = typeof ApiRetry.Type

/**
 * `SDKControlRequestProgressMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ControlRequestProgress = system("ControlRequestProgress", "control_request_progress", {
  request_id: opt(Schema.String),
  status: opt(Open("started", "api_retry")),
  attempt: opt(Schema.Number),
  max_retries: opt(Schema.Number),
  retry_delay_ms: opt(Schema.Number),
  error_status: optNull(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ControlRequestProgress = typeof ControlRequestProgress.Type

const refusalFields = {
  original_model: opt(Schema.String),
  request_id: optNull(Schema.String),
  api_refusal_category: optNull(Schema.String),
  api_refusal_explanation: optNull(Schema.String),
  refused_user_message_uuid: optNull(Schema.String),
  content: opt(Schema.String)
}

/**
 * `SDKModelRefusalFallbackMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ModelRefusalFallback = system("ModelRefusalFallback", "model_refusal_fallback", {
  ...refusalFields,
  trigger: opt(Open("refusal")),
  direction: opt(Open("retry", "revert", "sticky")),
  scope: opt(Open("session", "local")),
  fallback_model: opt(Schema.String),
  retracted_message_uuids: opt(Strings)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ModelRefusalFallback = typeof ModelRefusalFallback.Type

/**
 * `SDKModelRefusalNoFallbackMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ModelRefusalNoFallback = system("ModelRefusalNoFallback", "model_refusal_no_fallback", refusalFields)

/**
 * @since 0.1.0
 * @category models
 */
export type ModelRefusalNoFallback = typeof ModelRefusalNoFallback.Type

/**
 * `SDKLocalCommandOutputMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const LocalCommandOutput = system("LocalCommandOutput", "local_command_output", {
  content: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LocalCommandOutput = typeof LocalCommandOutput.Type

const hookFields = {
  hook_id: opt(Schema.String),
  hook_name: opt(Schema.String),
  hook_event: opt(Schema.String)
}

/**
 * `SDKHookStartedMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const HookStarted = system("HookStarted", "hook_started", hookFields)

/**
 * @since 0.1.0
 * @category models
 */
export type HookStarted = typeof HookStarted.Type

/**
 * `SDKHookProgressMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const HookProgress = system("HookProgress", "hook_progress", {
  ...hookFields,
  stdout: opt(Schema.String),
  stderr: opt(Schema.String),
  output: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type HookProgress = typeof HookProgress.Type

/**
 * `SDKHookResponseMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const HookResponse = system("HookResponse", "hook_response", {
  ...hookFields,
  output: opt(Schema.String),
  stdout: opt(Schema.String),
  stderr: opt(Schema.String),
  exit_code: opt(Schema.Number),
  outcome: opt(Open("success", "error", "cancelled"))
})

/**
 * @since 0.1.0
 * @category models
 */
export type HookResponse = typeof HookResponse.Type

/**
 * `SDKPluginInstallMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const PluginInstall = system("PluginInstall", "plugin_install", {
  status: opt(Open("started", "installed", "failed", "completed")),
  name: opt(Schema.String),
  error: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type PluginInstall = typeof PluginInstall.Type

/**
 * `SDKTaskNotificationMessage`: a background task finished.
 *
 * @since 0.1.0
 * @category system messages
 */
export const TaskNotification = system("TaskNotification", "task_notification", {
  task_id: opt(Schema.String),
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  status: opt(Open("completed", "failed", "stopped")),
  reason: opt(Open("worker_restart")),
  output_file: opt(Schema.String),
  summary: opt(Schema.String),
  usage: opt(TaskUsage),
  resource_links: opt(Schema.Array(struct("McpResourceLink", {
    uri: opt(Schema.String),
    name: opt(Schema.String),
    title: opt(Schema.String),
    description: opt(Schema.String),
    mimeType: opt(Schema.String),
    size: opt(Schema.Number),
    annotations: opt(OpaqueObject)
  }))),
  skip_transcript: opt(Schema.Boolean),
  ambient: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskNotification = typeof TaskNotification.Type

/**
 * `SDKTaskStartedMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const TaskStarted = system("TaskStarted", "task_started", {
  task_id: opt(Schema.String),
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  description: opt(Schema.String),
  subagent_type: opt(Schema.String),
  is_backgrounded: opt(Schema.Boolean),
  spawn_depth: opt(Schema.Number),
  parent_task_id: opt(Schema.String),
  task_type: opt(Schema.String),
  workflow_name: opt(Schema.String),
  prompt: opt(Schema.String),
  skip_transcript: opt(Schema.Boolean),
  ambient: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskStarted = typeof TaskStarted.Type

/**
 * `SDKTaskUpdatedMessage`: a patch to a task's state.
 *
 * @since 0.1.0
 * @category system messages
 */
export const TaskUpdated = system("TaskUpdated", "task_updated", {
  task_id: opt(Schema.String),
  run_id: opt(Schema.String),
  patch: opt(struct("TaskPatch", {
    status: opt(Open("pending", "running", "completed", "failed", "killed", "paused")),
    description: opt(Schema.String),
    end_time: opt(Schema.Number),
    total_paused_ms: opt(Schema.Number),
    error: opt(Schema.String),
    is_backgrounded: opt(Schema.Boolean)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskUpdated = typeof TaskUpdated.Type

/**
 * `SDKTaskProgressMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const TaskProgress = system("TaskProgress", "task_progress", {
  task_id: opt(Schema.String),
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  description: opt(Schema.String),
  subagent_type: opt(Schema.String),
  usage: opt(TaskUsage),
  last_tool_name: opt(Schema.String),
  summary: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskProgress = typeof TaskProgress.Type

/**
 * `SDKBackgroundTasksChangedMessage`: the full list of background tasks (replaces the previous).
 *
 * @since 0.1.0
 * @category system messages
 */
export const BackgroundTasksChanged = system("BackgroundTasksChanged", "background_tasks_changed", {
  tasks: opt(Schema.Array(struct("BackgroundTask", {
    task_id: opt(Schema.String),
    run_id: opt(Schema.String),
    task_type: opt(Schema.String),
    subagent_type: opt(Schema.String),
    description: opt(Schema.String),
    parent_task_id: opt(Schema.String),
    ambient: opt(Schema.Boolean)
  })))
})

/**
 * @since 0.1.0
 * @category models
 */
export type BackgroundTasksChanged = typeof BackgroundTasksChanged.Type

/**
 * `SDKThinkingTokensMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ThinkingTokens = system("ThinkingTokens", "thinking_tokens", {
  estimated_tokens: opt(Schema.Number),
  estimated_tokens_delta: opt(Schema.Number),
  user_message_uuid: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ThinkingTokens = typeof ThinkingTokens.Type

/**
 * `SDKSessionStateChangedMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const SessionStateChanged = system("SessionStateChanged", "session_state_changed", {
  state: opt(Open("idle", "running", "requires_action"))
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStateChanged = typeof SessionStateChanged.Type

/**
 * `SDKWorkerShuttingDownMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const WorkerShuttingDown = system("WorkerShuttingDown", "worker_shutting_down", {
  reason: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type WorkerShuttingDown = typeof WorkerShuttingDown.Type

/**
 * `SDKCommandsChangedMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const CommandsChanged = system("CommandsChanged", "commands_changed", {
  commands: opt(Schema.Array(struct("SlashCommand", {
    name: opt(Schema.String),
    description: opt(Schema.String),
    argumentHint: opt(Schema.String),
    aliases: opt(Strings),
    builtin: opt(Schema.Boolean)
  })))
})

/**
 * @since 0.1.0
 * @category models
 */
export type CommandsChanged = typeof CommandsChanged.Type

/**
 * `SDKNotificationMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const Notification = system("Notification", "notification", {
  key: opt(Schema.String),
  text: opt(Schema.String),
  priority: opt(Open("low", "medium", "high", "immediate")),
  color: opt(Schema.String),
  timeout_ms: opt(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Notification = typeof Notification.Type

/**
 * `SDKFilesPersistedEvent`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const FilesPersisted = system("FilesPersisted", "files_persisted", {
  files: opt(Schema.Array(struct("PersistedFile", {
    filename: opt(Schema.String),
    file_id: opt(Schema.String)
  }))),
  failed: opt(Schema.Array(struct("FailedFile", {
    filename: opt(Schema.String),
    error: opt(Schema.String)
  }))),
  processed_at: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type FilesPersisted = typeof FilesPersisted.Type

/**
 * `SDKMemoryRecallMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const MemoryRecall = system("MemoryRecall", "memory_recall", {
  mode: opt(Open("select", "synthesize")),
  memories: opt(Schema.Array(struct("RecalledMemory", {
    path: opt(Schema.String),
    scope: opt(Open("personal", "team", "organization")),
    content: opt(Schema.String)
  })))
})

/**
 * @since 0.1.0
 * @category models
 */
export type MemoryRecall = typeof MemoryRecall.Type

/**
 * `SDKElicitationCompleteMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const ElicitationComplete = system("ElicitationComplete", "elicitation_complete", {
  mcp_server_name: opt(Schema.String),
  elicitation_id: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitationComplete = typeof ElicitationComplete.Type

/**
 * `SDKPermissionDeniedMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const PermissionDenied = system("PermissionDenied", "permission_denied", {
  tool_name: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  agent_id: opt(Schema.String),
  decision_reason_type: opt(Schema.String),
  decision_reason: opt(Schema.String),
  message: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type PermissionDenied = typeof PermissionDenied.Type

/**
 * `SDKMirrorErrorMessage`: a `SessionStore` append failed.
 *
 * @since 0.1.0
 * @category system messages
 */
export const MirrorError = system("MirrorError", "mirror_error", {
  error: opt(Schema.String),
  key: opt(struct("MirrorErrorKey", {
    projectKey: opt(Schema.String),
    sessionId: opt(Schema.String),
    subpath: opt(Schema.String)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type MirrorError = typeof MirrorError.Type

/**
 * `SDKInformationalMessage`.
 *
 * @since 0.1.0
 * @category system messages
 */
export const Informational = system("Informational", "informational", {
  content: opt(Schema.String),
  level: opt(Open("info", "notice", "suggestion", "warning")),
  tool_use_id: opt(Schema.String),
  prevent_continuation: opt(Schema.Boolean),
  tag: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Informational = typeof Informational.Type

/**
 * `SDKSessionWritesLostMessage`: the disk filled up and writes were dropped.
 *
 * @since 0.1.0
 * @category system messages
 */
export const SessionWritesLost = system("SessionWritesLost", "session_writes_lost", {
  error_code: opt(Open("ENOSPC", "EDQUOT")),
  lost: opt(Schema.Array(Open("transcript", "global_config"))),
  transcript_session_ids: opt(Strings)
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionWritesLost = typeof SessionWritesLost.Type

// ---------------------------------------------------------------------------------------------
// other declared messages
// ---------------------------------------------------------------------------------------------

/**
 * `SDKToolProgressMessage`: a tool is still running.
 *
 * @since 0.1.0
 * @category messages
 */
export const ToolProgress = struct("ToolProgress", {
  type: Schema.Literal("tool_progress"),
  tool_use_id: opt(Schema.String),
  tool_name: opt(Schema.String),
  parent_tool_use_id: optNull(Schema.String),
  elapsed_time_seconds: opt(Schema.Number),
  task_id: opt(Schema.String),
  ...ids,
  heartbeat: opt(Schema.Boolean),
  subagent_type: opt(Schema.String),
  subagent_retry: opt(struct("SubagentRetry", {
    agent_id: opt(Schema.String),
    attempt: opt(Schema.Number),
    max_retries: opt(Schema.Number),
    retry_delay_ms: opt(Schema.Number),
    error_status: optNull(Schema.Number),
    error_category: opt(Schema.String)
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolProgress = typeof ToolProgress.Type

/**
 * `SDKAuthStatusMessage`.
 *
 * @since 0.1.0
 * @category messages
 */
export const AuthStatus = struct("AuthStatus", {
  type: Schema.Literal("auth_status"),
  isAuthenticating: opt(Schema.Boolean),
  output: opt(Strings),
  error: opt(Schema.String),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type AuthStatus = typeof AuthStatus.Type

/**
 * `SDKToolUseSummaryMessage`.
 *
 * @since 0.1.0
 * @category messages
 */
export const ToolUseSummary = struct("ToolUseSummary", {
  type: Schema.Literal("tool_use_summary"),
  summary: opt(Schema.String),
  preceding_tool_use_ids: opt(Strings),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolUseSummary = typeof ToolUseSummary.Type

/**
 * `SDKRateLimitInfo`.
 *
 * @since 0.1.0
 * @category supporting types
 */
export const RateLimitInfo = struct("RateLimitInfo", {
  status: opt(Open("allowed", "allowed_warning", "rejected")),
  resetsAt: opt(Schema.Number),
  rateLimitType: opt(
    Open("five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "seven_day_overage_included", "overage")
  ),
  utilization: opt(Schema.Number),
  overageStatus: opt(Open("allowed", "allowed_warning", "rejected")),
  overageResetsAt: opt(Schema.Number),
  overageDisabledReason: opt(Open(
    "overage_not_provisioned",
    "org_level_disabled",
    "org_level_disabled_until",
    "out_of_credits",
    "seat_tier_level_disabled",
    "member_level_disabled",
    "seat_tier_zero_credit_limit",
    "group_zero_credit_limit",
    "member_zero_credit_limit",
    "org_service_level_disabled",
    "no_limits_configured",
    "fetch_error",
    "unknown"
  )),
  isUsingOverage: opt(Schema.Boolean),
  overageInUse: opt(Schema.Boolean),
  overageEnabled: opt(Schema.Boolean),
  surpassedThreshold: opt(Schema.Number),
  limitScope: opt(Open("service", "channel", "group_pool")),
  errorCode: opt(Open("credits_required")),
  canUserPurchaseCredits: opt(Schema.Boolean),
  hasChargeableSavedPaymentMethod: opt(Schema.Boolean)
})

/**
 * `SDKRateLimitEvent`.
 *
 * @since 0.1.0
 * @category messages
 */
export const RateLimitEvent = struct("RateLimitEvent", {
  type: Schema.Literal("rate_limit_event"),
  rate_limit_info: opt(RateLimitInfo),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type RateLimitEvent = typeof RateLimitEvent.Type

/**
 * `SDKPromptSuggestionMessage`.
 *
 * @since 0.1.0
 * @category messages
 */
export const PromptSuggestion = struct("PromptSuggestion", {
  type: Schema.Literal("prompt_suggestion"),
  suggestion: opt(Schema.String),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type PromptSuggestion = typeof PromptSuggestion.Type

/**
 * `SDKConversationResetMessage`: the conversation restarted (`/clear`, plan-mode exit, …).
 *
 * @since 0.1.0
 * @category messages
 */
export const ConversationReset = struct("ConversationReset", {
  type: Schema.Literal("conversation_reset"),
  new_conversation_id: opt(Schema.String),
  ...ids,
  trigger: opt(Open("clear", "plan_mode_exit", "fresh_session", "onboarding")),
  user_message_uuid: opt(Schema.String),
  timestamp: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ConversationReset = typeof ConversationReset.Type

// ---------------------------------------------------------------------------------------------
// runtime frames outside the declared union
// ---------------------------------------------------------------------------------------------

/**
 * `system/post_turn_summary` (forwarded by the SDK, not declared in its d.ts; field types
 * inferred from the CLI: `needs_action` is kept opaque).
 *
 * @since 0.1.0
 * @category runtime frames
 */
export const PostTurnSummary = system("PostTurnSummary", "post_turn_summary", {
  summarizes_uuid: opt(Schema.String),
  status_category: opt(Schema.String),
  status_detail: opt(Schema.String),
  needs_action: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category models
 */
export type PostTurnSummary = typeof PostTurnSummary.Type

/**
 * `system/task_summary` (forwarded by the SDK, not declared; `detail` kept opaque).
 *
 * @since 0.1.0
 * @category runtime frames
 */
export const TaskSummary = system("TaskSummary", "task_summary", {
  detail: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskSummary = typeof TaskSummary.Type

/**
 * `system/session_metadata` (forwarded by the SDK, not declared; `metadata.artifacts` kept
 * opaque).
 *
 * @since 0.1.0
 * @category runtime frames
 */
export const SessionMetadata = system("SessionMetadata", "session_metadata", {
  metadata: opt(struct("SessionMetadataValue", { artifacts: opt(Schema.Unknown) }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionMetadata = typeof SessionMetadata.Type

/**
 * `SDKActiveGoalMessage`: declared in the d.ts but not a member of `SDKMessage`; the SDK
 * forwards it.
 *
 * @since 0.1.0
 * @category runtime frames
 */
export const ActiveGoal = struct("ActiveGoal", {
  type: Schema.Literal("active_goal"),
  value: optNull(struct("ActiveGoalValue", {
    condition: opt(Schema.String),
    iterations: opt(Schema.Number),
    set_at: opt(Schema.Number),
    tokens_at_start: opt(Schema.Number),
    last_reason: opt(Schema.String)
  })),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type ActiveGoal = typeof ActiveGoal.Type

/**
 * `autocompact_state` (forwarded by the SDK, not declared; field types inferred from the CLI's
 * field names).
 *
 * @since 0.1.0
 * @category runtime frames
 */
export const AutocompactState = struct("AutocompactState", {
  type: Schema.Literal("autocompact_state"),
  value: optNull(struct("AutocompactStateValue", {
    enabled: opt(Schema.Boolean),
    effective_window: opt(Schema.Number),
    threshold: opt(Schema.Number),
    enforced: opt(Schema.Boolean),
    source: opt(Schema.String)
  })),
  ...ids
})

/**
 * @since 0.1.0
 * @category models
 */
export type AutocompactState = typeof AutocompactState.Type

// ---------------------------------------------------------------------------------------------
// unions
// ---------------------------------------------------------------------------------------------

/**
 * A message of a `type` (or `type`/`subtype`) this version does not know, or of a known one
 * with an unexpected shape. Every field is preserved.
 *
 * @since 0.1.0
 * @category unions
 */
export const UnknownSdkMessage = struct("UnknownSdkMessage", {
  type: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type UnknownSdkMessage = typeof UnknownSdkMessage.Type

/**
 * The 41 declared shapes of `SDKMessage` (user replay before user).
 *
 * @since 0.1.0
 * @category unions
 */
export const DeclaredSdkMessage = Schema.Union(
  AssistantMessage,
  UserMessageReplay,
  UserMessage,
  ResultSuccess,
  ResultError,
  SystemInit,
  StreamEventMessage,
  CompactBoundary,
  Status,
  ApiRetry,
  ControlRequestProgress,
  ModelRefusalFallback,
  ModelRefusalNoFallback,
  LocalCommandOutput,
  HookStarted,
  HookProgress,
  HookResponse,
  PluginInstall,
  ToolProgress,
  AuthStatus,
  TaskNotification,
  TaskStarted,
  TaskUpdated,
  TaskProgress,
  BackgroundTasksChanged,
  ThinkingTokens,
  SessionStateChanged,
  WorkerShuttingDown,
  CommandsChanged,
  Notification,
  FilesPersisted,
  ToolUseSummary,
  MemoryRecall,
  RateLimitEvent,
  ElicitationComplete,
  PermissionDenied,
  PromptSuggestion,
  MirrorError,
  Informational,
  ConversationReset,
  SessionWritesLost
).annotations({ identifier: "DeclaredSdkMessage", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type DeclaredSdkMessage = typeof DeclaredSdkMessage.Type

/**
 * The frames the SDK forwards without declaring them in `SDKMessage`.
 *
 * @since 0.1.0
 * @category unions
 */
export const RuntimeFrame = Schema.Union(PostTurnSummary, TaskSummary, SessionMetadata, ActiveGoal, AutocompactState)
  .annotations({ identifier: "RuntimeFrame", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type RuntimeFrame = typeof RuntimeFrame.Type

/**
 * Every known message: the declared shapes and the runtime frames (no Unknown member).
 *
 * @since 0.1.0
 * @category unions
 */
export const KnownSdkMessage = Schema.Union(...DeclaredSdkMessage.members, ...RuntimeFrame.members)
  .annotations({ identifier: "KnownSdkMessage", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type KnownSdkMessage = typeof KnownSdkMessage.Type

/**
 * Any message the SDK yields: the known messages, then {@link UnknownSdkMessage} last.
 *
 * @since 0.1.0
 * @category unions
 */
export const SdkMessage = Schema.Union(...KnownSdkMessage.members, UnknownSdkMessage)
  .annotations({ identifier: "SdkMessage", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SdkMessage = typeof SdkMessage.Type

// ---------------------------------------------------------------------------------------------
// known (type, subtype) table and guards
// ---------------------------------------------------------------------------------------------

/**
 * One known `(type, subtype)` pair; `subtype` is absent for variants without one.
 *
 * @since 0.1.0
 * @category models
 */
export interface KnownKind {
  readonly type: string
  readonly subtype?: string
  readonly identifier: string
}

const literalsOf = (ast: SchemaAST.AST, name: string): ReadonlyArray<string> => {
  if (!SchemaAST.isTypeLiteral(ast)) return []
  const property = ast.propertySignatures.find((p) => p.name === name)
  if (property === undefined) return []
  const types = SchemaAST.isUnion(property.type) ? property.type.types : [property.type]
  return types.flatMap((t) => SchemaAST.isLiteral(t) && typeof t.literal === "string" ? [t.literal] : [])
}

/**
 * Every known `(type, subtype)` pair, in union order, with the schema's identifier (e.g.
 * `{type: "system", subtype: "init", identifier: "SystemInit"}`). `ResultError` contributes
 * one entry per error subtype; user and user replay share `{type: "user"}`.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_KINDS: ReadonlyArray<KnownKind> = KnownSdkMessage.members.flatMap((member): Array<KnownKind> => {
  const identifier = Option.getOrElse(SchemaAST.getIdentifierAnnotation(member.ast), () => "")
  const subtypes = literalsOf(member.ast, "subtype")
  return literalsOf(member.ast, "type").flatMap((type) =>
    subtypes.length === 0 ? [{ type, identifier }] : subtypes.map((subtype) => ({ type, subtype, identifier }))
  )
})

/**
 * The known top-level `type`s.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_TYPES: ReadonlySet<string> = new Set(KNOWN_KINDS.map((kind) => kind.type))

/**
 * The known `subtype`s of `type: "system"`.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set(
  KNOWN_KINDS.flatMap((kind) => kind.type === "system" && kind.subtype !== undefined ? [kind.subtype] : [])
)

const isKnownSdkMessage = Schema.is(KnownSdkMessage)

/**
 * Whether a decoded message matches a known variant (validates the message: a known
 * `type`/`subtype` with an unexpected shape is not known).
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnown = (message: SdkMessage): message is KnownSdkMessage => isKnownSdkMessage(message)

/**
 * Whether a decoded message fell into {@link UnknownSdkMessage}. A plain boolean, not a type
 * predicate: every known variant is also a `{type: string}`, so narrowing on
 * `message is UnknownSdkMessage` would leave `never` in the other branch. Narrow with
 * {@link isKnown} instead.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUnknown = (message: SdkMessage): boolean => !isKnownSdkMessage(message)

// ---------------------------------------------------------------------------------------------
// decoding
// ---------------------------------------------------------------------------------------------

/**
 * Decodes one message, returning an `Either`. Fails only on input that is not an object with
 * a string `type`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode: (
  input: unknown,
  options?: SchemaAST.ParseOptions
) => Either.Either<SdkMessage, ParseResult.ParseError> = Schema.decodeUnknownEither(SdkMessage)

/**
 * Decodes one message, throwing a `ParseError` on failure.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSync: (input: unknown, options?: SchemaAST.ParseOptions) => SdkMessage = Schema
  .decodeUnknownSync(SdkMessage)

/**
 * Decodes one message as an `Effect`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeUnknown = Schema.decodeUnknown(SdkMessage)

/**
 * Decodes one message into a known variant only (an Unknown message is a failure).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeKnown: (
  input: unknown,
  options?: SchemaAST.ParseOptions
) => Either.Either<KnownSdkMessage, ParseResult.ParseError> = Schema.decodeUnknownEither(KnownSdkMessage)

/**
 * Encodes a message back to its wire form, returning an `Either`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode: (
  message: SdkMessage,
  options?: SchemaAST.ParseOptions
) => Either.Either<typeof SdkMessage.Encoded, ParseResult.ParseError> = Schema.encodeEither(SdkMessage)
