/**
 * The memory page's routes over real HTTP on a memory database seeded by the memory package's
 * own functions (the hook, then `completeBatch`), with sessions of the fixture config directory:
 * the overview, the timeline (paged, filtered, searched) with the exact turn of each
 * observation, a session's summary, the context byte-equal to the hook's, the observer's spend,
 * live observations over SSE, forget and restore (soft delete and undo) with the guard's origin
 * check and strict bodies, masking; and without a database: the "absent" answer and no file.
 */
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryAdmin from "@acx/memory/MemoryAdmin"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemorySeed from "@acx/memory/MemorySeed"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as MemoryView from "../src/MemoryView.js"
import { startServer, type TestServer } from "./utils/server.js"

const SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"

let t: TestServer
let crud: MemorySeed.SessionTurns
let other: MemorySeed.SessionTurns

beforeAll(async () => {
  t = await startServer()
  const bySource = (name: string) => t.built.sessions.find((session) => session.source.endsWith(name))!
  crud = MemorySeed.turnsOf(bySource("crud.jsonl"))
  other = MemorySeed.turnsOf(bySource("subagent.jsonl"))
  await MemorySeed.seedBatch(t.acxHome, crud, {
    events: ["prompt"],
    observations: [
      MemorySeed.observation({ title: "Joke file asked for", narrative: "The user wants a joke in a file" })
    ]
  })
  await MemorySeed.seedBatch(t.acxHome, crud, {
    events: ["tool"],
    observations: [
      MemorySeed.observation({
        type: "change",
        title: "Wrote the joke file",
        narrative: `A markdown file with a title; the key ${SECRET} was seen`,
        filesModified: [String((crud.tool.input as { file_path: string }).file_path)]
      })
    ],
    summary: true,
    costUsd: 0.0123
  })
  await MemorySeed.seedBatch(t.acxHome, other, {
    events: ["prompt", "tool"],
    observations: [
      MemorySeed.observation({ type: "discovery", title: "Zebra subagent answers", narrative: "It said hello" })
    ],
    costUsd: 0.5
  })
})
afterAll(() => t.close())

const get = async <A>(pathAndQuery: string): Promise<A> => {
  const response = await t.request(pathAndQuery)
  expect(response.status, pathAndQuery).toBe(200)
  return (await response.json()) as A
}

