/**
 * acx's behaviour decisions for ClaudeAgentStorage (docs/design.md, "Behaviour decisions for
 * ClaudeAgentStorage"), one `describe` per decision that concerns conversion or the decider,
 * titled after its section. The decisions about the error policy and delivery (retries, outbox,
 * duck-typed clients) belong to `@acx/storage` and are not tested here.
 */
import {
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  Decider,
  fromPythonMessage,
  normalizeToolResultContent,
  normalizeToolUseInput
} from "@acx/convert"
import {
  assistant,
  assistantBlob,
  create,
  MODEL,
  pyAssistant,
  pyUserBlocks,
  store,
  streamEvent,
  systemInit,
  TEXT,
  textBlock,
  THINKING,
  userBlob,
  userBlocks,
  userReplay,
  userText,
  UUID_AUTO,
  UUID_DEFAULT,
  UUID_DISCOVERED,
  UUID_SECOND
} from "@acx/fixtures/acontextVectors"
import { describe, expect, it } from "@effect/vitest"
import { Either, HashSet } from "effect"
import { created, existing, failure, run, script, simulate, skipReasons, stored } from "./utils/simulate.js"

const USER_UUID = "0b1c2d3e-0000-4000-8000-0000000000aa"
const OTHER_UUID = "0b1c2d3e-0000-4000-8000-0000000000bb"
const userWithUuid = (text: string, uuid: string) => ({ ...userText(text), uuid, session_id: UUID_DEFAULT })

describe("decision: thinking blocks", () => {
  it("includeThinking defaults to false: thinking dropped, no has_thinking", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [assistant([THINKING, TEXT])]).calls[1]).toStrictEqual(
      store(UUID_DEFAULT, assistantBlob(textBlock("Hello, world!")), { model: MODEL })
    )
  })

  it("includeThinking: a text block + meta.has_thinking (default representation)", () => {
    expect(run({ sessionId: UUID_DEFAULT, includeThinking: true }, [assistant([THINKING, TEXT])]).calls[1])
      .toStrictEqual(
        store(UUID_DEFAULT, assistantBlob(textBlock("Let me reason..."), textBlock("Hello, world!")), {
          model: MODEL,
          has_thinking: true
        })
      )
  })

  it("thinkingFormat: \"native\" with a string signature: a native thinking block", () => {
    const options = { sessionId: UUID_DEFAULT, includeThinking: true, thinkingFormat: "native" as const }
    expect(run(options, [assistant([THINKING, TEXT])]).calls[1]).toStrictEqual(
      store(
        UUID_DEFAULT,
        assistantBlob(
          { type: "thinking", thinking: "Let me reason...", signature: "sig123" },
          textBlock("Hello, world!")
        ),
        { model: MODEL, has_thinking: true }
      )
    )
  })

  it("native with an empty-string signature is still native (it is a string)", () => {
    const block = { type: "thinking", thinking: "t", signature: "" }
    expect(
      claudeAssistantMessageToAnthropicBlob(assistant([block]), { includeThinking: true, thinkingFormat: "native" })
    )
      .toStrictEqual({ blob: assistantBlob({ type: "thinking", thinking: "t", signature: "" }), hasThinking: true })
  })

  it("native without a string signature falls back to text (missing, null, number)", () => {
    for (
      const block of [
        { type: "thinking", thinking: "t" },
        { type: "thinking", thinking: "t", signature: null },
        { type: "thinking", thinking: "t", signature: 5 }
      ]
    ) {
      expect(
        claudeAssistantMessageToAnthropicBlob(assistant([block]), { includeThinking: true, thinkingFormat: "native" })
      ).toStrictEqual({ blob: assistantBlob(textBlock("t")), hasThinking: true })
    }
  })

  it("thinkingFormat: \"native\" without includeThinking: thinking still dropped", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([THINKING, TEXT]), { thinkingFormat: "native" }))
      .toStrictEqual({ blob: assistantBlob(textBlock("Hello, world!")), hasThinking: false })
  })

  it("redacted_thinking is kept only with includeThinking and native format", () => {
    const redacted = { type: "redacted_thinking", data: "opaque" }
    const message = assistant([redacted, TEXT])
    expect(claudeAssistantMessageToAnthropicBlob(message, { includeThinking: true, thinkingFormat: "native" }))
      .toStrictEqual({
        blob: assistantBlob({ type: "redacted_thinking", data: "opaque" }, textBlock("Hello, world!")),
        hasThinking: true
      })
    expect(claudeAssistantMessageToAnthropicBlob(message, true)).toStrictEqual({
      blob: assistantBlob(textBlock("Hello, world!")),
      hasThinking: false
    })
  })

  it("thinking in a user message is never kept", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(THINKING))).toBeNull()
  })
})

