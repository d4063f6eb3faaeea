/**
 * The model double over real HTTP (SSE and JSON answers, scripts, predicates, errors, the log),
 * then the real Claude Code CLI against it: a tool call really executed, the transcript written,
 * the usage and cost the CLI reports derived from the double's figures.
 */
import { detectClaude, ModelDouble, realClaude, startModelDouble } from "@acx/testing"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A response body as JSON, for assertions. */
const json = async (response: Response): Promise<any> => await response.json()

const post = (url: string, body: unknown, pathname = "/v1/messages?beta=true") =>
  fetch(`${url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-test" },
    body: JSON.stringify(body)
  })

/** The events of an SSE body, in order. */
const events = (text: string) =>
  text.split("\n\n").filter((chunk) => chunk.trim() !== "").map((chunk) => {
    const [eventLine, dataLine] = chunk.split("\n")
    return { event: eventLine!.slice("event: ".length), data: JSON.parse(dataLine!.slice("data: ".length)) }
  })

const tools = [{ name: "Bash", description: "run", input_schema: { type: "object" } }]
const agentRequest = (text: string, extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  stream: true,
  tools,
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  ...extra
})

describe("ModelDouble over HTTP", () => {
  it("streams text, thinking and a tool call as the Messages API does, with the scripted usage", async () => {
    await using model = await startModelDouble({
      script: [{
        content: [
          { type: "thinking", thinking: "The user wants a listing.", signature: "sig-1" },
          { type: "text", text: "Listing files." },
          { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls -la", description: "list" } }
        ],
        usage: { inputTokens: 120, outputTokens: 33, cacheReadInputTokens: 4000, cacheCreationInputTokens: 7 }
      }]
    })
    const response = await post(model.url, agentRequest("list the files"))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    expect(response.headers.get("request-id")).toMatch(/^req_/)
    const stream = events(await response.text())
    expect(stream.map((e) => e.event)).toEqual([
      "message_start",
      ...[
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop"
      ],
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
      "message_delta",
      "message_stop"
    ])
    for (const e of stream) expect(e.data.type).toBe(e.event)
    const start = stream[0]!.data.message
    expect(start).toMatchObject({ type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [] })
    expect(start.usage).toMatchObject({
      input_tokens: 120,
      cache_read_input_tokens: 4000,
      cache_creation_input_tokens: 7
    })
    // the deltas of each block join to the block
    const joined = (index: number, field: string) =>
      stream.filter((e) => e.event === "content_block_delta" && e.data.index === index)
        .map((e) => e.data.delta[field] ?? "").join("")
    expect(joined(0, "thinking")).toBe("The user wants a listing.")
    expect(stream.find((e) => e.data.delta?.type === "signature_delta")!.data.delta.signature).toBe("sig-1")
    expect(joined(1, "text")).toBe("Listing files.")
    expect(JSON.parse(joined(2, "partial_json"))).toEqual({ command: "ls -la", description: "list" })
    expect(stream.find((e) => e.event === "content_block_start" && e.data.index === 2)!.data.content_block)
      .toEqual({ type: "tool_use", id: "toolu_1", name: "Bash", input: {} })
    const delta = stream.find((e) => e.event === "message_delta")!.data
    expect(delta.delta.stop_reason).toBe("tool_use")
    expect(delta.usage).toEqual({
      input_tokens: 120,
      output_tokens: 33,
      cache_read_input_tokens: 4000,
      cache_creation_input_tokens: 7
    })
    expect(model.requests()).toHaveLength(1)
    expect(model.requests()[0]!.body["messages"]).toEqual(
      agentRequest("x").messages.map((m) => ({
        ...m,
        content: [{ type: "text", text: "list the files" }]
      }))
    )
  })

  it("answers JSON when stream is false; count_tokens; 404 elsewhere", async () => {
    await using model = await startModelDouble({ script: [{ content: "Plain answer." }] })
    const message = await json(await post(model.url, agentRequest("hi", { stream: false })))
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Plain answer." }],
      stop_reason: "end_turn"
    })
    expect(message.usage.input_tokens).toBeGreaterThan(0)
    const count = await json(await post(model.url, agentRequest("hi"), "/v1/messages/count_tokens"))
    expect(count.input_tokens).toBeGreaterThan(0)
    const missing = await fetch(`${model.url}/v1/models`)
    expect(missing.status).toBe(404)
    expect((await json(missing)).type).toBe("error")
    expect(model.requests().map((r) => r.route)).toEqual(["messages", "count_tokens", "unknown"])
  })

  it("matches steps in order and by predicate; side calls get a short text; an exhausted script is a 400", async () => {
    await using model = await startModelDouble({
      script: [
        { when: ModelDouble.lastMessageHasToolResult, reply: { content: "after the tool" }, times: Infinity },
        { content: [{ type: "tool_use", name: "Bash", input: { command: "true" } }] },
        { when: ModelDouble.systemMentions("memory agent"), reply: { content: "<observation/>" } }
      ]
    })
    const text = async (body: unknown) => {
      const stream = events(await (await post(model.url, body)).text())
      return stream.filter((e) => e.event === "content_block_start").map((e) => e.data.content_block.type)
    }
    expect(await text(agentRequest("go"))).toEqual(["tool_use"])
    const withResult = agentRequest("go", {
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] }]
    })
    expect(await text(withResult)).toEqual(["text"])
    expect(await text(withResult)).toEqual(["text"]) // times: Infinity
    expect(await text(agentRequest("observe", { system: "You are a memory agent." }))).toEqual(["text"])
    // a side call (no tools) with no step for it
    const side = events(await (await post(model.url, { model: "m", messages: [], stream: true })).text())
    expect(side.find((e) => e.event === "content_block_delta")).toBeDefined()
    // nothing left for an agent request
    const exhausted = await post(model.url, agentRequest("again"))
    expect(exhausted.status).toBe(400)
    expect((await json(exhausted)).error).toMatchObject({ type: "invalid_request_error" })
    expect(model.agentRequests()).toHaveLength(5)
  })

  it("errors on demand (overloaded), a function script, setScript and clearRequests", async () => {
    await using model = await startModelDouble({ script: [ModelDouble.overloaded] })
    const overloaded = await post(model.url, agentRequest("x"))
    expect(overloaded.status).toBe(529)
    expect(await json(overloaded)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" }
    })
    model.setScript((request) => ({ content: `echo: ${ModelDouble.lastUserText(request)}` }))
    model.clearRequests()
    const stream = events(await (await post(model.url, agentRequest("ping"))).text())
    const text = stream.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta.text).join("")
    expect(text).toBe("echo: ping")
    expect(model.requests()).toHaveLength(1)
  })

  it("a script that throws answers 500 and names the error", async () => {
    await using model = await startModelDouble({
      script: () => {
        throw new Error("boom")
      }
    })
    const response = await post(model.url, agentRequest("x"))
    expect(response.status).toBe(500)
    expect((await json(response)).error.message).toContain("boom")
  })
})

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

describe.runIf(claude.available)("the real Claude Code CLI against the double", () => {
  it("runs a tool for real, writes its transcript, and reports the double's usage and a cost", async () => {
    await using model = await startModelDouble({
      script: [
        {
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", name: "Bash", input: { command: "echo real-bash-ran > proof.txt && cat proof.txt" } }
          ],
          usage: { inputTokens: 1200, outputTokens: 40, cacheReadInputTokens: 300 }
        },
        {
          when: ModelDouble.lastMessageHasToolResult,
          reply: { content: "The command printed real-bash-ran.", usage: { inputTokens: 1300, outputTokens: 12 } }
        }
      ]
    })
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-claude-"))
    const cli = await realClaude({ baseUrl: model.url })
    const run = await cli.run({ prompt: "Check the proof", cwd, allowedTools: ["Bash"], model: "claude-sonnet-4-5" })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(fs.readFileSync(path.join(cwd, "proof.txt"), "utf8")).toBe("real-bash-ran\n")
    const toolResult = run.messages.find((m) => m.type === "user")
    expect(JSON.stringify(toolResult)).toContain("real-bash-ran")
    const result = run.messages.at(-1)!
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "The command printed real-bash-ran." })
    expect(result["usage"]).toMatchObject({
      input_tokens: 2500,
      output_tokens: 52,
      cache_read_input_tokens: 300
    })
    expect(result["total_cost_usd"]).toBeGreaterThan(0)
    // the transcript, where Claude Code keeps it
    const projects = path.join(run.configDir, "projects")
    const files = fs.readdirSync(projects, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl"))
    expect(files).toEqual([expect.stringContaining(`${run.sessionId}.jsonl`)])
    // the double saw the agent loop: the prompt, then the tool result
    const agent = model.agentRequests()
    expect(agent).toHaveLength(2)
    expect(ModelDouble.lastUserText(agent[0]!)).toContain("Check the proof")
    expect(ModelDouble.lastMessageHasToolResult(agent[1]!)).toBe(true)
    fs.rmSync(cwd, { recursive: true, force: true })
    fs.rmSync(run.home, { recursive: true, force: true })
  }, 60_000)
})
