/**
 * The MCP server's JSON-RPC front, pure and property-tested: any string or number id comes back
 * exactly, whatever order the inner server answers in; `server/discover` is answered at once
 * with the 2026-07-28 shape; unknown methods get -32601 under the request's id; lines that are
 * not requests never reach the inner server; the inner server's defect report (an error code
 * where the id belongs) and Effect-specific error fields never reach the client; stateless
 * requests get `resultType`; a cancellation names the inner request.
 */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as McpDispatcher from "../src/McpDispatcher.js"
import * as MemoryMcp from "../src/MemoryMcp.js"

const config = MemoryMcp.dispatcherConfig("9.9.9")

const request = (id: McpDispatcher.RequestId, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

// ids as they can reach the server: a line of JSON has no -0 (it reads back as 0)
const requestId = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((id) => (Object.is(id, -0) ? 0 : id))
)

/** The client's lines through the front, then the inner server answering each (echoing `result: {n}`). */
const roundTrip = (ids: ReadonlyArray<McpDispatcher.RequestId>, answerOrder: (n: number) => ReadonlyArray<number>) => {
  let state = McpDispatcher.initial
  const forwarded: Array<McpDispatcher.JsonObject> = []
  for (const id of ids) {
    const step = McpDispatcher.fromClientLine(config, state, request(id, "ping"))
    expect(step.toClient).toEqual([])
    forwarded.push(...step.toServer)
    state = step.state
  }
  const answers: Array<McpDispatcher.JsonObject> = []
  for (const index of answerOrder(forwarded.length)) {
    const inner = forwarded[index]!
    const step = McpDispatcher.fromServerMessage(state, { jsonrpc: "2.0", id: inner["id"], result: { n: index } })
    answers.push(...step.toClient)
    state = step.state
  }
  return { forwarded, answers, state }
}

