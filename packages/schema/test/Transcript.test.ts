import { Transcript, TranscriptEnvelope, TranscriptLine } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

const decode = Schema.decodeUnknownSync(Transcript.TranscriptEntry)

const decodeRight = (value: unknown): Transcript.TranscriptEntry => {
  const result = TranscriptLine.decodeLine(JSON.stringify(value), 1)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

const SID = "258c7280-ae70-4798-800f-63464d01a85d"

const chain = {
  parentUuid: "7c642069-996d-4ae0-a61c-554b35d36fb6",
  isSidechain: false,
  userType: "external",
  entrypoint: "cli",
  cwd: "/srv/app",
  sessionId: SID,
  version: "2.1.330",
  gitBranch: "main",
  timestamp: "2026-02-11T21:18:41.543Z"
}

describe("Transcript entries", () => {
  it("decodes the entry shapes the SDK reads or writes", () => {
    const entries: ReadonlyArray<[unknown, unknown]> = [
      [{ type: "custom-title", customTitle: "Fix failing foo test", sessionId: SID }, Transcript.CustomTitleEntry],
      [
        { type: "custom-title", customTitle: "T", sessionId: SID, uuid: "u", timestamp: chain.timestamp },
        Transcript.CustomTitleEntry
      ],
      [{ type: "ai-title", aiTitle: "Fix failing foo test", sessionId: SID }, Transcript.AiTitleEntry],
      [{ type: "tag", tag: "", sessionId: SID }, Transcript.TagEntry],
      [
        { type: "last-prompt", lastPrompt: "go", sessionId: SID, leafUuid: null, explicit: true },
        Transcript.LastPromptEntry
      ],
      [{ type: "summary", summary: "Fixing tests", leafUuid: "u" }, Transcript.SummaryEntry],
      [{ type: "relocated", sessionId: SID, relocatedCwd: "/new/cwd" }, Transcript.RelocatedEntry],
      [{ type: "continued-in", continuedInSessionId: SID }, Transcript.ContinuedInEntry],
      [
        {
          type: "file-history-snapshot",
          messageId: "m",
          snapshot: { messageId: "m", trackedFileBackups: {}, timestamp: chain.timestamp },
          isSnapshotUpdate: false
        },
        Transcript.FileHistorySnapshotEntry
      ],
      [
        { type: "queue-operation", operation: "remove", reason: "absorbed_mid_turn", deliveryId: "d", sessionId: SID },
        Transcript.QueueOperationEntry
      ],
      [
        {
          type: "derived-from",
          v: 1,
          sessionId: SID,
          sessions: [{ type: "claude_code_session", id: SID, via: "fork" }]
        },
        Transcript.DerivedFromEntry
      ],
      [{ type: "tools-used", sessionId: SID, tools: ["Read", "Bash"] }, Transcript.ToolsUsedEntry],
      [
        { type: "agent_metadata", agentType: "Explore", toolUseId: "toolu_00", description: "look around" },
        Transcript.AgentMetadataEntry
      ],
      [{ type: "history-suppression" }, Transcript.HistorySuppressionEntry]
    ]
    for (const [entry, schema] of entries) {
      const decoded = decodeRight(entry)
      expect(decoded).toStrictEqual(entry)
      expect(Schema.is(schema as Schema.Schema<unknown>)(decoded)).toBe(true)
      expect(Transcript.isKnown(decoded)).toBe(true)
    }
  })

  it("decodes user and assistant turns with their content blocks", () => {
    const user = {
      ...chain,
      type: "user",
      uuid: "u1",
      promptId: "p1",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      toolUseResult: { type: "text", file: { filePath: "/a", content: "x", numLines: 1, startLine: 1, totalLines: 1 } },
      sourceToolAssistantUUID: "a1"
    }
    const assistant = {
      ...chain,
      type: "assistant",
      uuid: "a1",
      requestId: "req_1",
      message: {
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: "claude-opus-4-6",
        content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" } }],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 }
      }
    }
    const u = decodeRight(user)
    const a = decodeRight(assistant)
    expect(u).toStrictEqual(user)
    expect(a).toStrictEqual(assistant)
    expect(Schema.is(Transcript.UserEntry)(u)).toBe(true)
    expect(Schema.is(Transcript.AssistantEntry)(a)).toBe(true)
    expect(Transcript.isConversationEntry(u)).toBe(true)
    // string content and a compact summary
    const summary = {
      ...chain,
      type: "user",
      uuid: "u2",
      isCompactSummary: true,
      message: { role: "user", content: "S" }
    }
    expect(Schema.is(Transcript.UserEntry)(decodeRight(summary))).toBe(true)
  })

  it("decodes a compact boundary with camelCase metadata and preserved segments", () => {
    const boundary = {
      ...chain,
      parentUuid: null,
      logicalParentUuid: "7c642069-996d-4ae0-a61c-554b35d36fb6",
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      isMeta: false,
      level: "info",
      uuid: "b1",
      compactMetadata: {
        trigger: "auto",
        preTokens: 167094,
        postTokens: 9000,
        durationMs: 1200,
        preservedSegment: { headUuid: "h", anchorUuid: "a", tailUuid: "t" },
        preservedMessages: { anchorUuid: "a", uuids: ["x", "y"], allUuids: ["x", "y", "z"] }
      }
    }
    const decoded = decodeRight(boundary)
    expect(decoded).toStrictEqual(boundary)
    expect(Schema.is(Transcript.CompactBoundaryEntry)(decoded)).toBe(true)
  })

  it("keeps system entries open on subtype", () => {
    const cases: ReadonlyArray<[Record<string, unknown>, unknown]> = [
      [
        { subtype: "local_command", content: "<command-name>/cost</command-name>", level: "info" },
        Transcript.LocalCommandEntry
      ],
      [
        {
          subtype: "stop_hook_summary",
          hookCount: 1,
          hookInfos: [{ command: "x.sh" }],
          hookErrors: [],
          preventedContinuation: false,
          stopReason: "",
          hasOutput: true,
          level: "suggestion",
          toolUseID: "t"
        },
        Transcript.StopHookSummaryEntry
      ],
      [{ subtype: "turn_duration", durationMs: 5000, isMeta: false }, Transcript.TurnDurationEntry],
      [
        {
          subtype: "api_error",
          level: "error",
          error: { status: 529 },
          retryInMs: 500,
          retryAttempt: 1,
          maxRetries: 10
        },
        Transcript.ApiErrorEntry
      ],
      [{ subtype: "informational", content: "note", level: "notice" }, Transcript.InformationalEntry],
      [
        { subtype: "microcompact_boundary", microcompactMetadata: { trigger: "auto" } },
        Transcript.MicrocompactBoundaryEntry
      ],
      [{ subtype: "away_summary", content: "while you were away" }, Transcript.OtherSystemEntry],
      // CLIs before 2.0 wrote system entries without a subtype
      [{ content: "Running PostToolUse:Edit...", level: "info", toolUseID: "t" }, Transcript.OtherSystemEntry]
    ]
    for (const [fields, schema] of cases) {
      const entry = { ...chain, type: "system", uuid: "s1", ...fields }
      const decoded = decodeRight(entry)
      expect(decoded).toStrictEqual(entry)
      expect(Schema.is(schema as Schema.Schema<unknown>)(decoded)).toBe(true)
      expect(Transcript.isKnown(decoded)).toBe(true)
    }
  })

  it("decodes progress and attachment entries", () => {
    const progress = {
      ...chain,
      type: "progress",
      uuid: "p1",
      data: { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Read", command: "x" },
      toolUseID: "toolu_1",
      parentToolUseID: "toolu_1"
    }
    const attachment = { ...chain, type: "attachment", uuid: "at1", attachment: { type: "new_file", filename: "a" } }
    expect(Schema.is(Transcript.ProgressEntry)(decodeRight(progress))).toBe(true)
    expect(Schema.is(Transcript.AttachmentEntry)(decodeRight(attachment))).toBe(true)
  })

  // lines of a real Claude Code 2.1.332 run against the model double (the path shortened)
  const USER_2_1_332 =
    `{"parentUuid":null,"isSidechain":false,"promptId":"78d193e0-94b7-490b-93f0-09e3aba805ce","type":"user","message":{"role":"user","content":"greet me"},"uuid":"4ed2cadf-3036-4be1-975d-137594f2c2c5","timestamp":"2026-11-27T16:00:03.299Z","permissionMode":"default","promptSource":"sdk","sentAtMs":1795795203243,"rowSource":"local","turnOrigin":"sdk","turnPosition":{"promptIndex":0,"turnIndex":1},"userType":"external","entrypoint":"sdk-cli","cwd":"/tmp/cap/proj","sessionId":"ece21cc4-881f-4300-ae91-8e7c31d1258b","version":"2.1.332","gitBranch":"HEAD"}`
  const API_REQUEST_2_1_332 =
    `{"type":"api-request","sessionId":"ece21cc4-881f-4300-ae91-8e7c31d1258b","id":"ab725b2c-5866-4bc7-8f40-dd4b30330089","timestamp":"2026-11-27T16:00:03.546Z","version":"2.1.332","querySource":"sdk","shapeHash":"721dbb3b1a4d6ed7863c146e277a683cb6ccacfca4e68ee7eb1e0b264de26ab4","params":{"model":"claude-opus-5-5","betas":["claude-code-20250219","interleaved-thinking-2025-05-14","context-management-2025-06-27","per-turn-control-2026-07-01","mid-conversation-tool-changes-2026-07-01","thinking-token-count-2026-05-13","advanced-tool-use-2025-11-20","effort-2025-11-24","thinking-display-updates-2026-08-18"],"max_tokens":128000,"thinking":{"type":"adaptive","display":"updates"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"medium"}},"thread":{"type":"none"},"echoWireToolInputs":false,"keep":0,"tail":["d7eaf08b88199895cdabe7b4357dcd16f5c94fd06ae8787d05bd081978f7b5df","fd6da345dd4b41b08f246797e7ef63133f0680e6160e9c414a9c1c9a0e3c5cba"],"cacheControl":[{"path":["system",0],"value":{"type":"ephemeral"}},{"path":["system",1],"value":{"type":"ephemeral"}},{"path":["messages",1,"content",0],"value":{"type":"ephemeral"}}],"requestDigest":"3e4180d1a05d827aa9c89b1ea58500b31e4d153569f0820b32051b2c37793d3a"}`

  it("models 2.1.332's rowSource and sentAtMs on user entries and thread on api-request", () => {
    const user = decodeRight(JSON.parse(USER_2_1_332))
    expect(user).toStrictEqual(JSON.parse(USER_2_1_332))
    expect(Transcript.isKnown(user)).toBe(true)
    if (!Schema.is(Transcript.UserEntry)(user)) throw new Error("expected a user entry")
    expect([user.rowSource, user.sentAtMs]).toEqual(["local", 1795795203243])
    const request = decodeRight(JSON.parse(API_REQUEST_2_1_332))
    expect(request).toStrictEqual(JSON.parse(API_REQUEST_2_1_332))
    if (!Schema.is(Transcript.ApiRequestEntry)(request)) throw new Error("expected an api-request entry")
    expect(request.thread).toEqual({ type: "none" })
    // leniently: thread types and row sources of later CLIs are kept
    const continued = { ...JSON.parse(API_REQUEST_2_1_332), thread: { type: "continue", previous_message_id: "msg_1" } }
    expect(Schema.is(Transcript.ApiRequestEntry)(decodeRight(continued))).toBe(true)
    const later = { ...JSON.parse(USER_2_1_332), rowSource: "relay" }
    expect(Transcript.isKnown(decodeRight(later))).toBe(true)
  })

  it("keeps a 2.1.332 field of an unexpected shape, as an Unknown entry", () => {
    for (
      const entry of [
        { ...JSON.parse(USER_2_1_332), sentAtMs: "yesterday" },
        { ...JSON.parse(USER_2_1_332), rowSource: 7 },
        { ...JSON.parse(API_REQUEST_2_1_332), thread: "none" }
      ]
    ) {
      const decoded = decodeRight(entry)
      expect(decoded).toStrictEqual(entry)
      expect(Transcript.isKnown(decoded)).toBe(false)
    }
  })

  it("decodes unknown types as UnknownEntry, keeping every field", () => {
    const entry = { type: "brand-new-entry", uuid: "x", payload: { deep: [1, { a: null }] } }
    const decoded = decodeRight(entry)
    expect(decoded).toStrictEqual(entry)
    expect(Transcript.isUnknown(decoded)).toBe(true)
    expect(Transcript.isKnownType(decoded.type)).toBe(false)
  })

  it("keeps a known type with an unexpected shape as Unknown, detectably", () => {
    const entry = { type: "user", uuid: "x", message: { role: "user", content: 42 } }
    const decoded = decodeRight(entry)
    expect(decoded).toStrictEqual(entry)
    expect(Transcript.isKnownType(decoded.type)).toBe(true)
    expect(Transcript.isKnown(decoded)).toBe(false)
    expect(Transcript.isUnknown(decoded)).toBe(true)
    // the strict reader rejects it, with the known schema's issues
    const strict = Transcript.decodeLineStrict(JSON.stringify(entry), 3)
    if (Either.isRight(strict)) throw new Error("expected an error")
    expect(strict.left.reason).toBe("InvalidEntry")
    expect(strict.left.line).toBe(3)
    expect(strict.left.description).toContain("`user` entry")
    expect(strict.left.description).toContain("message.content")
  })

  it("preserves unknown fields at every level", () => {
    const entry = {
      ...chain,
      type: "assistant",
      uuid: "a1",
      futureTopLevel: true,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "hi", futureBlockField: { x: 1 } }],
        futureMessageField: "m"
      }
    }
    expect(decode(entry)).toStrictEqual(entry)
    const boundary = {
      type: "system",
      subtype: "compact_boundary",
      compactMetadata: { trigger: "manual", preTokens: 1, futureMeta: 1, preservedSegment: { headUuid: "h", x: 2 } }
    }
    expect(decode(boundary)).toStrictEqual(boundary)
  })

  it("lists every type of the CLI's entry-type table, plus agent_metadata", () => {
    const table = [
      "user",
      "assistant",
      "system",
      "attachment",
      "progress",
      "summary",
      "custom-title",
      "ai-title",
      "tag",
      "last-prompt",
      "file-history-snapshot",
      "file-history-delta",
      "content-replacement",
      "continued-in",
      "resume-head-vouch",
      "relocated",
      "derived-from",
      "fork-context-ref",
      "frame-link",
      "data-flow-records",
      "data-flow-incomplete",
      "api-request",
      "api-request-resumed",
      "api-request-shape",
      "api-request-blob",
      "agent-name",
      "agent-color",
      "agent-setting",
      "mode",
      "permission-mode",
      "repl-mode",
      "isolation-latch",
      "session-owner",
      "dev-mods",
      "memory-mode",
      "atis-latch",
      "tools-used",
      "worktree-state",
      "bridge-session",
      "hybrid-organization",
      "history-suppression",
      "pr-link",
      "attribution-snapshot",
      "artifact-comment-monitor",
      "artifact-autoreact-ledger",
      "ended-by-model",
      "cost-state",
      "queue-operation",
      "observer-ref",
      "host-row",
      "agent_metadata"
    ]
    expect([...Transcript.KNOWN_ENTRY_TYPES].sort()).toStrictEqual([...table].sort())
    for (const type of table) {
      const decoded = decodeRight({ type })
      // conversation, title and queue entries need more than `type`; the others decode from `type` alone
      if (!Transcript.isKnown(decoded)) {
        expect([
          "user",
          "assistant",
          "progress",
          "summary",
          "custom-title",
          "ai-title",
          "tag",
          "file-history-snapshot",
          "continued-in",
          "relocated",
          "queue-operation"
        ]).toContain(type)
      }
    }
  })

  it("property: entries round-trip through the union", () => {
    const schemas = [
      Transcript.UserEntry,
      Transcript.AssistantEntry,
      Transcript.CompactBoundaryEntry,
      Transcript.OtherSystemEntry,
      Transcript.ProgressEntry,
      Transcript.QueueOperationEntry,
      Transcript.CustomTitleEntry,
      Transcript.AgentMetadataEntry,
      TranscriptLine.UnknownEntry
    ] as unknown as ReadonlyArray<Schema.Schema<Transcript.TranscriptEntry>>
    for (const schema of schemas) {
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(schema), (entry) => {
          const encoded = Schema.encodeSync(Transcript.TranscriptEntry)(entry)
          expect(decode(encoded)).toStrictEqual(entry)
        }),
        { numRuns: 40 }
      )
    }
  })
})

