import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type * as SessionView from "../src/SessionView.js"
import type * as UiApi from "../src/UiApi.js"
import { itemsOf, readAll, startServer, type TestServer } from "./utils/server.js"

let t: TestServer
beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t.close())

const withSubagents = () => t.built.sessions.find((session) => session.subagents.length > 0)!

// A session of its own in the fixtures' first project, written by the test.
const plantSession = (id: string, lines: ReadonlyArray<string>) => {
  const project = t.built.sessions[0]!.projectKey
  const file = path.join(t.configDir, "projects", project, `${id}.jsonl`)
  fs.writeFileSync(file, lines.join("\n") + "\n")
  return file
}

const prompt = (uuid: string, text: string) =>
  JSON.stringify({
    type: "user",
    uuid,
    timestamp: "2026-03-01T10:00:00.000Z",
    cwd: "/tmp/planted",
    message: { role: "user", content: text }
  })

describe("GET /api/session/:id", () => {
  it("streams the header, the items and the end as NDJSON, the header first", async () => {
    const session = withSubagents()
    const response = await t.request(`/api/session/${session.sessionId}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/x-ndjson")
    const lines = await readAll(response)
    const header = lines[0]
    expect(header?.type).toBe("header")
    if (header?.type !== "header") return
    expect(header.header).toMatchObject({
      sessionId: session.sessionId,
      projectKey: session.projectKey,
      resume: `claude --resume ${session.sessionId}`,
      masked: true,
      bytes: fs.statSync(session.file).size
    })
    expect(header.header.subagents.map((agent) => agent.agentId).sort()).toEqual(
      session.subagents.map((agent) => agent.agentId).sort()
    )
    const end = lines[lines.length - 1]
    expect(end).toEqual({ type: "end", bytes: fs.statSync(session.file).size, lines: expect.any(Number) })
    // several item batches: the payload arrives in pieces, not as one document
    expect(lines.filter((line) => line.type === "items").length).toBeGreaterThan(1)
    const task = itemsOf(lines).flatMap((item) => "parts" in item ? item.parts : []).find((part) =>
      part.type === "tool" && part.id === "toolu_01VmaERAwhb19LGUwu9GenaK"
    )
    expect(task).toMatchObject({ name: "Task", agentId: "a881341", result: { isError: false } })
  })

  it("gives one figure however many pages and lists fold the session at once, on a cold cache", async () => {
    const session = withSubagents()
    fs.rmSync(path.join(t.acxHome, "cache"), { recursive: true, force: true })
    const figures = await Promise.all([
      ...Array.from({ length: 6 }, async () => {
        const lines = await readAll(await t.request(`/api/session/${session.sessionId}`))
        return lines.flatMap((line) => line.type === "usage" ? [line.usage] : [])
      }),
      ...Array.from({ length: 3 }, async () => {
        const body = (await (await t.request("/api/sessions/usage")).json()) as UiApi.UsageResponse
        const { outlier: _outlier, sessionId: _id, ...figure } = body.sessions.find((row) =>
          row.sessionId === session.sessionId
        )!
        return [figure]
      })
    ])
    expect(figures.every((one) => one.length === 1)).toBe(true)
    for (const one of figures) expect(one[0]).toEqual(figures[0]![0])
    expect(figures[0]![0]!.tokens).toBeGreaterThan(15_000_000)
  })

  it("finds a session by a unique prefix of its id", async () => {
    const session = withSubagents()
    const response = await t.request(`/api/session/${session.sessionId.slice(0, 8)}`)
    expect(response.status).toBe(200)
    const [header] = await readAll(response)
    expect(header?.type === "header" && header.header.sessionId).toBe(session.sessionId)
  })

  it("answers 404 for an unknown id and for paths in the id", async () => {
    for (
      const id of ["00000000-0000-4000-8000-000000000000", "..%2F..%2Fetc%2Fpasswd", "..", "%2e%2e%2fx", "../x"]
    ) {
      const response = await t.request(`/api/session/${id}`)
      expect(response.status, id).toBe(404)
    }
  })

  it("masks secrets unless mask=0", async () => {
    const id = "11111111-1111-4111-8111-111111111111"
    plantSession(id, [prompt("p1", "my key is sk-ant-api03-" + "A".repeat(90))])
    const masked = JSON.stringify(await readAll(await t.request(`/api/session/${id}`)))
    expect(masked).not.toContain("A".repeat(90))
    expect(masked).toContain("REDACTED")
    const open = JSON.stringify(await readAll(await t.request(`/api/session/${id}?mask=0`)))
    expect(open).toContain("A".repeat(90))
  })

  it("does not read a line over the cap: an item says how large, and the line downloads", async () => {
    const id = "22222222-2222-4222-8222-222222222222"
    const huge = JSON.stringify({
      type: "user",
      uuid: "big",
      message: { role: "user", content: "x".repeat(9 * 1024 * 1024) }
    })
    plantSession(id, [prompt("p1", "before"), huge, prompt("p3", "after")])
    const items = itemsOf(await readAll(await t.request(`/api/session/${id}`)))
    expect(items.map((item) => item.kind)).toEqual(["prompt", "too-large", "prompt"])
    expect(items[1]).toMatchObject({ kind: "too-large", line: 2, bytes: Buffer.byteLength(huge) })
    const download = await t.request(`/api/session/${id}/line/2?mask=0`)
    expect(download.status).toBe(200)
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="${id}-line-2.json"`)
    expect(await download.text()).toBe(huge)
    expect((await t.request(`/api/session/${id}/line/9`)).status).toBe(404)
    expect((await t.request(`/api/session/${id}/block?line=2&block=0`)).status).toBe(413)
  })
})