describe("McpDispatcher", () => {
  it("property: string and number ids are echoed exactly, in any answer order; the inner server sees only numbers", () => {
    fc.assert(
      fc.property(
        fc.array(requestId, { maxLength: 20 }),
        fc.infiniteStream(fc.nat()),
        (ids, randomness) => {
          const order = (n: number) => {
            const indices = Array.from({ length: n }, (_, i) => i)
            const pick = randomness[Symbol.iterator]()
            for (let i = n - 1; i > 0; i--) {
              const j = pick.next().value! % (i + 1)
              ;[indices[i], indices[j]] = [indices[j]!, indices[i]!]
            }
            return indices
          }
          const { answers, forwarded, state } = roundTrip(ids, order)
          expect(forwarded.every((message) => typeof message["id"] === "number")).toBe(true)
          expect(new Set(forwarded.map((message) => message["id"])).size).toBe(ids.length)
          expect(answers).toHaveLength(ids.length)
          for (const answer of answers) {
            const n = (answer["result"] as { n: number }).n
            expect(answer["id"]).toStrictEqual(ids[n])
          }
          expect(state.pending.size).toBe(0)
        }
      )
    )
  })

  it("answers server/discover itself, under the request's id, with the 2026-07-28 result", () => {
    const id = "server-discover-probe-1"
    const step = McpDispatcher.fromClientLine(config, McpDispatcher.initial, request(id, "server/discover", {}))
    expect(step.toServer).toEqual([])
    expect(step.toClient).toEqual([{
      jsonrpc: "2.0",
      id,
      result: {
        resultType: "complete",
        supportedVersions: ["2026-07-28", "2025-06-18", "2025-03-26", "2024-11-05"],
        capabilities: { tools: {} },
        instructions: expect.stringContaining("search_sessions"),
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "acx-memory", version: "9.9.9" } }
      }
    }])
  })

  it("property: the early answer (before the server loads) is the front's own discover answer, and only for discover", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          requestId.map((id) => request(id, "server/discover", {})),
          fc.string(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
          requestId.map((id) => request(id, "tools/list", { note: "server/discover" }))
        ),
        (line) => {
          const early = McpDispatcher.discoverAnswer(config, line)
          const step = McpDispatcher.fromClientLine(config, McpDispatcher.initial, line)
          const isDiscover = step.toServer.length === 0 && step.toClient.length === 1 &&
            "result" in step.toClient[0]! &&
            (step.toClient[0]!["result"] as { resultType?: string }).resultType === "complete"
          expect(early).toEqual(isDiscover ? step.toClient[0] : undefined)
        }
      )
    )
  })

  it("property: a method the inner server does not serve gets -32601 with the request's id", () => {
    const served = new Set([...config.requests, "server/discover"])
    fc.assert(
      fc.property(requestId, fc.string().filter((method) => !served.has(method)), (id, method) => {
        const step = McpDispatcher.fromClientLine(config, McpDispatcher.initial, request(id, method))
        expect(step.toServer).toEqual([])
        expect(step.toClient).toHaveLength(1)
        expect(step.toClient[0]!["id"]).toStrictEqual(id)
        expect((step.toClient[0]!["error"] as { code: number }).code).toBe(-32601)
      })
    )
  })

  it("property: any line is answered or forwarded, never both; what is forwarded is a request the inner server serves", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((value) => JSON.stringify(value))),
        (line) => {
          const step = McpDispatcher.fromClientLine(config, McpDispatcher.initial, line)
          expect(step.toServer.length + step.toClient.length).toBeLessThanOrEqual(1)
          for (const message of step.toServer) {
            const method = message["method"]
            if (typeof method === "string") {
              expect(config.requests.has(method) || config.notifications.has(method)).toBe(true)
            }
            if (typeof method === "string" && "id" in message) expect(typeof message["id"]).toBe("number")
          }
          for (const message of step.toClient) {
            expect(typeof (message["error"] as { code: number }).code).toBe("number")
          }
        }
      )
    )
  })

  it("answers what is not a request with -32700 / -32600 and id null", () => {
    const answer = (line: string) => McpDispatcher.fromClientLine(config, McpDispatcher.initial, line).toClient
    expect(answer("garbage")).toEqual([McpDispatcher.errorResponse(null, -32700, "Parse error: the line is not JSON")])
    expect(answer("[1]")[0]!["error"]).toMatchObject({ code: -32600 })
    expect(answer(JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }))[0]).toMatchObject({
      id: null,
      error: { code: -32600 }
    })
    expect(answer(JSON.stringify({ jsonrpc: "2.0", id: 4 }))[0]).toMatchObject({ id: 4, error: { code: -32600 } })
    expect(answer("   ")).toEqual([])
    // a notification is never answered, known or not
    expect(answer(JSON.stringify({ jsonrpc: "2.0", method: "notifications/unknown" }))).toEqual([])
  })

  it("drops the inner server's defect report and an answer to nothing in flight", () => {
    const defect = { jsonrpc: "2.0", id: -32603, error: { _tag: "Defect", code: 1, message: "A defect occurred" } }
    expect(McpDispatcher.fromServerMessage(McpDispatcher.initial, defect).toClient).toEqual([])
    expect(McpDispatcher.fromServerMessage(McpDispatcher.initial, { jsonrpc: "2.0", id: 5, result: {} }).toClient)
      .toEqual([])
  })

  it("keeps a JSON-RPC error code, makes code 0 an internal error, and drops the Effect Cause", () => {
    const sent = McpDispatcher.fromClientLine(config, McpDispatcher.initial, request("t", "tools/call"))
    const inner = sent.toServer[0]!["id"]
    const answer = (error: unknown) =>
      McpDispatcher.fromServerMessage(sent.state, { jsonrpc: "2.0", id: inner, error }).toClient
    expect(answer({ _tag: "Cause", code: -32602, message: "Tool 'x' not found", data: { _tag: "Fail" } })).toEqual([
      { jsonrpc: "2.0", id: "t", error: { code: -32602, message: "Tool 'x' not found" } }
    ])
    expect(answer({ _tag: "Cause", code: 0, message: "boom", data: { _tag: "Die" } })).toEqual([
      { jsonrpc: "2.0", id: "t", error: { code: -32603, message: "boom" } }
    ])
  })

  it("adds resultType to the results of stateless (2026-07-28) requests only", () => {
    const meta = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }
    const stateless = McpDispatcher.fromClientLine(config, McpDispatcher.initial, request(0, "tools/list", meta))
    const legacy = McpDispatcher.fromClientLine(config, stateless.state, request(1, "tools/list"))
    const answer = (state: McpDispatcher.State, id: unknown) =>
      McpDispatcher.fromServerMessage(state, { jsonrpc: "2.0", id, result: { tools: [] } })
    expect(answer(legacy.state, stateless.toServer[0]!["id"]).toClient).toEqual([
      { jsonrpc: "2.0", id: 0, result: { tools: [], resultType: "complete" } }
    ])
    expect(answer(legacy.state, legacy.toServer[0]!["id"]).toClient).toEqual([
      { jsonrpc: "2.0", id: 1, result: { tools: [] } }
    ])
  })

  it("a cancellation names the request by its inner number; a cancellation of nothing in flight is dropped", () => {
    const sent = McpDispatcher.fromClientLine(config, McpDispatcher.initial, request("call-1", "tools/call"))
    const cancel = (requestId: unknown) =>
      McpDispatcher.fromClientLine(
        config,
        sent.state,
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "user" } })
      ).toServer
    expect(cancel("call-1")).toEqual([{
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: sent.toServer[0]!["id"], reason: "user" }
    }])
    expect(cancel("other")).toEqual([])
  })
})