const post = (pathAndQuery: string, body: unknown, headers: Record<string, string> = { origin: t.origin }) =>
  t.request(pathAndQuery, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const titles = async (query: string) =>
  (await get<MemoryView.ObservationsResponse>(`/api/memory/observations?${query}`)).observations.map((o) => o.title)

describe("memory routes", () => {
  it("GET /api/memory: projects with counts, the worker and queue, the budget settings", async () => {
    const body = await get<MemoryView.MemoryOverview>("/api/memory")
    if (!body.exists) throw new Error("the memory should exist")
    expect(body.database).toBe(MemoryConfig.paths(t.acxHome).database)
    expect(body.projects.find((p) => p.project === crud.cwd)).toMatchObject({ observations: 2, summaries: 1 })
    expect(body.counts).toMatchObject({ observations: 3, summaries: 1, prompts: 2 })
    expect(body.queue).toEqual({ pending: 0, done: 4, failed: 0 })
    expect(body.settings).toMatchObject({ contextTokens: 1500, dailyBudgetUsd: 1 })
    // what observes, in the words of `acx memory status` (no worker runs here: the file's settings)
    const status = await Effect.runPromise(
      MemoryAdmin.status(MemoryConfig.paths(t.acxHome), MemoryConfig.load(t.acxHome)).pipe(
        Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(t.acxHome).database))
      )
    )
    const credentials = MemoryAdmin.observerCredentials(MemoryConfig.paths(t.acxHome), process.env)
    expect(body.worker.observer).toBe(MemoryAdmin.modelLine(status, MemoryConfig.load(t.acxHome).config, credentials))
  })

  it("the timeline: newest first, by project, paged, each observation with the exact turn it came from", async () => {
    expect(await titles("")).toEqual(["Zebra subagent answers", "Wrote the joke file", "Joke file asked for"])
    const page = await get<MemoryView.ObservationsResponse>(
      `/api/memory/observations?project=${encodeURIComponent(crud.cwd)}&limit=1`
    )
    expect(page.observations.map((o) => o.title)).toEqual(["Wrote the joke file"])
    // the tool call's id, as the session page addresses it
    expect(page.observations[0]!.from).toEqual({
      sessionId: crud.sessionId,
      turn: crud.tool.id,
      kind: "tool",
      label: crud.tool.name
    })
    const next = await get<MemoryView.ObservationsResponse>(
      `/api/memory/observations?project=${encodeURIComponent(crud.cwd)}&limit=1&before=${page.next}`
    )
    expect(next.observations.map((o) => o.title)).toEqual(["Joke file asked for"])
    expect(next.next).toBeNull()
    // a prompt: its user entry found in the transcript by its text and time
    expect(next.observations[0]!.from).toMatchObject({
      sessionId: crud.sessionId,
      turn: crud.prompt.uuid,
      kind: "prompt"
    })
    expect(await titles("type=discovery")).toEqual(["Zebra subagent answers", "Joke file asked for"])
  })

  it("search (FTS) finds an observation by a word in it, with a snippet", async () => {
    const body = await get<MemoryView.ObservationsResponse>("/api/memory/observations?q=zebra")
    expect(body.observations.map((o) => [o.title, o.snippet])).toEqual([[
      "Zebra subagent answers",
      "**Zebra** subagent answers"
    ]])
    expect(await titles(`q=joke&project=${encodeURIComponent(other.cwd)}`)).toEqual([])
  })

  it("refuses a query it cannot use (400)", async () => {
    for (const query of ["limit=0", "limit=abc", "limit=999", "before=x1", "q=%21%21"]) {
      expect((await t.request(`/api/memory/observations?${query}`)).status, query).toBe(400)
    }
  })

  it("masks secrets unless mask=0", async () => {
    const masked = await get<MemoryView.ObservationsResponse>("/api/memory/observations?q=markdown")
    expect(masked.observations[0]!.narrative).toContain("[REDACTED:anthropic-key]")
    expect(JSON.stringify(masked)).not.toContain(SECRET)
    const plain = await get<MemoryView.ObservationsResponse>("/api/memory/observations?q=markdown&mask=0")
    expect(plain.observations[0]!.narrative).toContain(SECRET)
  })

  it("a session's summary and observations; unknown or malformed ids are 404", async () => {
    const body = await get<MemoryView.SessionMemoryResponse>(`/api/memory/session/${crud.sessionId}`)
    expect(body.summaries.map((s) => [s.id, s.completed, s.nextSteps])).toEqual([[
      "S1",
      "the seeding",
      "read the page"
    ]])
    expect(body.observations.map((o) => o.id)).toEqual(["O1", "O2"])
    for (const id of ["nope", "..%2F..%2Fetc", "a.b"]) {
      expect((await t.request(`/api/memory/session/${id}`)).status).toBe(404)
    }
  })

  it("the context is byte-equal to what the hook injects and `acx memory context` prints", async () => {
    const response = await t.request(`/api/memory/context?project=${encodeURIComponent(crud.cwd)}`)
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8")
    const text = await response.text()
    const injected = HookRunner.contextFor(t.acxHome, crud.cwd)
    expect(injected).toContain("Wrote the joke file")
    expect(text).toBe(`${injected}\n`)
    expect(Number(response.headers.get("x-acx-context-tokens"))).toBe(Math.ceil(injected.length / 4))
    expect(response.headers.get("x-acx-context-budget")).toBe("1500")
    expect((await t.request("/api/memory/context?project=relative/dir")).status).toBe(400)
  })

  it("the observer's spend per day against the daily budget", async () => {
    const body = await get<MemoryView.SpendResponse>("/api/memory/spend")
    expect(body.budget).toEqual({ usd: 1, tokens: null })
    expect(body.totals.calls).toBe(2)
    expect(body.totals.costUsd).toBeCloseTo(0.5123, 10)
    expect(body.days.reduce((sum, day) => sum + day.tokens, 0)).toBe(3000)
  })

  it("forget and restore: gone from the timeline, search and context, then back (undo)", async () => {
    const context = await (await t.request(`/api/memory/context?project=${encodeURIComponent(crud.cwd)}`)).text()
    const forgot = await post("/api/memory/forget", { ids: ["O2"] })
    expect(forgot.status).toBe(200)
    expect(await forgot.json()).toEqual({ forgotten: ["O2"] })
    expect(await titles("")).not.toContain("Wrote the joke file")
    expect(await titles("q=markdown")).toEqual([])
    expect(await (await t.request(`/api/memory/context?project=${encodeURIComponent(crud.cwd)}`)).text())
      .not.toContain("Wrote the joke file")
    const restored = await post("/api/memory/restore", { ids: ["O2"] })
    expect(await restored.json()).toEqual({ restored: ["O2"] })
    expect(await (await t.request(`/api/memory/context?project=${encodeURIComponent(crud.cwd)}`)).text()).toBe(context)

    const matching = await post("/api/memory/forget", { filter: { project: other.cwd, query: "zebra" } })
    expect(await matching.json()).toEqual({ forgotten: ["O3"] })
    expect(await titles("q=zebra")).toEqual([])
    await post("/api/memory/restore", { ids: ["O3"] })
    expect(await titles("q=zebra")).toEqual(["Zebra subagent answers"])
  })

  it("refuses writes without the page's origin (403) and bodies it cannot read (400)", async () => {
    expect((await post("/api/memory/forget", { ids: ["O1"] }, {})).status).toBe(403)
    expect((await post("/api/memory/forget", { ids: ["O1"] }, { origin: "http://evil.example" })).status).toBe(403)
    expect((await post("/api/memory/restore", { ids: ["O1"] }, { origin: "null" })).status).toBe(403)
    for (
      const bad of [
        "not json",
        "[]",
        { ids: "O1" },
        { ids: [] },
        { ids: ["P1"] },
        { ids: ["O1"], extra: true },
        { filter: {} },
        { filter: { project: "/x", drop: "table" } },
        { filter: { query: "!!" } }
      ]
    ) {
      const response = await post("/api/memory/forget", bad)
      expect(response.status, JSON.stringify(bad)).toBe(400)
      expect(((await response.json()) as { error: string }).error).not.toBe("")
    }
    expect((await post("/api/memory/restore", { filter: { project: "/x" } })).status).toBe(400)
    // nothing was forgotten by any of them
    expect(await titles("")).toHaveLength(3)
  })

  it("streams new observations over SSE as they are written (fs.watch, no polling)", async () => {
    const abort = new AbortController()
    const response = await t.request("/api/memory/events", { signal: abort.signal })
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let seen = ""
    const first = await reader.read()
    seen += first.value ?? ""
    expect(seen).toContain(": live")
    await MemorySeed.seedBatch(t.acxHome, other, {
      events: [],
      observations: [
        MemorySeed.observation({ title: "Live giraffe arrives", narrative: "written while the page listens" })
      ]
    })
    while (!seen.includes("Live giraffe arrives")) {
      const { done, value } = await reader.read()
      if (done) break
      seen += value
    }
    abort.abort()
    const event = seen.split("\n\n").find((block) => block.includes("Live giraffe arrives"))!
    expect(event).toMatch(/^event: observation\nid: 4\ndata: /)
    const view = JSON.parse(event.split("data: ")[1]!) as MemoryView.ObservationView
    expect(view).toMatchObject({ id: "O4", sessionId: other.sessionId, title: "Live giraffe arrives" })

    // a reconnecting EventSource names the last event it had: what came after it is sent at once
    await MemorySeed.seedBatch(t.acxHome, other, {
      events: [],
      observations: [MemorySeed.observation({ title: "Missed while away", narrative: "written between connections" })]
    })
    const again = new AbortController()
    const resumed = await t.request("/api/memory/events", { signal: again.signal, headers: { "last-event-id": "4" } })
    const resumedReader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader()
    let later = ""
    while (!later.includes("Missed while away")) {
      const { done, value } = await resumedReader.read()
      if (done) break
      later += value
    }
    again.abort()
    expect(later).toContain("id: 5\n")
  })
})