describe("GET /api/session/:id/block", () => {
  it("gives a cut tool result in full, and 404 for a block that is not there", async () => {
    const session = withSubagents()
    const items = itemsOf(await readAll(await t.request(`/api/session/${session.sessionId}`)))
    const cut =
      items.flatMap((item) => "parts" in item ? item.parts : []).flatMap((part) =>
        part.type === "tool" && part.result !== undefined && part.result.text.size > part.result.text.text.length
          ? [part.result]
          : []
      )[0]
    expect(cut).toBeDefined()
    const { block, line } = cut!.ref
    const response = await t.request(`/api/session/${session.sessionId}/block?line=${line}&block=${block}`)
    expect(response.status).toBe(200)
    const body = (await response.json()) as { text: string }
    expect(body.text.length).toBe(cut!.text.size)
    expect(body.text.startsWith(cut!.text.text)).toBe(true)
    expect((await t.request(`/api/session/${session.sessionId}/block?line=${line}&block=99`)).status).toBe(404)
    expect((await t.request(`/api/session/${session.sessionId}/block?line=x&block=0`)).status).toBe(400)
  })

  it("serves a subagent's items and blocks only for a subagent the index lists", async () => {
    const session = withSubagents()
    const lines = await readAll(await t.request(`/api/session/${session.sessionId}/subagent/a881341`))
    expect(itemsOf(lines).some((item) => item.kind === "assistant")).toBe(true)
    const response = await t.request(`/api/session/${session.sessionId}/block?line=1&block=-1&agent=a881341`)
    expect(((await response.json()) as { text: string }).text).toContain("a881341")
    expect((await t.request(`/api/session/${session.sessionId}/subagent/..%2F..%2Fx`)).status).toBe(404)
    expect((await t.request(`/api/session/${session.sessionId}/block?line=1&block=-1&agent=../x`)).status).toBe(404)
  })
})

