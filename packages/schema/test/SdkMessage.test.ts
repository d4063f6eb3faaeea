import { SdkMessage } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"

const S = "4f1c6a8e-2b0d-4d7e-9c31-0a5b6c7d8e9f"
const U = "0dbd2453-1209-4fe9-bd51-4102f64e33df"
const ids = { uuid: U, session_id: S }

const usage = {
  input_tokens: 3,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 20012,
  output_tokens: 1,
  service_tier: "standard"
}

const betaMessage = {
  id: "msg_01HRq7YZE3apPqSHydvG77Ve",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "Hi! I'm ready to help." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage
}

const sys = (subtype: string, fields: Record<string, unknown>) => ({ type: "system", subtype, ...fields, ...ids })

/** One minimal, realistic example per known (type, subtype), with the identifier it must decode to. */
const examples: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["AssistantMessage", { type: "assistant", message: betaMessage, parent_tool_use_id: null, ...ids }],
  [
    "UserMessageReplay",
    {
      type: "user",
      message: { role: "user", content: [{ type: "text", text: "hello" }] },
      parent_tool_use_id: null,
      isReplay: true,
      ...ids
    }
  ],
  [
    "UserMessage",
    {
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "ok", is_error: false }]
      },
      parent_tool_use_id: null,
      tool_use_result: { stdout: "ok", stderr: "", interrupted: false },
      ...ids
    }
  ],
  [
    "ResultSuccess",
    {
      type: "result",
      subtype: "success",
      is_error: false,
      duration_ms: 2995,
      duration_api_ms: 2190,
      num_turns: 1,
      result: "Hi!",
      stop_reason: null,
      total_cost_usd: 0.0106,
      usage: { input_tokens: 3, output_tokens: 24 },
      modelUsage: {
        "claude-sonnet-4-5": {
          inputTokens: 3,
          outputTokens: 24,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0,
          webSearchRequests: 0,
          costUSD: 0.01,
          contextWindow: 200000,
          maxOutputTokens: 64000
        }
      },
      permission_denials: [],
      ...ids
    }
  ],
  ...(["error_during_execution", "error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"]
    .map((subtype) =>
      [
        "ResultError",
        { type: "result", subtype, is_error: true, duration_ms: 1000, num_turns: 10, errors: ["boom"], ...ids }
      ] as const
    )),
  [
    "SystemInit",
    sys("init", {
      cwd: "/repo",
      tools: ["Bash", "Read"],
      mcp_servers: [{ name: "fs", status: "connected" }],
      model: "claude-opus-4-5",
      permissionMode: "acceptEdits",
      apiKeySource: "none",
      claude_code_version: "2.1.330",
      slash_commands: ["compact"],
      output_style: "default",
      skills: [],
      plugins: [{ name: "p", path: "/p" }]
    })
  ],
  [
    "StreamEventMessage",
    {
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      parent_tool_use_id: null,
      ...ids
    }
  ],
  [
    "CompactBoundary",
    sys("compact_boundary", { compact_metadata: { trigger: "auto", pre_tokens: 150000, post_tokens: 9000 } })
  ],
  ["Status", sys("status", { status: "compacting" })],
  [
    "ApiRetry",
    sys("api_retry", { attempt: 1, max_retries: 10, retry_delay_ms: 500, error_status: 529, error: "overloaded" })
  ],
  ["ControlRequestProgress", sys("control_request_progress", { request_id: "req_1", status: "started" })],
  [
    "ModelRefusalFallback",
    sys("model_refusal_fallback", {
      trigger: "refusal",
      direction: "retry",
      original_model: "claude-opus-5",
      fallback_model: "claude-sonnet-5",
      request_id: null,
      content: "Switched model"
    })
  ],
  [
    "ModelRefusalNoFallback",
    sys("model_refusal_no_fallback", { original_model: "claude-opus-5", request_id: "req_2", content: "Refused" })
  ],
  ["LocalCommandOutput", sys("local_command_output", { content: "Total cost: $0.01" })],
  ["HookStarted", sys("hook_started", { hook_id: "h1", hook_name: "Stop", hook_event: "Stop" })],
  [
    "HookProgress",
    sys("hook_progress", {
      hook_id: "h1",
      hook_name: "Stop",
      hook_event: "Stop",
      stdout: "…",
      stderr: "",
      output: "…"
    })
  ],
  [
    "HookResponse",
    sys("hook_response", {
      hook_id: "h1",
      hook_name: "Stop",
      hook_event: "Stop",
      output: "",
      stdout: "",
      stderr: "",
      exit_code: 0,
      outcome: "success"
    })
  ],
  ["PluginInstall", sys("plugin_install", { status: "installed", name: "pyright-lsp" })],
  [
    "ToolProgress",
    {
      type: "tool_progress",
      tool_use_id: "toolu_01",
      tool_name: "Bash",
      parent_tool_use_id: null,
      elapsed_time_seconds: 3,
      ...ids
    }
  ],
  ["AuthStatus", { type: "auth_status", isAuthenticating: true, output: ["Opening browser"], ...ids }],
  [
    "TaskNotification",
    sys("task_notification", {
      task_id: "task-1",
      status: "completed",
      output_file: "/tmp/out",
      summary: "done",
      usage: { total_tokens: 10, tool_uses: 1, duration_ms: 5 }
    })
  ],
  [
    "TaskStarted",
    sys("task_started", {
      task_id: "task-abc",
      tool_use_id: "toolu_01",
      description: "Reticulating splines",
      task_type: "background"
    })
  ],
  ["TaskUpdated", sys("task_updated", { task_id: "task-1", patch: { status: "running" } })],
  [
    "TaskProgress",
    sys("task_progress", {
      task_id: "task-1",
      description: "d",
      usage: { total_tokens: 1, tool_uses: 0, duration_ms: 1 },
      last_tool_name: "Read"
    })
  ],
  [
    "BackgroundTasksChanged",
    sys("background_tasks_changed", { tasks: [{ task_id: "t", task_type: "local_bash", description: "npm test" }] })
  ],
  ["ThinkingTokens", sys("thinking_tokens", { estimated_tokens: 120, estimated_tokens_delta: 20 })],
  ["SessionStateChanged", sys("session_state_changed", { state: "idle" })],
  ["WorkerShuttingDown", sys("worker_shutting_down", { reason: "idle timeout" })],
  [
    "CommandsChanged",
    sys("commands_changed", { commands: [{ name: "compact", description: "Compact", argumentHint: "" }] })
  ],
  ["Notification", sys("notification", { key: "k", text: "Update available", priority: "low" })],
  [
    "FilesPersisted",
    sys("files_persisted", {
      files: [{ filename: "a.txt", file_id: "file_1" }],
      failed: [],
      processed_at: "2026-01-01T00:00:00Z"
    })
  ],
  [
    "ToolUseSummary",
    { type: "tool_use_summary", summary: "Read 3 files", preceding_tool_use_ids: ["toolu_01"], ...ids }
  ],
  ["MemoryRecall", sys("memory_recall", { mode: "select", memories: [{ path: "CLAUDE.md", scope: "personal" }] })],
  [
    "RateLimitEvent",
    {
      type: "rate_limit_event",
      rate_limit_info: { status: "allowed_warning", resetsAt: 1700000000, rateLimitType: "five_hour" },
      ...ids
    }
  ],
  ["ElicitationComplete", sys("elicitation_complete", { mcp_server_name: "srv", elicitation_id: "e1" })],
  [
    "PermissionDenied",
    sys("permission_denied", { tool_name: "Bash", tool_use_id: "toolu_02", message: "Denied by policy" })
  ],
  ["PromptSuggestion", { type: "prompt_suggestion", suggestion: "Run the tests", ...ids }],
  [
    "MirrorError",
    sys("mirror_error", { error: "ECONNRESET", key: { projectKey: "-repo", sessionId: S } })
  ],
  ["Informational", sys("informational", { content: "FYI", level: "info" })],
  ["ConversationReset", { type: "conversation_reset", new_conversation_id: U, trigger: "clear", ...ids }],
  ["SessionWritesLost", sys("session_writes_lost", { error_code: "ENOSPC", lost: ["transcript"] })],
  [
    "PostTurnSummary",
    sys("post_turn_summary", {
      summarizes_uuid: U,
      status_category: "done",
      status_detail: "All tests pass",
      needs_action: false
    })
  ],
  ["TaskSummary", sys("task_summary", { detail: "Ran 3 tools" })],
  ["SessionMetadata", sys("session_metadata", { metadata: { artifacts: [] } })],
  [
    "ActiveGoal",
    {
      type: "active_goal",
      value: { condition: "tests pass", iterations: 1, set_at: 1700000000, tokens_at_start: 100 },
      ...ids
    }
  ],
  [
    "AutocompactState",
    {
      type: "autocompact_state",
      value: { enabled: true, effective_window: 200000, threshold: 0.8, enforced: false, source: "default" },
      ...ids
    }
  ]
]