// What `decodeLine` did before it became shallow: a full decode with the union, which is the
// specification the shallow reader must agree with.
const referenceDecodeLine = (text: string): Either.Either<Transcript.TranscriptEntry, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Either.left("InvalidJson")
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Either.left("NotAnObject")
  try {
    return Either.mapLeft(Schema.decodeUnknownEither(Transcript.TranscriptEntry)(value), () => "InvalidEntry")
  } catch {
    // the full decode throws where a discriminator (`type`, `subtype`, a block's `type`) is an
    // object whose `toString` is not a function: no answer to agree with, only totality to check
    return Either.left("Throws")
  }
}

const expectAgreement = (text: string) => {
  const shallow = TranscriptLine.decodeLine(text, 1)
  // the plain reader (the session index's, without Effect) takes exactly decodeLine's entries
  expect(TranscriptEnvelope.entryOf(text)).toStrictEqual(Either.isRight(shallow) ? shallow.right : undefined)
  const reference = referenceDecodeLine(text)
  if (Either.isLeft(reference)) {
    if (reference.left !== "Throws") expect(Either.isLeft(shallow) && shallow.left.reason).toBe(reference.left)
    return
  }
  if (Either.isLeft(shallow)) throw new Error(`shallow rejected what the schema accepts: ${shallow.left.message}`)
  // JSON-equal, keys in the same order. Not `toStrictEqual`: a full decode writes an explicit
  // `undefined` for a required `Schema.Unknown` key the line lacks (e.g. a tool change's
  // `definition`), where the shallow reader returns the line's object as parsed.
  expect(shallow.right).toEqual(reference.right)
  expect(JSON.stringify(shallow.right)).toBe(JSON.stringify(reference.right))
  expect(Transcript.isKnown(shallow.right)).toBe(Transcript.isKnown(reference.right))
}