describe("decision: replay frames", () => {
  it("a replay is stored by default, and its uuid remembered", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userReplay("prompt", USER_UUID)])
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("prompt")))])
    expect(HashSet.toValues(r.state.storedUserUuids)).toStrictEqual([USER_UUID])
  })

  it("a replay of a user message already stored (same uuid) is skipped", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userWithUuid("prompt", USER_UUID), userReplay("prompt", USER_UUID)])
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("prompt")))])
    expect(skipReasons(r)).toStrictEqual([null, "DuplicateReplay"])
  })

  it("a second replay with the same uuid is skipped; one with another uuid is stored", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [
      userReplay("a", USER_UUID),
      userReplay("a", USER_UUID),
      userReplay("b", OTHER_UUID)
    ])
    expect(skipReasons(r)).toStrictEqual([null, "DuplicateReplay", null])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("a"))),
      store(UUID_DEFAULT, userBlob(textBlock("b")))
    ])
  })

  it("a user message (not a replay) whose uuid is already stored is skipped: the same message saved twice is stored once", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [
      userWithUuid("prompt", USER_UUID),
      userWithUuid("prompt", USER_UUID),
      userReplay("prompt", USER_UUID),
      userWithUuid("other", OTHER_UUID)
    ])
    expect(skipReasons(r)).toStrictEqual([null, "DuplicateUser", "DuplicateReplay", null])
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("prompt"))),
      store(UUID_DEFAULT, userBlob(textBlock("other")))
    ])
  })

  it("dedupe is against STORED messages: if the original failed, the replay is stored", () => {
    const r = run(
      { sessionId: UUID_DEFAULT, onError: true },
      [userWithUuid("prompt", USER_UUID), userReplay("prompt", USER_UUID)],
      { storeMessage: script(failure(503), stored) }
    )
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("prompt"))),
      store(UUID_DEFAULT, userBlob(textBlock("prompt")))
    ])
    expect(r.errors).toHaveLength(1)
    expect(HashSet.toValues(r.state.storedUserUuids)).toStrictEqual([USER_UUID])
  })

  it("a replay without a uuid cannot be deduplicated: stored each time", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [userReplay("x"), userReplay("x")]).calls).toHaveLength(3)
  })

  it("replays: \"skip\" drops every replay (as Acontext's TS integration does), other user messages still stored", () => {
    const r = run({ sessionId: UUID_DEFAULT, replays: "skip" }, [
      userReplay("a", USER_UUID),
      userWithUuid("b", OTHER_UUID)
    ])
    expect(skipReasons(r)).toStrictEqual(["ReplaySkipped", null])
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("b")))])
  })
})

describe("decision: session ids", () => {
  it("a non-UUID id in the stream is ignored (Skip InvalidSessionId) and a session is created later", () => {
    const r = run({}, [systemInit("claude-session-123"), userText("Hi")])
    expect(skipReasons(r)).toStrictEqual(["InvalidSessionId", null])
    expect(r.decisions[0]).toStrictEqual(
      Decider.Decision.Skip({
        reason: "InvalidSessionId",
        detail: "system: ignoring non-UUID session_id \"claude-session-123\""
      })
    )
    expect(r.calls).toStrictEqual([create(null), store(UUID_AUTO, userBlob(textBlock("Hi")))])
  })

  it("after a non-UUID id, a later UUID id is adopted", () => {
    const r = run({}, [streamEvent("nope"), systemInit(UUID_DISCOVERED)])
    expect(r.states.map((s) => s.sessionId)).toStrictEqual([null, UUID_DISCOVERED])
  })

  it("an explicit non-UUID sessionId is a typed configuration error, before any call", () => {
    const result = simulate({ sessionId: "sess-1" }, [userText("Hi")])
    expect(Either.isLeft(result)).toBe(true)
    const error = Either.flip(result).pipe(Either.getOrThrow)
    expect(error).toBeInstanceOf(Decider.InvalidSessionId)
    expect(error._tag).toBe("InvalidSessionId")
    expect(error.reason).toBe("NotAUuid")
    expect(error.sessionId).toBe("sess-1")
    expect(error.message).toBe("sessionId must be a UUID (Acontext rejects other ids), got \"sess-1\"")
  })

  it("initialState: explicit UUID (any case) accepted, none → no id, empty string rejected", () => {
    const upper = UUID_DEFAULT.toUpperCase()
    expect(Either.map(Decider.initialState({ sessionId: upper }), (s) => s.sessionId)).toStrictEqual(
      Either.right(upper)
    )
    expect(Either.map(Decider.initialState({ sessionId: null }), (s) => s.sessionId)).toStrictEqual(Either.right(null))
    expect(Either.map(Decider.initialState(), (s) => s.ensured)).toStrictEqual(Either.right(false))
    expect(Either.isLeft(Decider.initialState({ sessionId: "" }))).toBe(true)
  })
})

