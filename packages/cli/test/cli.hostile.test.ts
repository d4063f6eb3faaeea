/**
 * No input stops or hangs a reader: the built `acx` (import, show, stats, sessions) and a spawned
 * `acx ui` over HTTP on config directories built to break them. The three attacks of issue 21
 * (a line nested 20 000 deep; a FIFO named like a main transcript; a FIFO named like a subagent
 * transcript, which hung the import and, five requests later, every file-backed route of the
 * page), then a fuzz of generated hostile directories (deep lines, garbage, invalid UTF-8, CRLF,
 * 9 MiB lines, a torn last line, FIFOs, link loops, dangling links, directories named like
 * transcripts): every command ends in time (a bound on each fails the test), none fails, and every valid
 * entry is kept by each of them. The attacks and the generated directories are projects of one
 * config directory, read once by every reader (`readAll`).
 */
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, removeDir, SPAWN_TIMEOUT_MS, tempDir } from "./utils/acx.js"
import { type BadLine, buildHostileDir, type HostileDir, type HostileSpec } from "./utils/hostileDir.js"

/**
 * How long the tests wait for every reader over every directory: some thirty process runs one after
 * another, each bounded on its own (a hung process is killed after {@link SPAWN_TIMEOUT_MS} and
 * `succeeded` fails on its signal; a request after {@link REQUEST_BOUND_MS}), so a hang fails
 * there. A bound on their sum only guessed the machine's speed: 180 s, met by a run under CI's load.
 */
const READ_ALL_MS = 600_000
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

/**
 * Runs every reader over a config directory (the projects `dirs`, built under one root) and checks
 * nothing hung, failed or lost a valid entry; gives the first import's and each session's
 * `show -f jsonl` run, whose warnings the attacks check.
 */
