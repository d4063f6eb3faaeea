/**
 * The Promise facade over real HTTP, against the Acontext emulator, through both kinds of
 * client:
 * - a duck-typed client over `fetch` (test/utils/fetchClient.ts, shaped like
 *   upstream's `@acontext/acontext` client): what reaches the server, and that its errors are
 *   not retried by acx;
 * - acx's own client (`client: { apiKey, baseUrl, timeout }`): retries of transient failures,
 *   typed `AcontextError`s handed to `onError`.
 *
 * The Promise facade with acx's own HTTP client (`client: { apiKey, baseUrl }`), over real HTTP:
 * its client lives as long as the facade (regression: it was once closed right after being built).
 */
import {
  assistantBlob,
  create,
  MODEL,
  store,
  textBlock,
  userBlob,
  UUID_DEFAULT,
  UUID_FLOW
} from "@acx/fixtures/acontextVectors"
import * as F from "@acx/fixtures/acontextVectors"
import { AcontextError } from "@acx/storage/AcontextError"
import { ClaudeAgentStorage } from "@acx/storage/promise"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import { fetchClient } from "./utils/fetchClient.js"
import { wireCalls } from "./utils/harness.js"
import { ApiError } from "./utils/recordingClient.js"
import { TEXT_OUT, TOOL_RESULT_OUT, TOOL_USE_OUT } from "./utils/shapes.js"

let emulator: AcontextEmulatorHandle

beforeEach(async () => {
  emulator = await startAcontextEmulator()
  vi.spyOn(console, "warn").mockImplementation(() => {})
  vi.spyOn(console, "log").mockImplementation(() => {})
})

afterEach(async () => {
  vi.restoreAllMocks()
  await emulator.close()
})

const connection = () => ({ apiKey: emulator.apiKey, baseUrl: emulator.url })

const statuses = async (route: string) =>
  (await emulator.requests()).filter((r) => r.route === route).map((r) => r.status)

const flow = () => [
  F.systemInit(UUID_FLOW),
  F.userText("What is 1+1?"),
  F.assistant([F.TEXT, F.TOOL_USE]),
  F.userBlocks(F.TOOL_RESULT),
  F.resultMessage(UUID_FLOW)
]

describe("Promise facade with a duck-typed fetch client", () => {
  it("a full flow reaches the server as the upstream vectors' calls", async () => {
    const errors: Array<unknown> = []
    {
      await using storage = new ClaudeAgentStorage({
        client: fetchClient(emulator.url, emulator.apiKey),
        onError: (error) => void errors.push(error)
      })
      for (const message of flow()) await storage.saveMessage(message)
      expect(storage.sessionId).toBe(UUID_FLOW)
    }
    expect(errors.map(String)).toStrictEqual([])
    expect(wireCalls(await emulator.requests())).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, userBlob(textBlock("What is 1+1?"))),
      store(UUID_FLOW, assistantBlob(TEXT_OUT, TOOL_USE_OUT), { model: MODEL }),
      store(UUID_FLOW, userBlob(TOOL_RESULT_OUT))
    ])
    expect((await emulator.messages(UUID_FLOW)).map((m) => [m.role, m.meta])).toStrictEqual([
      ["user", {}],
      ["assistant", { model: MODEL }],
      ["user", {}]
    ])
  })

  it("its errors are not retried by acx: a 503 goes straight to onError, the next message is stored", async () => {
    await emulator.setFaults([{ route: "storeMessage", status: 503, times: 1 }])
    const errors: Array<{ error: unknown; blob: unknown }> = []
    const storage = new ClaudeAgentStorage({
      client: fetchClient(emulator.url, emulator.apiKey),
      sessionId: UUID_DEFAULT,
      onError: (error, blob) => void errors.push({ error, blob })
    })
    await storage.saveMessage(F.userText("one"))
    await storage.saveMessage(F.userText("two"))
    await storage.close()
    expect(errors).toHaveLength(1)
    expect(errors[0]!.error).toBeInstanceOf(ApiError)
    expect(errors[0]!.error).toMatchObject({ statusCode: 503 })
    expect(errors[0]!.blob).toStrictEqual(userBlob(textBlock("one")))
    expect(await statuses("storeMessage")).toStrictEqual([503, 201])
    expect((await emulator.messages(UUID_DEFAULT)).map((m) => m.parts)).toStrictEqual([[{ type: "text", text: "two" }]])
  })

  it("a 409 for another project's UUID: \"exists\", continue; the store is then rejected (400) and reported", async () => {
    const other = fetchClient(emulator.url, emulator.otherProjectApiKey)
    await other.sessions.create({ useUuid: UUID_DEFAULT })
    const errors: Array<unknown> = []
    const storage = new ClaudeAgentStorage({
      client: fetchClient(emulator.url, emulator.apiKey),
      sessionId: UUID_DEFAULT,
      onError: (error) => void errors.push(error)
    })
    await storage.saveMessage(F.userText("one"))
    await storage.close()
    expect(await statuses("createSession")).toStrictEqual([201, 409])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ statusCode: 400, code: 500, message: "database error" })
  })
})