describe("decision: session creation", () => {
  it("lazy: nothing is created for non-storable or empty messages", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [systemInit(), userText(""), assistant([THINKING]), streamEvent()])
    expect(r.calls).toStrictEqual([])
    expect(r.state.ensured).toBe(false)
  })

  it("200 (idempotent create, existing session) means exists: continue", () => {
    const r = run({ sessionId: UUID_DEFAULT, onError: true }, [userText("Hi")], {
      create: script(existing(UUID_DEFAULT))
    })
    expect(r.calls).toStrictEqual([create(UUID_DEFAULT), store(UUID_DEFAULT, userBlob(textBlock("Hi")))])
    expect(r.errors).toStrictEqual([])
    expect(r.state.ensured).toBe(true)
  })

  it("the id Acontext returns is the one stores use", () => {
    const r = run({}, [userText("Hi")], { create: script(created(UUID_SECOND)) })
    expect(r.calls).toStrictEqual([create(null), store(UUID_SECOND, userBlob(textBlock("Hi")))])
  })

  it("409 means exists: the current id is kept", () => {
    const r = run({}, [systemInit(UUID_DISCOVERED), userText("Hi"), userText("Again")], {
      create: script(failure(409))
    })
    expect(r.calls).toStrictEqual([
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, userBlob(textBlock("Hi"))),
      store(UUID_DISCOVERED, userBlob(textBlock("Again")))
    ])
  })

  it("any other failure: reported, that message is not stored, create is retried on the next one", () => {
    const r = run({ sessionId: UUID_DEFAULT, onError: true }, [userText("one"), userText("two"), userText("three")], {
      create: script(failure(500, "boom"), failure(400, "bad"), created(UUID_DEFAULT))
    })
    expect(r.calls).toStrictEqual([
      create(UUID_DEFAULT),
      create(UUID_DEFAULT),
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(textBlock("three")))
    ])
    expect(r.errors).toStrictEqual([
      { error: { op: "create", status: 500, message: "boom" }, blob: userBlob(textBlock("one")) },
      { error: { op: "create", status: 400, message: "bad" }, blob: userBlob(textBlock("two")) }
    ])
    expect(r.states.map((s) => s.ensured)).toStrictEqual([false, false, true])
  })

  it("a session id discovered after a failed create is used by the retry", () => {
    const r = run({}, [userText("one"), systemInit(UUID_DISCOVERED), userText("two")], {
      create: script(failure(503), created(UUID_DISCOVERED))
    })
    expect(r.calls).toStrictEqual([
      create(null),
      create(UUID_DISCOVERED),
      store(UUID_DISCOVERED, userBlob(textBlock("two")))
    ])
    expect(r.warned).toStrictEqual([{ sessionId: null, error: { op: "create", status: 503, message: "HTTP 503" } }])
  })

  it("once ensured, store failures never trigger another create", () => {
    const r = run({ sessionId: UUID_DEFAULT }, [userText("a"), userText("b")], { storeMessage: script(failure(500)) })
    expect(r.calls.filter((c) => c.call === "create")).toHaveLength(1)
    expect(r.state.ensured).toBe(true)
  })
})