describe("GET /api/session/:id/events", () => {
  it("sends a line appended to the transcript as an item, and lets go of the watcher when the client goes", async () => {
    const id = "33333333-3333-4333-8333-333333333333"
    const file = plantSession(id, [prompt("p1", "first")])
    const first = await readAll(await t.request(`/api/session/${id}`))
    const end = first[first.length - 1]!
    expect(end.type).toBe("end")
    const from = end.type === "end" ? end.bytes : 0
    const watchers = () => process.getActiveResourcesInfo().filter((name) => name === "FSEventWrap").length
    const before = watchers()

    const abort = new AbortController()
    const response = await t.request(`/api/session/${id}/events?from=${from}`, { signal: abort.signal })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let received = ""
    const nextEvent = async (): Promise<SessionView.SessionLine> => {
      for (;;) {
        const match = /^data: (.*)\n\n/m.exec(received)
        if (match !== null) {
          received = received.slice(match.index + match[0].length)
          return JSON.parse(match[1]!) as SessionView.SessionLine
        }
        const { done, value } = await reader.read()
        if (done) throw new Error("the event stream ended")
        received += value
      }
    }
    // the stream is open once its first bytes (the retry hint) arrived: the watch is set
    while (!received.includes("retry:")) received += (await reader.read()).value ?? ""
    fs.appendFileSync(file, prompt("p2", "appended while watching") + "\n")
    let event = await nextEvent()
    while (event.type !== "items") event = await nextEvent()
    expect(event.items).toMatchObject([{
      kind: "prompt",
      key: "p2",
      parts: [{ text: { text: "appended while watching" } }]
    }])
    expect(watchers()).toBeGreaterThan(before)

    abort.abort()
    await vi.waitFor(() => expect(watchers()).toBe(before))
  })

  it("sends the header's figure in the payload and again as the session and its subagents grow", async () => {
    const id = "55555555-5555-4555-8555-555555555555"
    const file = plantSession(id, [prompt("p1", "first")])
    const first = await readAll(await t.request(`/api/session/${id}`))
    expect(first[0]?.type === "header" && first[0].header.usage).toBeNull()
    expect(first.filter((line) => line.type === "usage")).toEqual([
      { type: "usage", usage: { messages: 1, tokens: 0, costUSD: 0, unpriced: [] } }
    ])
    const end = first[first.length - 1]!
    const abort = new AbortController()
    const response = await t.request(`/api/session/${id}/events?from=${end.type === "end" ? end.bytes : 0}`, {
      signal: abort.signal
    })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let received = ""
    const nextUsage = async (): Promise<number> => {
      for (;;) {
        const match = /^data: (.*)\n\n/m.exec(received)
        if (match !== null) {
          received = received.slice(match.index + match[0].length)
          const line = JSON.parse(match[1]!) as SessionView.SessionLine
          if (line.type === "usage") return line.usage.tokens
          continue
        }
        const { done, value } = await reader.read()
        if (done) throw new Error("the event stream ended")
        received += value
      }
    }
    while (!received.includes("retry:")) received += (await reader.read()).value ?? ""
    const reply = (uuid: string, tokens: number) =>
      JSON.stringify({
        type: "assistant",
        uuid,
        timestamp: "2026-03-01T10:00:01.000Z",
        requestId: `req_${uuid}`,
        message: {
          id: `msg_${uuid}`,
          model: "claude-sonnet-4-5-20250929",
          content: [{ type: "text", text: "ok" }],
          usage: { input_tokens: tokens, output_tokens: 0 }
        }
      }) + "\n"
    fs.appendFileSync(file, reply("a1", 1000))
    expect(await nextUsage()).toBe(1000)
    // a subagent transcript of the session: its tokens count in the session's figure
    const subagents = path.join(path.dirname(file), id, "subagents")
    fs.mkdirSync(subagents, { recursive: true })
    fs.writeFileSync(path.join(subagents, "agent-b77.jsonl"), reply("s1", 234))
    expect(await nextUsage()).toBe(1234)
    abort.abort()
  })

  it("tells the page to reload when the transcript was rewritten shorter", async () => {
    const id = "44444444-4444-4444-8444-444444444444"
    const file = plantSession(id, [prompt("p1", "a long first prompt"), prompt("p2", "second")])
    const response = await t.request(`/api/session/${id}/events?from=${fs.statSync(file).size + 10}`)
    expect(await response.text()).toContain(`data: {"type":"reload"}`)
    expect((await t.request(`/api/session/${id}/events?from=-1`)).status).toBe(400)
  })
})
