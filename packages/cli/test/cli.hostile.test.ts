/**
 * No input stops or hangs a reader: the built `acx` (import, show, stats, sessions) and a spawned
 * `acx ui` over HTTP on config directories built to break them. The three attacks of issue 21
 * (a line nested 20 000 deep; a FIFO named like a main transcript; a FIFO named like a subagent
 * transcript, which hung the import and, five requests later, every file-backed route of the
 * page), then a fuzz of generated hostile directories (deep lines, garbage, invalid UTF-8, CRLF,
 * 9 MiB lines, a torn last line, FIFOs, link loops, dangling links, directories named like
 * transcripts): every command ends in time (each case has a bound that fails the test), none
 * fails, and every valid entry is kept by each of them.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, removeDir, tempDir } from "./utils/acx.js"
import { type BadLine, buildHostileDir, type HostileDir, type HostileSpec } from "./utils/hostileDir.js"
import { type RunningUi, startUi } from "./utils/ui.js"

/** A case that takes longer than this has hung: the test fails. */
const CASE_BOUND_MS = 90_000
/** An HTTP request that takes longer than this has hung. */
const REQUEST_BOUND_MS = 15_000

let root = ""
beforeAll(() => {
  root = tempDir("hostile")
})
afterAll(() => removeDir(root))