describe("decision: tool_result content", () => {
  const cases: ReadonlyArray<readonly [string, unknown, unknown]> = [
    ["null", null, ""],
    ["undefined", undefined, ""],
    ["string as is", "out", "out"],
    ["empty string as is", "", ""],
    ["array of {text}", [{ text: "a" }, { type: "text", text: "b" }], [textBlock("a"), textBlock("b")]],
    ["array items keep empty text", [{ type: "text", text: "" }], [textBlock("")]],
    ["string items become text items", ["a", "b"], [textBlock("a"), textBlock("b")]],
    [
      "items without text (image, tool_reference, number, null) dropped",
      [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
        { type: "text", text: "kept" },
        { type: "tool_reference", tool_name: "x" },
        5,
        null
      ],
      [textBlock("kept")]
    ],
    ["empty array → \"\"", [], ""],
    ["array with nothing textual → \"\"", [{ type: "image", source: { type: "url", url: "https://x/y.png" } }], ""],
    ["object → JSON text", { a: 1, b: [true] }, "{\"a\":1,\"b\":[true]}"],
    ["number → JSON text", 42, "42"],
    ["boolean → JSON text", false, "false"]
  ]
  for (const [name, input, expected] of cases) {
    it(name, () => {
      expect(normalizeToolResultContent(input)).toStrictEqual(expected)
    })
  }

  it("is_error: true only when truthy", () => {
    const block = (is_error: unknown) => ({ type: "tool_result", tool_use_id: "t", content: "c", is_error })
    expect(claudeUserMessageToAnthropicBlob(userBlocks(block(true), block(1), block("yes")))).toStrictEqual(
      userBlob(
        { type: "tool_result", tool_use_id: "t", content: "c", is_error: true },
        { type: "tool_result", tool_use_id: "t", content: "c", is_error: true },
        { type: "tool_result", tool_use_id: "t", content: "c", is_error: true }
      )
    )
    expect(claudeUserMessageToAnthropicBlob(userBlocks(block(false), block(0), block(null), block("")))).toStrictEqual(
      userBlob(
        { type: "tool_result", tool_use_id: "t", content: "c" },
        { type: "tool_result", tool_use_id: "t", content: "c" },
        { type: "tool_result", tool_use_id: "t", content: "c" },
        { type: "tool_result", tool_use_id: "t", content: "c" }
      )
    )
  })

  it("applied inside user blobs", () => {
    const block = { type: "tool_result", tool_use_id: "t", content: { rows: 2 } }
    expect(claudeUserMessageToAnthropicBlob(userBlocks(block))).toStrictEqual(
      userBlob({ type: "tool_result", tool_use_id: "t", content: "{\"rows\":2}" })
    )
  })
})

describe("decision: tool_use input", () => {
  const cases: ReadonlyArray<readonly [string, unknown, unknown]> = [
    ["object as is", { expr: "1+1" }, { expr: "1+1" }],
    ["empty object as is", {}, {}],
    ["string holding a JSON object → parsed", "{\"a\":{\"b\":1}}", { a: { b: 1 } }],
    ["\"5\" → wrapped", "5", { raw: "5" }],
    ["\"null\" → wrapped", "null", { raw: "null" }],
    ["\"[1]\" → wrapped", "[1]", { raw: "[1]" }],
    ["\"NaN\" → wrapped", "NaN", { raw: "NaN" }],
    ["\"\" → wrapped", "", { raw: "" }],
    ["invalid JSON → wrapped", "{not json", { raw: "{not json" }],
    ["array → wrapped", [1, 2], { raw: [1, 2] }],
    ["number → wrapped", 7, { raw: 7 }],
    ["boolean → wrapped", true, { raw: true }],
    ["null → wrapped", null, { raw: null }],
    ["missing → {}", undefined, {}]
  ]
  for (const [name, input, expected] of cases) {
    it(name, () => {
      expect(normalizeToolUseInput(input)).toStrictEqual(expected)
    })
  }

  it("applied inside assistant blobs; a block without input gets {}", () => {
    const message = assistant([
      { type: "tool_use", id: "a", name: "n", input: "[1]" },
      { type: "tool_use", id: "b", name: "n" }
    ])
    expect(claudeAssistantMessageToAnthropicBlob(message).blob).toStrictEqual(
      assistantBlob(
        { type: "tool_use", id: "a", name: "n", input: { raw: "[1]" } },
        { type: "tool_use", id: "b", name: "n", input: {} }
      )
    )
  })
})