describe("memory routes without a memory database", () => {
  let bare: TestServer
  beforeAll(async () => {
    bare = await startServer()
  })
  afterAll(() => bare.close())

  it("say there is none and how to turn it on, and create nothing", async () => {
    const file = MemoryConfig.paths(bare.acxHome).database
    const overview = await (await bare.request("/api/memory")).json()
    expect(overview).toEqual({ exists: false, database: file, enable: "acx memory install" })
    for (
      const route of ["/api/memory/observations", "/api/memory/spend", "/api/memory/session/abcd", "/api/memory/events"]
    ) {
      const response = await bare.request(route)
      expect(response.status, route).toBe(404)
      expect(((await response.json()) as { error: string }).error).toContain("acx memory install")
    }
    const forget = await bare.request("/api/memory/forget", {
      method: "POST",
      headers: { origin: bare.origin, "content-type": "application/json" },
      body: JSON.stringify({ ids: ["O1"] })
    })
    expect(forget.status).toBe(404)
    const project = path.join(bare.configDir, "somewhere")
    const context = await (await bare.request(`/api/memory/context?project=${encodeURIComponent(project)}`)).text()
    expect(context).toBe(`${HookRunner.contextReport(bare.acxHome, project).text}\n`)
    expect(context).toBe(`(nothing remembered for ${project} yet)\n`)
    expect(fs.existsSync(file)).toBe(false)
  })
})