const readEverything = async (dirs: ReadonlyArray<HostileDir>, label: string) => {
  const configDir = dirs[0]!.configDir
  const sessionsOf = dirs.flatMap((dir) => dir.sessions.map((session) => ({ dir, session })))
  const env = { CLAUDE_CONFIG_DIR: configDir, ACX_HOME: path.join(root, `${label}-home`) }
  const db = path.join(root, `${label}.sqlite`)
  // import, twice: the second finds nothing new and still does not fail (the first as a user runs
  // it, its warnings on stderr; the second's JSON counts the sessions)
  const imported = succeeded(await acx(["import", "--to", `sqlite:${db}`], { env }), "import (first)")
  const again = succeeded(await acx(["import", "--to", `sqlite:${db}`, "--json"], { env }), "import (second)")
  expect(parseJson<{ sessions: number; entries: number }>(again)).toMatchObject({
    sessions: sessionsOf.length,
    entries: 0
  })
  const store = createSqliteSessionStore({ filename: db })
  try {
    for (const { dir, session } of sessionsOf) {
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
  expect(sessions.map((s) => s.sessionId).sort()).toEqual(sessionsOf.map(({ session }) => session.sessionId).sort())
  const shows = new Map<string, AcxResult>()
  for (const { session } of sessionsOf) {
    const shown = succeeded(await acx(["show", "-f", "jsonl", session.sessionId], { env }), "show -f jsonl")
    expect(shown.stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))).toEqual(
      session.entries
    )
    shows.set(session.sessionId, shown)
    // the markdown reads the session's subagents too (FIFOs, link loops): where it has them; the
    // transcript's own lines are the reader's the JSON Lines above proved
    if (session.subagents.length === 0 && session.fifoAgents.length === 0) continue
    const markdown = succeeded(await acx(["show", session.sessionId], { env }), "show")
    for (const agent of session.fifoAgents) expect(markdown.stdout).not.toContain(agent)
  }
  const stats = parseJson<{ rows: Array<{ sessionId: string; messages: { user: number } }> }>(
    succeeded(await acx(["stats", "--json", "--by", "session"], { env }), "stats")
  )
  for (const { session } of sessionsOf) {
    const row = stats.rows.find((r) => r.sessionId === session.sessionId)
    expect(row?.messages.user, `stats of ${session.sessionId}`).toBe(
      session.entries.length + session.subagents.reduce((n, agent) => n + agent.entries.length, 0)
    )
  }
  const ui = await startUi(["--config-dir", configDir], { ACX_HOME: env.ACX_HOME })
  try {
    expect((await get(ui, "/api/sessions")).status).toBe(200)
    for (const { session } of sessionsOf) {
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
    // bounded like a process: a page that a Ctrl-C does not end has hung too
    await within("acx ui's stop", SPAWN_TIMEOUT_MS, ui.stop())
  }
  return { imported, shows }
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

const cases = fc.sample(hostileSpec, { numRuns: 4, seed: 21 })
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

/**
 * Every attack and every generated directory is a project of one config directory, which every
 * reader reads once (run by the first test that needs it): each project's files meet each reader
 * as they would alone (a reader that hung, failed or lost an entry on one fails every test), for
 * an eighth of the processes a directory each took; the tests then check their own project.
 */
let everything:
  | Promise<
    { attacks: Record<"deep" | "fifoMain" | "fifoAgent", HostileDir> } & Awaited<ReturnType<typeof readEverything>>
  >
  | undefined
const readAll = () => (everything ??= (async () => {
  const base = path.join(root, "all")
  const attacks = {
    deep: buildHostileDir(base, spec({ sessions: [["deep"], []] }), "-tmp-hostile-deep"),
    fifoMain: buildHostileDir(base, spec({ fifoMain: true }), "-tmp-hostile-fifo-main"),
    fifoAgent: buildHostileDir(base, spec({ fifoSubagent: true }), "-tmp-hostile-fifo-agent")
  }
  const generated = cases.map((generated, i) => buildHostileDir(base, generated, `-tmp-hostile-fuzz-${i}`))
  const read = await readEverything([...Object.values(attacks), ...generated], "all")
  return { attacks, ...read }
})())

describe("attacks: no input stops or hangs a reader", () => {
  it("a valid line nested 20 000 deep is skipped with a warning naming file and offset; the rest is read", async () => {
    const { attacks, imported, shows } = await readAll()
    const dir = attacks.deep
    const first = dir.sessions[0]!
    const offset = fs.readFileSync(first.file).indexOf("\n") + 1
    // one line for every file (this project's is the first named)
    expect(imported.stderr).toMatch(/^acx: warning: \d+ malformed lines? skipped \(not entries\) in /m)
    expect(imported.stderr).toContain(
      ` skipped (not entries) in ${dir.projectKey}/${first.sessionId}.jsonl (1, first at byte ${offset})`
    )
    expect(shows.get(first.sessionId)!.stderr).toMatch(
      new RegExp(`first: line 2 at byte ${offset}: nested deeper than 512 levels`)
    )
    const stats = await acx(["stats"], {
      env: { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, "deep-home") }
    })
    expect(stats.code, stats.stderr).toBe(0)
    expect(stats.stderr).toContain(`${first.file} (1, first at byte ${offset})`)
  }, READ_ALL_MS)

  it("a FIFO named like a main transcript is skipped with a warning; the rest is read", async () => {
    const { attacks, imported } = await readAll()
    expect(imported.stderr).toContain(`skipped ${attacks.fifoMain.notFiles[0]}: not a regular file`)
  }, READ_ALL_MS)

  it("a FIFO named like a subagent transcript is never opened: import ends, the page answers", async () => {
    // an import that hung on the FIFO is killed: `succeeded` fails on its signal
    const { attacks, imported } = await readAll()
    expect(imported.stderr).toContain(`skipped ${attacks.fifoAgent.notFiles[0]}: not a regular file (FIFO)`)
  }, READ_ALL_MS)
})

describe("fuzz: generated hostile config directories", () => {
  it(`${cases.length} cases: ${cases.map((generated) => JSON.stringify(generated)).join("; ")}`, async () => {
    // every reader read them, beside the attacks (`readAll`)
    await readAll()
  }, READ_ALL_MS)
})