describe("TranscriptLine.decodeLine agrees with a full schema decode", () => {
  const envelopeKeys = ["type", "uuid", "timestamp", "subtype", "parentUuid", "message", "sessionId", "data"] as const
  // an entry of any member, with at most two top-level fields replaced by any JSON value
  const perturbed = <A>(arbitrary: FastCheck.Arbitrary<A>) =>
    FastCheck.tuple(
      arbitrary,
      FastCheck.array(FastCheck.tuple(FastCheck.constantFrom(...envelopeKeys), FastCheck.jsonValue()), { maxLength: 2 })
    ).map(([entry, replacements]) => {
      const value: Record<string, unknown> = { ...(entry as Record<string, unknown>) }
      for (const [key, replacement] of replacements) value[key] = replacement
      return JSON.stringify(value)
    })

  it("property: on entries of every member schema, as generated and perturbed", () => {
    for (const member of Transcript.TranscriptEntry.members) {
      const arbitrary = Arbitrary.make(member as Schema.Schema<unknown>)
      FastCheck.assert(
        FastCheck.property(arbitrary, (entry) => expectAgreement(JSON.stringify(entry))),
        { numRuns: 15 }
      )
      FastCheck.assert(FastCheck.property(perturbed(arbitrary), expectAgreement), { numRuns: 15 })
    }
  })

  it("property: on any JSON text and any object with a type", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.oneof(FastCheck.json(), FastCheck.string()), expectAgreement),
      { numRuns: 300 }
    )
    const objects = FastCheck.record({
      type: FastCheck.oneof(FastCheck.constantFrom(...Transcript.KNOWN_ENTRY_TYPES, "other"), FastCheck.jsonValue()),
      uuid: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
      timestamp: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
      message: FastCheck.jsonValue(),
      extra: FastCheck.jsonValue()
    }, { requiredKeys: [] })
    FastCheck.assert(FastCheck.property(objects, (value) => expectAgreement(JSON.stringify(value))), {
      numRuns: 500
    })
  })

  it("keeps fields it does not know, in their order, and returns the parsed object", () => {
    const text = "{\"zeta\":1,\"type\":\"assistant\",\"message\":{\"content\":7},\"alpha\":[{\"b\":1,\"a\":2}]}"
    const result = TranscriptLine.decodeLine(text, 1)
    if (Either.isLeft(result)) throw new Error(result.left.message)
    expect(JSON.stringify(result.right)).toBe(text)
    expect(Transcript.isKnown(result.right)).toBe(false)
  })
})