describe("decision: images and documents", () => {
  const base64Image = {
    type: "image",
    source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
    cache_control: { type: "ephemeral" }
  }
  const urlImage = { type: "image", source: { type: "url", url: "https://example.com/a.png" } }
  const base64Doc = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } }
  const urlDoc = { type: "document", source: { type: "url", url: "https://example.com/a.pdf" }, title: "A" }

  it("base64 and url images and documents in user messages are kept as they are", () => {
    expect(claudeUserMessageToAnthropicBlob(userBlocks(textBlock("look"), base64Image, urlImage, base64Doc, urlDoc)))
      .toStrictEqual(userBlob(textBlock("look"), base64Image, urlImage, base64Doc, urlDoc))
  })

  it("other sources (file, text, missing) are dropped", () => {
    const fileImage = { type: "image", source: { type: "file", file_id: "f_1" } }
    const textDoc = { type: "document", source: { type: "text", media_type: "text/plain", data: "hi" } }
    const noSource = { type: "image" }
    expect(claudeUserMessageToAnthropicBlob(userBlocks(fileImage, textDoc, noSource))).toBeNull()
  })

  it("images and documents in assistant messages are dropped", () => {
    expect(claudeAssistantMessageToAnthropicBlob(assistant([base64Image, urlDoc, TEXT])).blob).toStrictEqual(
      assistantBlob(textBlock("Hello, world!"))
    )
  })

  it("other unknown block types are skipped", () => {
    const unknown = [
      { type: "server_tool_use", id: "s", name: "web_search", input: {} },
      { type: "web_search_tool_result", tool_use_id: "s", content: [] },
      { type: "search_result", source: "x", title: "t", content: [] },
      { type: "container_upload", file_id: "f" }
    ]
    expect(claudeUserMessageToAnthropicBlob(userBlocks(...unknown))).toBeNull()
    expect(claudeAssistantMessageToAnthropicBlob(assistant(unknown)).blob).toBeNull()
  })

  it("an image-only user message is stored (not skipped as empty)", () => {
    expect(run({ sessionId: UUID_DEFAULT }, [userBlocks(urlImage)]).calls).toStrictEqual([
      create(UUID_DEFAULT),
      store(UUID_DEFAULT, userBlob(urlImage))
    ])
  })
})

describe("decision: Python-SDK shapes", () => {
  it("a Python dict yields the same blob and meta as the TS shape", () => {
    const py = pyAssistant([{ thinking: "hmm", signature: "s" }, { text: "hi" }, { id: "t", name: "n", input: "{}" }], {
      error: "rate_limit"
    })
    const ts = assistant([
      { type: "thinking", thinking: "hmm", signature: "s" },
      { type: "text", text: "hi" },
      { type: "tool_use", id: "t", name: "n", input: "{}" }
    ], { error: "rate_limit" })
    for (
      const options of [{}, { includeThinking: true }, { includeThinking: true, thinkingFormat: "native" as const }]
    ) {
      expect(run({ sessionId: UUID_DEFAULT, ...options }, [py]).calls).toStrictEqual(
        run({ sessionId: UUID_DEFAULT, ...options }, [ts]).calls
      )
    }
    expect(run({ sessionId: UUID_DEFAULT, includeThinking: true, thinkingFormat: "native" }, [py]).calls[1])
      .toStrictEqual(
        store(
          UUID_DEFAULT,
          assistantBlob({ type: "thinking", thinking: "hmm", signature: "s" }, textBlock("hi"), {
            type: "tool_use",
            id: "t",
            name: "n",
            input: {}
          }),
          { model: MODEL, has_thinking: true, error: "rate_limit" }
        )
      )
  })

  it("typed blocks inside a Python message (an image) are passed through unchanged", () => {
    const image = { type: "image", source: { type: "url", url: "https://example.com/a.png" } }
    expect(fromPythonMessage(pyUserBlocks({ text: "see" }, image))).toStrictEqual(
      userBlocks(textBlock("see"), image)
    )
    expect(claudeUserMessageToAnthropicBlob(pyUserBlocks({ text: "see" }, image))).toStrictEqual(
      userBlob(textBlock("see"), image)
    )
  })
})