describe("Promise facade with acx's own client ({ apiKey, baseUrl })", () => {
  it("the facade is built without any request, and closes cleanly", async () => {
    const storage = new ClaudeAgentStorage({ client: connection() })
    await storage.saveMessage(F.systemInit(UUID_FLOW))
    expect(storage.sessionId).toBe(UUID_FLOW)
    await storage.close()
    expect(await emulator.requests()).toStrictEqual([])
  })

  it("stores a message (create + store reach the server)", async () => {
    const errors: Array<unknown> = []
    const storage = new ClaudeAgentStorage({ client: connection(), onError: (error) => void errors.push(error) })
    await storage.saveMessage(F.systemInit(UUID_FLOW))
    await storage.saveMessage(F.userText("What is 1+1?"))
    await storage.close()
    expect(errors.map(String)).toStrictEqual([])
    expect(wireCalls(await emulator.requests())).toStrictEqual([
      create(UUID_FLOW),
      store(UUID_FLOW, userBlob(textBlock("What is 1+1?")))
    ])
  })

  // acx's client retries transient failures; onError is not called.
  it("retries a transient 503: stored once, onError not called", async () => {
    await emulator.setFaults([{ route: "storeMessage", status: 503, times: 1 }])
    const errors: Array<unknown> = []
    const storage = new ClaudeAgentStorage({
      client: connection(),
      sessionId: UUID_DEFAULT,
      onError: (error) => void errors.push(error)
    })
    await storage.saveMessage(F.userText("Hi"))
    await storage.close()
    expect(errors.map(String)).toStrictEqual([])
    expect(await statuses("storeMessage")).toStrictEqual([503, 201])
  })

  it("store-then-502 and store-then-drop: each message stored once, no onError; the same user message saved twice is stored once", async () => {
    await emulator.setFaults([
      { route: "storeMessage", status: 502, afterEffect: true, everyNth: 2 },
      { route: "storeMessage", drop: true, afterEffect: true, everyNth: 3 }
    ])
    const errors: Array<unknown> = []
    const storage = new ClaudeAgentStorage({
      client: connection(),
      sessionId: UUID_DEFAULT,
      onError: (error) => void errors.push(error)
    })
    const prompt = { ...F.userText("same"), uuid: "0c0c0c0c-0000-4000-8000-000000000001" }
    for (const message of [F.userText("a"), prompt, F.assistant([F.TEXT]), prompt, F.userText("b")]) {
      await storage.saveMessage(message)
    }
    await storage.close()
    expect(errors.map(String)).toStrictEqual([])
    expect((await emulator.messages(UUID_DEFAULT)).map((m) => m.parts[0]?.text)).toStrictEqual([
      "a",
      "same",
      "Hello, world!",
      "b"
    ])
    expect((await emulator.requests()).filter((r) => r.faulted).length).toBeGreaterThanOrEqual(2)
  })

  it("a permanent failure: onError gets the typed AcontextError (BadRequest 400) and the blob", async () => {
    await emulator.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
    const errors: Array<{ error: unknown; blob: unknown }> = []
    const storage = new ClaudeAgentStorage({
      client: connection(),
      sessionId: UUID_DEFAULT,
      onError: (error, blob) => void errors.push({ error, blob })
    })
    await storage.saveMessage(F.userText("one"))
    await storage.close()
    expect(errors).toHaveLength(1)
    expect(errors[0]!.error).toBeInstanceOf(AcontextError)
    expect((errors[0]!.error as AcontextError).reason).toBe("BadRequest")
    expect(errors[0]!.blob).toStrictEqual(userBlob(textBlock("one")))
  })

  // The error handed to onError never contains the API key, even when serialised.
  it("the error handed to onError never reveals the API key when serialised", async () => {
    await emulator.setFaults([{ route: "createSession", drop: true }])
    const serialised: Array<string> = []
    const storage = new ClaudeAgentStorage({
      client: connection(),
      sessionId: UUID_DEFAULT,
      onError: (error) => void serialised.push(JSON.stringify(error))
    })
    await storage.saveMessage(F.userText("one"))
    await storage.close()
    expect(serialised).toHaveLength(1)
    expect(serialised[0]).toContain("Transport")
    expect(serialised[0]).not.toContain(emulator.apiKey)
  })
})