const identifierOf = (schema: Schema.Schema.Any): string =>
  Option.getOrElse(SchemaAST.getIdentifierAnnotation(schema.ast), () => "?")

/** The first member of the union (in order) that the decoded value satisfies: the one the union picked. */
const memberOf = (value: SdkMessage.SdkMessage): string => {
  const members: ReadonlyArray<Schema.Schema.AnyNoContext> = SdkMessage.SdkMessage.members
  const member = members.find((m) => Schema.is(m)(value))
  return member === undefined ? "none" : identifierOf(member)
}

const decodeRight = (input: unknown): SdkMessage.SdkMessage => {
  const result = SdkMessage.decode(input)
  if (Either.isLeft(result)) throw new Error(ParseResult.TreeFormatter.formatErrorSync(result.left))
  return result.right
}

describe("SdkMessage", () => {
  describe("every known variant", () => {
    it("has an example for every known (type, subtype)", () => {
      const covered = new Set(examples.map(([, input]) => `${input["type"]}/${input["subtype"] ?? ""}`))
      const missing = SdkMessage.KNOWN_KINDS.filter((kind) => !covered.has(`${kind.type}/${kind.subtype ?? ""}`))
      expect(missing).toEqual([])
      expect(SdkMessage.KNOWN_KINDS.length).toBe(49)
      expect(SdkMessage.DeclaredSdkMessage.members.length).toBe(41)
    })

    it.each(examples.map(([identifier, input]) => [identifier, input["subtype"] ?? "", input] as const))(
      "%s %s decodes to its member, unchanged",
      (identifier, _subtype, input) => {
        const decoded = decodeRight(input)
        expect(memberOf(decoded)).toBe(identifier)
        expect(SdkMessage.isKnown(decoded)).toBe(true)
        expect(SdkMessage.isUnknown(decoded)).toBe(false)
        expect(decoded).toEqual(input)
        expect(Either.isRight(SdkMessage.decodeKnown(input))).toBe(true)
      }
    )
  })

  describe("discrimination", () => {
    const user = {
      type: "user",
      message: { role: "user", content: "hi" },
      parent_tool_use_id: null,
      ...ids
    }

    it("replay vs user: isReplay: true picks the replay; its absence (or false) the plain user", () => {
      expect(memberOf(decodeRight({ ...user, isReplay: true }))).toBe("UserMessageReplay")
      expect(memberOf(decodeRight(user))).toBe("UserMessage")
      const notReplay = decodeRight({ ...user, isReplay: false })
      expect(memberOf(notReplay)).toBe("UserMessage")
      expect(notReplay).toEqual({ ...user, isReplay: false })
    })

    it("result success vs error", () => {
      const base = { type: "result", is_error: false, num_turns: 1, ...ids }
      expect(memberOf(decodeRight({ ...base, subtype: "success", result: "ok" }))).toBe("ResultSuccess")
      expect(memberOf(decodeRight({ ...base, subtype: "error_max_turns", errors: [] }))).toBe("ResultError")
      expect(memberOf(decodeRight({ ...base, subtype: "error_during_execution" }))).toBe("ResultError")
    })

    it("frames that omit fields the d.ts requires still decode as their known variant", () => {
      const result = decodeRight({
        type: "result",
        subtype: "error_max_turns",
        duration_ms: 1000,
        duration_api_ms: 500,
        is_error: true,
        num_turns: 10,
        session_id: "session_123",
        stop_reason: null
      })
      expect(memberOf(result)).toBe("ResultError")
      const assistant = decodeRight({
        type: "assistant",
        message: { content: [{ type: "text", text: "Hello" }], model: "<synthetic>" },
        session_id: "test-session",
        error: "authentication_failed"
      })
      expect(memberOf(assistant)).toBe("AssistantMessage")
      const user = decodeRight({ type: "user", message: { content: "Simple string content" } })
      expect(memberOf(user)).toBe("UserMessage")
    })
  })

  describe("unknown messages", () => {
    it("an unknown type decodes to Unknown with every field preserved", () => {
      const input = { type: "brand_new_frame", value: { nested: [1, { a: null }] }, flag: true, ...ids }
      const decoded = decodeRight(input)
      expect(SdkMessage.isUnknown(decoded)).toBe(true)
      expect(memberOf(decoded)).toBe("UnknownSdkMessage")
      expect(decoded).toEqual(input)
      expect(Either.isLeft(SdkMessage.decodeKnown(input))).toBe(true)
    })

    it("an unknown system subtype decodes to Unknown with every field preserved", () => {
      const input = sys("brand_new_subtype", { detail: { x: 1 }, list: ["a"] })
      const decoded = decodeRight(input)
      expect(SdkMessage.isUnknown(decoded)).toBe(true)
      expect(decoded).toEqual(input)
    })

    it("a known type with a shape that does not fit (assistant without message) decodes to Unknown", () => {
      const input = { type: "assistant", ...ids }
      const decoded = decodeRight(input)
      expect(SdkMessage.isUnknown(decoded)).toBe(true)
      expect(decoded).toEqual(input)
    })

    it.each([5, "assistant", null, undefined, [], {}, { type: 5 }, { subtype: "init" }])(
      "input %j fails with a ParseError",
      (input) => {
        const result = SdkMessage.decode(input)
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) expect(ParseResult.isParseError(result.left)).toBe(true)
        expect(() => SdkMessage.decodeSync(input)).toThrow()
      }
    )

    it.effect("decodeUnknown fails in the error channel with a ParseError", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(SdkMessage.decodeUnknown(42))
        expect(error._tag).toBe("ParseError")
        const ok = yield* SdkMessage.decodeUnknown({ type: "prompt_suggestion", suggestion: "x" })
        expect(ok).toEqual({ type: "prompt_suggestion", suggestion: "x" })
      }))
  })

  describe("unknown fields are preserved", () => {
    it("at the top level, inside message, usage, a content block and a tool_result item", () => {
      const assistant = {
        type: "assistant",
        message: {
          ...betaMessage,
          future_field: { a: 1 },
          usage: { ...usage, future_usage: 7 },
          content: [
            { type: "text", text: "x", future_block_field: "b" },
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" }, future: [1] }
          ]
        },
        parent_tool_use_id: null,
        future_top: "t",
        ...ids
      }
      const decoded = decodeRight(assistant)
      expect(memberOf(decoded)).toBe("AssistantMessage")
      expect(decoded).toEqual(assistant)

      const user = {
        type: "user",
        message: {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "text", text: "out", extra: 1 }, { type: "future_item", data: "z" }],
            extra_block: true
          }],
          extra_message: "m"
        },
        origin: { kind: "future-kind", extra: 2 },
        ...ids
      }
      const decodedUser = decodeRight(user)
      expect(memberOf(decodedUser)).toBe("UserMessage")
      expect(decodedUser).toEqual(user)
    })

    it("inside stream events, deltas and nested system payloads", () => {
      const inputs = [
        {
          type: "stream_event",
          event: { type: "content_block_delta", index: 0, delta: { type: "future_delta", x: 1 }, extra: 1 },
          parent_tool_use_id: null
        },
        { type: "stream_event", event: { type: "future_event", payload: { a: 1 } }, parent_tool_use_id: null },
        {
          type: "stream_event",
          event: { type: "message_start", message: { ...betaMessage, content: [], extra: 1 } },
          parent_tool_use_id: null
        },
        sys("compact_boundary", { compact_metadata: { trigger: "auto", pre_tokens: 1, extra: { deep: true } } })
      ]
      for (const input of inputs) {
        const decoded = decodeRight(input)
        expect(SdkMessage.isKnown(decoded)).toBe(true)
        expect(decoded).toEqual(input)
      }
    })

    it("in their original key order (JSON text unchanged)", () => {
      const input = {
        session_id: S,
        extra_first: 1,
        type: "assistant",
        message: { content: [{ text: "x", zz: 1, type: "text" }], model: "m", aa: 2 },
        uuid: U
      }
      expect(JSON.stringify(decodeRight(input))).toBe(JSON.stringify(input))
    })

    it("when a variant schema is used on its own, or nested in a struct without the annotation", () => {
      const input = { type: "prompt_suggestion", suggestion: "x", extra: 1 }
      expect(Schema.decodeUnknownSync(SdkMessage.PromptSuggestion)(input)).toEqual(input)
      const Wrapper = Schema.Struct({ msg: SdkMessage.SdkMessage })
      expect(Schema.decodeUnknownSync(Wrapper)({ msg: input, dropped: 1 })).toEqual({ msg: input })
    })
  })

  describe("encode ∘ decode", () => {
    it.each(examples.map(([identifier, input]) => [identifier, input] as const))(
      "%s round-trips",
      (_identifier, input) => {
        const decoded = decodeRight(input)
        const encoded = SdkMessage.encode(decoded)
        expect(Either.isRight(encoded)).toBe(true)
        if (Either.isRight(encoded)) expect(encoded.right).toEqual(input)
      }
    )
  })
})
