/**
 * The page over a store (`acx ui --from`), on SQLite and on the run's Postgres: the fixture
 * config directory imported as `acx sync` imports it, then every route answers as it does over
 * the config directory itself (the list, a session's items and its subagent's, a raw line, a full
 * block, the figures, the costs, the exports), live updates arrive as entries are appended to the
 * store (the session page's items and figure, the list's `changed`), and the search box's route
 * finds, masks and refuses as documented. Over a config directory the search answers from the
 * default sync store when there is one, else says how to make one.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as CostsView from "../src/CostsView.js"
import type * as SessionView from "../src/SessionView.js"
import type * as UiApi from "../src/UiApi.js"
import {
  dropSchemas,
  fillStore,
  itemsOf,
  PG_URL,
  readAll,
  startServer,
  type StoreKind,
  type TestServer
} from "./utils/server.js"

afterAll(() => dropSchemas())

/** An event stream read in the background: its `data:` lines so far, and a wait for one. */
const follow = async (t: TestServer, pathAndQuery: string) => {
  const abort = new AbortController()
  const response = await t.request(pathAndQuery, { signal: abort.signal })
  expect(response.status).toBe(200)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let received = ""
  const events: Array<unknown> = []
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (done) return
      received += value
      for (let match = /^data: (.*)\n\n/m.exec(received); match !== null; match = /^data: (.*)\n\n/m.exec(received)) {
        received = received.slice(match.index + match[0].length)
        events.push(JSON.parse(match[1]!))
      }
    }
  })()
  // open once the retry hint came: the watch is set
  const opened = async () => {
    for (let i = 0; i < 200 && !received.includes("retry:") && events.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  await opened()
  const waitFor = async <A>(find: (events: ReadonlyArray<unknown>) => A | undefined, what: string): Promise<A> => {
    for (let i = 0; i < 600; i++) {
      const found = find(events)
      if (found !== undefined) return found
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`no ${what} within 30 s; events: ${JSON.stringify(events).slice(0, 2000)}`)
  }
  return {
    events,
    waitFor,
    close: async () => {
      abort.abort()
      await pump
    }
  }
}

const prompt = (sessionId: string, uuid: string, text: string) => ({
  type: "user",
  uuid,
  sessionId,
  timestamp: "2026-03-01T10:00:00.000Z",
  cwd: "/home/dev/stored",
  message: { role: "user", content: text }
})

const backends: ReadonlyArray<{ readonly kind: StoreKind; readonly skip: boolean }> = [
  { kind: "sqlite", skip: false },
  { kind: "postgres", skip: PG_URL === undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.skip)(`the page over a ${backend.kind} store`, () => {
    let files: TestServer
    let stored: TestServer
    beforeAll(async () => {
      ;[files, stored] = await Promise.all([startServer(), startServer({ store: backend.kind })])
    }, 120_000)
    afterAll(async () => {
      await Promise.all([files?.close(), stored?.close()])
    })

    const withSubagents = () => stored.built.sessions.find((session) => session.subagents.length > 0)!

    it("lists the same sessions and projects as the config directory", async () => {
      const fromFiles = (await (await files.request("/api/sessions")).json()) as UiApi.SessionsResponse
      const fromStore = (await (await stored.request("/api/sessions")).json()) as UiApi.SessionsResponse
      expect(fromStore.configDir).toMatch(backend.kind === "sqlite" ? /^sqlite:/ : /^postgres:/)
      const shape = (body: UiApi.SessionsResponse) =>
        body.sessions.map(({ file: _f, mtime: _m, size: _s, ...row }) => row).sort((a, b) =>
          a.sessionId < b.sessionId ? -1 : 1
        )
      expect(shape(fromStore)).toEqual(shape(fromFiles))
      expect(fromStore.projects).toEqual(fromFiles.projects)
      // each row says where it comes from, as the origins do
      for (const row of fromStore.sessions) {
        const origin = fromStore.origins[`${row.projectKey}/${row.sessionId}`]
        expect([row.project, row.machine]).toEqual([origin?.project, origin?.machine])
        expect(row.machine).toBeDefined()
      }
    })

    it("shows a session's items, its tool calls and its subagent's transcript as the files show them", async () => {
      for (const session of stored.built.sessions) {
        const [fromFiles, fromStore] = await Promise.all([
          readAll(await files.request(`/api/session/${session.sessionId}`)),
          readAll(await stored.request(`/api/session/${session.sessionId}`))
        ])
        expect(itemsOf(fromStore), session.sessionId).toEqual(itemsOf(fromFiles))
        const header = fromStore[0]
        expect(header?.type === "header" && header.header.subagents).toEqual(
          fromFiles[0]?.type === "header" && fromFiles[0].header.subagents
        )
        // the figure is the same fold's
        expect(fromStore.filter((line) => line.type === "usage")).toEqual(
          fromFiles.filter((line) => line.type === "usage")
        )
        // the cursor is an entry index: as many as were stored
        expect(fromStore[fromStore.length - 1]).toMatchObject({ type: "end" })
      }
      const session = withSubagents()
      const task = itemsOf(await readAll(await stored.request(`/api/session/${session.sessionId}`)))
        .flatMap((item) => "parts" in item ? item.parts : []).find((part) =>
          part.type === "tool" && part.id === "toolu_01VmaERAwhb19LGUwu9GenaK"
        )
      expect(task).toMatchObject({ name: "Task", agentId: "a881341", result: { isError: false } })
      for (const agent of session.subagents) {
        const url = `/api/session/${session.sessionId}/subagent/${agent.agentId}`
        const fromStore = itemsOf(await readAll(await stored.request(url)))
        expect(fromStore.length).toBeGreaterThan(0)
        expect(fromStore).toEqual(itemsOf(await readAll(await files.request(url))))
      }
      expect((await stored.request(`/api/session/${session.sessionId}/subagent/nope`)).status).toBe(404)
      expect((await stored.request(`/api/session/../x`)).status).toBe(404)
    })

    it("downloads a stored entry as its line, and a cut block in full", async () => {
      const session = withSubagents()
      const first = await stored.request(`/api/session/${session.sessionId}/line/1?mask=0`)
      expect(first.status).toBe(200)
      expect(JSON.parse(await first.text())).toEqual(JSON.parse(fs.readFileSync(session.file, "utf8").split("\n")[0]!))
      expect((await stored.request(`/api/session/${session.sessionId}/line/999999`)).status).toBe(404)
      // the first cut text of the session, in full, as over the files
      const items = itemsOf(await readAll(await stored.request(`/api/session/${session.sessionId}`)))
      const cut = JSON.stringify(items).match(/"line":(\d+),"block":(\d+)(?:,"sub":(\d+))?/)
      expect(cut).not.toBeNull()
      if (cut !== null) {
        const query = `line=${cut[1]}&block=${cut[2]}${cut[3] === undefined ? "" : `&sub=${cut[3]}`}`
        const fromStore = await stored.request(`/api/session/${session.sessionId}/block?${query}`)
        expect(fromStore.status).toBe(200)
        expect(await fromStore.json()).toEqual(
          await (await files.request(`/api/session/${session.sessionId}/block?${query}`)).json()
        )
      }
    })

    it("gives the same usage, costs and exports", async () => {
      const usage = async (t: TestServer) =>
        [...((await (await t.request("/api/sessions/usage")).json()) as UiApi.UsageResponse).sessions]
          .sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1))
      expect(await usage(stored)).toEqual(await usage(files))
      const costs = async (t: TestServer) =>
        (await (await t.request("/api/costs?since=2020-01-01&until=2030-01-01")).json()) as CostsView.CostsResponse
      const [fromStore, fromFiles] = await Promise.all([costs(stored), costs(files)])
      expect(fromStore.day.rows).toEqual(fromFiles.day.rows)
      expect(fromStore.sessions).toEqual(fromFiles.sessions)
      const session = withSubagents()
      for (const format of ["markdown", "jsonl"]) {
        const url = `/api/session/${session.sessionId}/export?format=${format}`
        expect(await (await stored.request(url)).text()).toEqual(await (await files.request(url)).text())
      }
    })

    it("the list and the costs read again unchanged, then an append: both show it at once", async () => {
      const costs = async () => (await (await stored.request("/api/costs")).json()) as CostsView.CostsResponse
      const list = async () => (await (await stored.request("/api/sessions")).json()) as UiApi.SessionsResponse
      const [costsBefore, listBefore] = [await costs(), await list()]
      expect(await costs()).toEqual(costsBefore)
      expect(await list()).toEqual(listBefore)
      const sessionId = randomUUID()
      const asked = randomUUID()
      await Effect.runPromise(stored.store!.append({ projectKey: "-home-dev-stored", sessionId }, [
        prompt(sessionId, asked, "an expensive question"),
        {
          type: "assistant",
          uuid: randomUUID(),
          parentUuid: asked,
          sessionId,
          timestamp: "2026-03-01T10:00:01.000Z",
          cwd: "/home/dev/stored",
          requestId: "req_kept_costs",
          message: {
            id: "msg_kept_costs",
            role: "assistant",
            model: "claude-sonnet-4-5-20250929",
            content: [{ type: "text", text: "an expensive answer" }],
            usage: { input_tokens: 90_000_000, output_tokens: 10 }
          }
        }
      ]))
      const listAfter = await list()
      expect(listAfter.sessions.length).toBe(listBefore.sessions.length + 1)
      expect(listAfter.sessions.find((row) => row.sessionId === sessionId)).toMatchObject({
        firstPrompt: "an expensive question"
      })
      const costsAfter = await costs()
      expect(costsAfter.sessions[0]?.sessionId).toBe(sessionId)
      expect(costsAfter.day.total.costUSD).toBeGreaterThan(costsBefore.day.total.costUSD + 100)
    })

    it("searches inside every conversation: hits with the turn, marked snippets, filters", async () => {
      const response = await stored.request("/api/search?q=beads&limit=5")
      expect(response.status).toBe(200)
      expect(response.headers.get("server-timing")).toMatch(/^search;dur=\d+(\.\d)?$/)
      const body = (await response.json()) as UiApi.SearchResponse
      if (!body.indexed) throw new Error(body.message)
      expect(body.hits.length).toBe(5)
      const spotter = stored.built.sessions.find((session) => session.sessionId.startsWith("258c7280"))!
      for (const hit of body.hits) {
        expect(hit).toMatchObject({
          sessionId: spotter.sessionId,
          title: "Implement spotter-gqc",
          project: "spotter-gqc"
        })
        expect(hit.turn).toMatch(/^[0-9a-f-]{36}$/)
        expect(hit.snippet.some((part) => part.match && part.text.toLowerCase() === "beads")).toBe(true)
      }
      const tools = (await (await stored.request("/api/search?q=beads&role=tool")).json()) as UiApi.SearchResponse
      expect(tools.indexed && tools.hits.every((hit) => hit.role === "tool")).toBe(true)
      const elsewhere =
        (await (await stored.request("/api/search?q=beads&project=nothing-here")).json()) as UiApi.SearchResponse
      expect(elsewhere.indexed && elsewhere.hits).toEqual([])
      for (
        const [query, problem] of [
          ["q=-beads", "only excludes words"],
          ["q=", "no word to search for"],
          ["q=beads&role=robot", "role"],
          ["q=beads&limit=0", "limit"],
          ["q=beads&limit=abc", "limit"]
        ] as const
      ) {
        const refused = await stored.request(`/api/search?${query}`)
        expect(refused.status, query).toBe(400)
        expect(((await refused.json()) as { error: string }).error).toContain(problem)
      }
    })

    it("masks a hit before its snippet is cut, and sends hostile text as text", async () => {
      const sessionId = randomUUID()
      const secret = `sk-ant-api03-${"K".repeat(20)}-quokkaword-${"Z".repeat(30)}`
      const hostile = `<img src=x onerror="alert(1)"> marsupial`
      await Effect.runPromise(stored.store!.append({ projectKey: "-home-dev-stored", sessionId }, [
        prompt(sessionId, randomUUID(), `the key ${secret} is here`),
        prompt(sessionId, randomUUID(), hostile)
      ]))
      const masked = await (await stored.request("/api/search?q=quokkaword")).text()
      // the word inside the secret matches, but the window shows the mask, never the secret's tail
      expect(masked).not.toContain("Z".repeat(30))
      expect(masked).not.toContain("K".repeat(20))
      expect(masked).toContain("[REDACTED:anthropic-key]")
      const open = await (await stored.request("/api/search?q=quokkaword&mask=0")).text()
      expect(open).toContain("Z".repeat(30))
      const body = (await (await stored.request("/api/search?q=marsupial")).json()) as UiApi.SearchResponse
      expect(body.indexed && body.hits[0]?.snippet).toEqual([
        { text: `<img src=x onerror="alert(1)"> `, match: false },
        { text: "marsupial", match: true }
      ])
    })

    it("follows a session as entries are appended to the store, and tells the list", async () => {
      const sessionId = randomUUID()
      const key = { projectKey: "-home-dev-stored", sessionId }
      await Effect.runPromise(stored.store!.append(key, [prompt(sessionId, "live-1", "first words")]))
      const first = await readAll(await stored.request(`/api/session/${sessionId}`))
      const end = first[first.length - 1]
      expect(end).toEqual({ type: "end", bytes: 1, lines: 1 })
      const list = await follow(stored, "/api/sessions/events")
      const live = await follow(stored, `/api/session/${sessionId}/events?from=1`)
      await Effect.runPromise(stored.store!.append(key, [prompt(sessionId, "live-2", "appended while watching")]))
      const items = await live.waitFor(
        (events) =>
          (events as Array<SessionView.SessionLine>).find((line) =>
            line.type === "items" && line.items.some((item) => item.key === "live-2")
          ),
        "appended item"
      )
      expect(items).toMatchObject({ type: "items", items: [{ kind: "prompt", key: "live-2" }] })
      await live.waitFor(
        (events) => (events as Array<SessionView.SessionLine>).find((line) => line.type === "end" && line.bytes === 2),
        "end at entry 2"
      )
      await list.waitFor(
        (events) => events.find((event) => (event as UiApi.SessionsEvent).type === "changed"),
        "changed"
      )
      // a subagent transcript appears: the page is told, and its figure follows
      await Effect.runPromise(stored.store!.append({ ...key, subpath: "subagents/agent-b77" }, [
        { ...prompt(sessionId, "sub-1", "a subagent's prompt"), isSidechain: true, agentId: "b77" }
      ]))
      await live.waitFor(
        (events) =>
          (events as Array<SessionView.SessionLine>).find((line) =>
            line.type === "subagents" && line.subagents.some((row) => row.agentId === "b77")
          ),
        "subagents"
      )
      // the session deleted from the store: the page is told to read it afresh (and finds none)
      await Effect.runPromise(stored.store!.delete(key))
      await live.waitFor(
        (events) => (events as Array<SessionView.SessionLine>).find((line) => line.type === "reload"),
        "reload"
      )
      expect((await stored.request(`/api/session/${sessionId}`)).status).toBe(404)
      await Effect.runPromise(stored.store!.append(key, [prompt(sessionId, "live-3", "back again")]))
      // a cursor past the end: the page reads afresh
      expect(await (await stored.request(`/api/session/${sessionId}/events?from=99`)).text()).toContain(
        `data: {"type":"reload"}`
      )
      await Promise.all([live.close(), list.close()])
    }, 60_000)
  })
}

describe("search over a config directory", () => {
  let t: TestServer
  let root: string
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-search-"))
    t = await startServer({ acxHome: path.join(root, "home") })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("says to run acx sync when there is no sync store, creating nothing; searches it once there is one", async () => {
    const sessionsDb = path.join(root, "home", "sessions.db")
    const before = (await (await t.request("/api/search?q=beads")).json()) as UiApi.SearchResponse
    expect(before).toEqual({ indexed: false, message: expect.stringContaining("acx sync") })
    expect(fs.existsSync(sessionsDb)).toBe(false)
    // acx sync's store, where acx sync keeps it
    fs.mkdirSync(path.join(root, "home"), { recursive: true })
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(Scope.extend(fillStore("sqlite", path.join(root, "home"), t.configDir), scope))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const after = (await (await t.request("/api/search?q=beads")).json()) as UiApi.SearchResponse
    expect(after.indexed && after.location).toBe(`sqlite:${sessionsDb}`)
    expect(after.indexed && after.hits.length).toBeGreaterThan(0)
    // the hit's session opens on this page (the same ids as the config directory's)
    const hit = after.indexed ? after.hits[0]! : undefined
    expect((await t.request(`/api/session/${hit!.sessionId}`)).status).toBe(200)
  })
})