describe("totality on values Effect's union dispatch cannot read", () => {
  it("reports or classifies a discriminator whose toString is not a function instead of throwing", () => {
    const error = TranscriptLine.decodeLine("{\"type\":{\"toString\":0}}", 1)
    expect(Either.isLeft(error) && error.left.description).toBe("an entry needs a string `type`")
    expect(Either.isLeft(Transcript.decodeEntry({ type: { toString: 0 } }))).toBe(true)
    const nested = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":{\"toString\":0}}]}}"
    const entry = Either.getOrThrow(TranscriptLine.decodeLine(nested, 1))
    expect(Transcript.isKnown(entry)).toBe(false)
    const strict = Transcript.decodeLineStrict(nested, 1)
    expect(Either.isLeft(strict) && strict.left.reason).toBe("InvalidEntry")
  })
})

describe("TranscriptLine.decodeLineStrict", () => {
  it("accepts what matches a known schema, and unknown types", () => {
    const user = { ...chain, type: "user", uuid: "u", message: { role: "user", content: "hi" } }
    const strict = Transcript.decodeLineStrict(JSON.stringify(user), 1)
    expect(Either.getOrThrow(strict)).toStrictEqual(user)
    const other = { type: "brand-new", payload: { x: 1 } }
    expect(Either.getOrThrow(Transcript.decodeLineStrict(JSON.stringify(other), 1))).toStrictEqual(other)
  })

  it("rejects a known type with an unexpected shape, and what decodeLine rejects", () => {
    const badQueueOperation = { type: "queue-operation", operation: 5 }
    const error = Transcript.decodeLineStrict(JSON.stringify(badQueueOperation), 2)
    expect(Either.isLeft(error) && error.left.reason).toBe("InvalidEntry")
    expect(Either.isRight(TranscriptLine.decodeLine(JSON.stringify(badQueueOperation), 2))).toBe(true)
    for (const [text, reason] of [["{", "InvalidJson"], ["[]", "NotAnObject"], ["{\"type\":1}", "InvalidEntry"]]) {
      const result = Transcript.decodeLineStrict(text!, 1)
      expect(Either.isLeft(result) && result.left.reason).toBe(reason)
    }
  })

  it("property: accepts a line iff decodeLine accepts it and it is known or of an unknown type", () => {
    const values = FastCheck.oneof(
      ...[Transcript.UserEntry, Transcript.AssistantEntry, Transcript.ProgressEntry, Transcript.SummaryEntry].map(
        (schema) => Arbitrary.make(schema as Schema.Schema<unknown>)
      ),
      FastCheck.record({
        type: FastCheck.constantFrom("user", "assistant", "summary", "other"),
        uuid: FastCheck.string(),
        message: FastCheck.jsonValue()
      })
    )
    FastCheck.assert(
      FastCheck.property(values, (value) => {
        const text = JSON.stringify(value)
        const lenient = TranscriptLine.decodeLine(text, 1)
        const strict = Transcript.decodeLineStrict(text, 1)
        const expected = Either.isRight(lenient) &&
          (!Transcript.isKnownType(lenient.right.type) || Transcript.isKnown(lenient.right))
        expect(Either.isRight(strict)).toBe(expected)
        if (Either.isRight(strict) && Either.isRight(lenient)) {
          expect(JSON.stringify(strict.right)).toBe(JSON.stringify(lenient.right))
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe("TranscriptLine.decodeLine", () => {
  const errorOf = (text: string, line = 7) => {
    const result = TranscriptLine.decodeLine(text, line)
    if (Either.isRight(result)) throw new Error("expected an error")
    return result.left
  }

  it("reports invalid JSON", () => {
    const error = errorOf("{\"type\":\"user\",", 12)
    expect(error._tag).toBe("TranscriptLineError")
    expect(error.reason).toBe("InvalidJson")
    expect(error.line).toBe(12)
    expect(error.excerpt).toBe("{\"type\":\"user\",")
    expect(error.message).toMatch(/^line 12: InvalidJson: /)
    expect(errorOf("").reason).toBe("InvalidJson")
  })

  it("reports values that are not objects", () => {
    expect(errorOf("[1,2]").reason).toBe("NotAnObject")
    expect(errorOf("[1,2]").description).toBe("expected a JSON object, got an array")
    expect(errorOf("null").description).toBe("expected a JSON object, got null")
    expect(errorOf("42").description).toBe("expected a JSON object, got number")
    expect(errorOf("\"user\"").reason).toBe("NotAnObject")
  })

  it("reports objects that are no entry", () => {
    expect(errorOf("{\"uuid\":\"x\"}").reason).toBe("InvalidEntry")
    expect(errorOf("{\"uuid\":\"x\"}").description).toBe("an entry needs a string `type`")
    expect(errorOf("{\"type\":7}").reason).toBe("InvalidEntry")
    const badUuid = errorOf("{\"type\":\"brand-new\",\"uuid\":5}")
    expect(badUuid.reason).toBe("InvalidEntry")
    expect(badUuid.description).toContain("uuid")
  })

  it("keeps excerpts short", () => {
    const long = JSON.stringify({ uuid: "x".repeat(1000) })
    const error = errorOf(long)
    expect(error.excerpt.length).toBeLessThanOrEqual(121)
    expect(error.excerpt.endsWith("…")).toBe(true)
  })

  it("never throws", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.oneof(FastCheck.string(), FastCheck.json()), (text) => {
        const result = TranscriptLine.decodeLine(text, 1)
        expect(Either.isLeft(result) || Either.isRight(result)).toBe(true)
      }),
      { numRuns: 300 }
    )
  })
})