const within = <A>(what: string, ms: number, promise: Promise<A>): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms (hung)`)), ms)
  })
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer))
}

const succeeded = (result: AcxResult, what: string) => {
  expect(result.signal, `${what} was killed (hung); stderr: ${result.stderr}`).toBeNull()
  expect(result.code, `${what} exit code; stderr: ${result.stderr}`).toBe(0)
  expect(result.stderr, `${what} stderr`).not.toMatch(/internal error|Maximum call stack/)
  return result
}

const get = (ui: RunningUi, pathAndQuery: string) =>
  within(
    `GET ${pathAndQuery}`,
    REQUEST_BOUND_MS,
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port: ui.port, path: pathAndQuery, headers: { cookie: `acx_ui_token=${ui.token}` } },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
          response.on("error", reject)
        }
      )
      request.setTimeout(REQUEST_BOUND_MS, () =>
        request.destroy(new Error(`GET ${pathAndQuery} timed out`)))
      request.on("error", reject)
      request.end()
    })
  )

const ndjson = (body: string): Array<Record<string, unknown>> =>
  body.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>)

/** Runs every reader over `dir` and checks nothing hung, failed or lost a valid entry. */
const readEverything = async (dir: HostileDir, label: string) => {
  const env = { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, `${label}-home`) }
  const db = path.join(root, `${label}.sqlite`)
  // import, twice: the second finds nothing new and still does not fail
  for (const run of ["first", "second"]) {
    const imported = succeeded(await acx(["import", "--to", `sqlite:${db}`, "--json"], { env }), `import (${run})`)
    expect(parseJson<{ sessions: number }>(imported).sessions).toBe(dir.sessions.length)
  }
  const store = createSqliteSessionStore({ filename: db })
  try {
    for (const session of dir.sessions) {
      const key = { projectKey: dir.projectKey, sessionId: session.sessionId }
      expect(await store.load(key), `imported ${session.sessionId}`).toEqual(session.entries)
      for (const agent of session.subagents) {
        expect(await store.load({ ...key, subpath: `subagents/agent-${agent.agentId}` })).toEqual(agent.entries)
      }
      const subkeys = await store.listSubkeys(key)
      for (const agent of session.fifoAgents) expect(subkeys).not.toContain(`subagents/agent-${agent}`)
    }
  } finally {
    await store.close?.()
  }
  const sessions = parseJson<Array<{ sessionId: string }>>(
    succeeded(await acx(["sessions", "--json"], { env }), "sessions")
  )
  expect(sessions.map((s) => s.sessionId).sort()).toEqual(dir.sessions.map((s) => s.sessionId).sort())
  for (const session of dir.sessions) {
    const shown = succeeded(await acx(["show", "-f", "jsonl", session.sessionId], { env }), "show -f jsonl")
    expect(shown.stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))).toEqual(
      session.entries
    )
    const markdown = succeeded(await acx(["show", session.sessionId], { env }), "show")
    for (const agent of session.fifoAgents) expect(markdown.stdout).not.toContain(agent)
  }
  const stats = parseJson<{ rows: Array<{ sessionId: string; messages: { user: number } }> }>(
    succeeded(await acx(["stats", "--json", "--by", "session"], { env }), "stats")
  )
  for (const session of dir.sessions) {
    const row = stats.rows.find((r) => r.sessionId === session.sessionId)
    expect(row?.messages.user, `stats of ${session.sessionId}`).toBe(
      session.entries.length + session.subagents.reduce((n, agent) => n + agent.entries.length, 0)
    )
  }
  const ui = await startUi(["--config-dir", dir.configDir], { ACX_HOME: env.ACX_HOME })
  try {
    expect((await get(ui, "/api/sessions")).status).toBe(200)
    for (const session of dir.sessions) {
      // more than libuv's four file threads' worth: a FIFO would have held every one of them
      for (let i = 0; i < 6; i++) {
        for (const agent of session.fifoAgents) {
          expect((await get(ui, `/api/session/${session.sessionId}/subagent/${agent}`)).status).toBe(404)
        }
      }
      const page = await get(ui, `/api/session/${session.sessionId}`)
      expect(page.status).toBe(200)
      const lines = ndjson(page.body)
      expect(lines.at(-1)).toMatchObject({ type: "end", lines: session.lines })
      for (const agent of session.subagents) {
        expect((await get(ui, `/api/session/${session.sessionId}/subagent/${agent.agentId}`)).status).toBe(200)
      }
      const exported = await get(ui, `/api/session/${session.sessionId}/export?format=jsonl`)
      expect(exported.status).toBe(200)
    }
    expect((await get(ui, "/api/costs")).status).toBe(200)
  } finally {
    await ui.stop()
  }
}

const spec = (overrides: Partial<HostileSpec>): HostileSpec => ({
  sessions: [[], []],
  depth: 20_000,
  torn: false,
  fifoMain: false,
  fifoSubagent: false,
  linkLoop: false,
  danglingLink: false,
  directoryTranscript: false,
  ...overrides
})

describe("attacks: no input stops or hangs a reader", () => {
  it("a valid line nested 20 000 deep is skipped with a warning naming file and offset; the rest is read", async () => {
    const dir = buildHostileDir(path.join(root, "deep"), spec({ sessions: [["deep"], []] }))
    const env = { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, "deep-home") }
    const first = dir.sessions[0]!
    const offset = fs.readFileSync(first.file).indexOf("\n") + 1
    const imported = await acx(["import", "--to", `sqlite:${path.join(root, "deep-warn.sqlite")}`], { env })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stderr).toContain(
      `1 malformed line(s) skipped (not entries) in ${dir.projectKey}/${first.sessionId}.jsonl (1, first at byte ${offset})`
    )
    const shown = await acx(["show", "-f", "jsonl", first.sessionId], { env })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stderr).toMatch(new RegExp(`first: line 2 at byte ${offset}: nested deeper than 512 levels`))
    const stats = await acx(["stats"], { env })
    expect(stats.code, stats.stderr).toBe(0)
    expect(stats.stderr).toContain(`${first.file} (1, first at byte ${offset})`)
    await within("deep case", CASE_BOUND_MS, readEverything(dir, "deep"))
  }, 4 * CASE_BOUND_MS)

  it("a FIFO named like a main transcript is skipped with a warning; the rest is read", async () => {
    const dir = buildHostileDir(path.join(root, "fifo-main"), spec({ fifoMain: true }))
    const env = { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, "fifo-main-home") }
    const imported = await acx(["import", "--to", `sqlite:${path.join(root, "fifo-main-warn.sqlite")}`], { env })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stderr).toContain(`skipped ${dir.notFiles[0]}: not a regular file`)
    await within("FIFO main case", CASE_BOUND_MS, readEverything(dir, "fifo-main"))
  }, 4 * CASE_BOUND_MS)

  it("a FIFO named like a subagent transcript is never opened: import ends, the page answers", async () => {
    const dir = buildHostileDir(path.join(root, "fifo-agent"), spec({ fifoSubagent: true }))
    const env = { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, "fifo-agent-home") }
    const imported = await acx(["import", "--to", `sqlite:${path.join(root, "fifo-agent-warn.sqlite")}`], { env })
    expect(imported.signal, "import hung on the FIFO").toBeNull()
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stderr).toContain(`skipped ${dir.notFiles[0]}: not a regular file (FIFO)`)
    await within("FIFO subagent case", CASE_BOUND_MS, readEverything(dir, "fifo-agent"))
  }, 4 * CASE_BOUND_MS)
})

const badLine = fc.constantFrom<BadLine>("deep", "garbage", "invalidUtf8", "crlf", "blank")

const hostileSpec: fc.Arbitrary<HostileSpec> = fc.record({
  sessions: fc.array(fc.array(badLine, { maxLength: 5 }), { minLength: 1, maxLength: 3 }),
  depth: fc.integer({ min: 513, max: 30_000 }),
  torn: fc.boolean(),
  fifoMain: fc.boolean(),
  fifoSubagent: fc.boolean(),
  linkLoop: fc.boolean(),
  danglingLink: fc.boolean(),
  directoryTranscript: fc.boolean()
})

describe("fuzz: generated hostile config directories", () => {
  const CASES = 4
  const cases = fc.sample(hostileSpec, { numRuns: CASES, seed: 21 })
  // one case with everything at once, and one 9 MiB line (over the page's cap, under the reader's)
  cases.push({
    sessions: [["deep", "garbage", "invalidUtf8", "crlf", "blank", "huge"], ["deep"]],
    depth: 20_000,
    torn: true,
    fifoMain: true,
    fifoSubagent: true,
    linkLoop: true,
    danglingLink: true,
    directoryTranscript: true
  })
  for (const [i, generated] of cases.entries()) {
    it(`case ${i}: ${JSON.stringify(generated)}`, async () => {
      const dir = buildHostileDir(path.join(root, `fuzz-${i}`), generated)
      await within(`fuzz case ${i}`, CASE_BOUND_MS, readEverything(dir, `fuzz-${i}`))
    }, 2 * CASE_BOUND_MS)
  }
})
