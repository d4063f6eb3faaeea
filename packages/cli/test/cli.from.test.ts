/**
 * `--from TARGET`: the fixtures' config dir synced (`acx sync --to`) into a SQLite store and into
 * a Postgres store (a schema of its own), then every reading command run on the dir and on the
 * store and compared:
 * - `sessions --json`: equal row for row, field by field, but `file`, `size` and `mtime` (where
 *   a transcript is, which only the dir has a size for); the table shows `-` for a store's size;
 * - `show`: the same bytes on stdout and stderr for every session in every format (`--uuids`
 *   too), every subagent (`--agent`, and by its id alone);
 * - `stats --json`: equal for every `--by`, a `--since`/`--until` range and `--project`, but
 *   `read` (how the folds were read); a second run folds nothing (all from the cache);
 * - `fork --from`: a session whose transcript Claude Code deleted is forked from the store back
 *   into the config dir (its project dir made again), and `acx show` of the fork equals the
 *   original's up to the title;
 * - `memory backfill --from --dry-run`: the same sessions and events as from the dir.
 *
 * Each promise is checked once through the BUILT binary (`acx`: the bundle, the store reads'
 * bundle, exit codes and pipes); the many command lines of one promise (every session, format,
 * subagent, grouping) run the same `run` in this process (`acxInProcess`, the one path), a
 * process start (≈0.3 s of CPU) each saved. The dir's side of a comparison is run once for both
 * stores. The binary reads the Postgres store once (`sessions --json`: a process that ends, its
 * pool closed); the rest of what it runs over SQLite is the same wiring for any store, run in
 * process over Postgres.
 */
import * as Fixtures from "@acx/fixtures"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const PG_URL = process.env["ACX_PG_URL"]
const BY = ["session", "day", "week", "month", "model", "project", "machine", "user"] as const
const FORMATS = ["markdown", "anthropic", "jsonl"] as const

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

const root = tempDir("from")
const built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
const home = path.join(root, "home")
const env = { ACX_HOME: home }
const dir = ["--config-dir", built.configDir]
afterAll(() => removeTreeWhenIdle(root), 70_000)

/** How a command line is run: spawned (the built binary) or in this process. */
type Runner = "spawned" | "inProcess"
const runWith = (runner: Runner, args: ReadonlyArray<string>, options = { env }) =>
  runner === "spawned" ? acx(args, options) : acxInProcess(args, options)

// the dir's side of every comparison, run once for both stores (the dir does not change)
const dirRuns = new Map<string, Promise<AcxResult>>()
const onDir = (runner: Runner, args: ReadonlyArray<string>, options = { env }): Promise<AcxResult> => {
  const key = JSON.stringify([runner, args, options])
  if (!dirRuns.has(key)) dirRuns.set(key, runWith(runner, [...args, ...dir], options).then(ok))
  return dirRuns.get(key)!
}

interface Backend {
  readonly name: string
  readonly skip: boolean
  /** The spec `--to` fills and `--from` reads. */
  readonly spec: () => string
  readonly cleanUp: () => Promise<void>
}

const schema = `acx_from_test_${process.pid}_${randomUUID().slice(0, 8)}`
const pgSpec = () => {
  const url = new URL(PG_URL!)
  url.searchParams.set("schema", schema)
  return url.href
}

const backends: ReadonlyArray<Backend> = [
  { name: "SQLite", skip: false, spec: () => `sqlite:${path.join(root, "store.db")}`, cleanUp: async () => {} },
  { name: "Postgres", skip: PG_URL === undefined, spec: pgSpec, cleanUp: () => dropSchema(PG_URL!, schema) }
]

// what only the source knows: where a transcript is, its size (a store has none), its mtime
const sourceFree = (rows: ReadonlyArray<Record<string, unknown>>) =>
  rows.map(({ file: _f, mtime: _m, size: _s, ...rest }) => rest)

// how the folds were read (bytes, cache hits) is the source's own; the rest is the report
const reportOf = ({ malformed, read: _read, ...rest }: Record<string, unknown>) => ({
  ...rest,
  malformed: (malformed as ReadonlyArray<{ lines: number }>).map((item) => item.lines)
})

describe.each(backends)("--from a $name store", (backend) => {
  const from = () => ["--from", backend.spec()]
  // what runs through the binary over SQLite
  const binary: Runner = backend.name === "SQLite" ? "spawned" : "inProcess"
  const onStore = (runner: Runner, args: ReadonlyArray<string>) => runWith(runner, [...args, ...from()]).then(ok)

  beforeAll(async () => {
    if (backend.skip) return
    ok(await acx(["sync", "--to", backend.spec(), ...dir], { env }))
  }, TEST_TIMEOUT_MS)
  afterAll(() => backend.skip ? undefined : backend.cleanUp())

  it.skipIf(backend.skip)("acx sessions: the dir's rows, but where each transcript is", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    // spawned: the built binary (over a SQLite store, the store reads' bundle)
    const fromDir = parseJson<Array<Record<string, unknown>>>(await onDir("spawned", ["sessions", "--json"]))
    const fromStore = parseJson<Array<Record<string, unknown>>>(await onStore("spawned", ["sessions", "--json"]))
    expect(fromDir).toHaveLength(built.sessions.length)
    expect(sourceFree(fromStore)).toEqual(sourceFree(fromDir))
    const display = backend.spec().replace(/:[^:@/]*@/, ":***@").replace(/\?schema=.*$/, "")
    for (const row of fromStore) {
      expect(row["size"]).toBe(0)
      expect(String(row["file"])).toMatch(new RegExp(`#${row["projectKey"]}/${row["sessionId"]}$`))
      if (backend.name === "SQLite") expect(row["file"]).toBe(`${display}#${row["projectKey"]}/${row["sessionId"]}`)
    }
    // one project: the same rows again (the full path, in process)
    const project = built.sessions[1]!.projectKey
    const oneDir = parseJson<Array<Record<string, unknown>>>(
      await onDir("inProcess", ["sessions", "--json", "--project", project])
    )
    const oneStore = parseJson<Array<Record<string, unknown>>>(
      await onStore("inProcess", ["sessions", "--json", "--project", project])
    )
    expect(oneDir.length).toBeGreaterThan(0)
    expect(oneDir.length).toBeLessThan(built.sessions.length)
    expect(sourceFree(oneStore)).toEqual(sourceFree(oneDir))
    // the table: a store's sizes are unknown, shown as "-"
    const table = (await onStore(binary, ["sessions"])).stdout.split("\n")
    expect(table[0]).toMatch(/SESSION +PROJECT +LAST ACTIVE +SIZE +TITLE/)
    const sizeAt = table[0]!.indexOf("SIZE") + "SIZE".length
    for (const session of built.sessions) {
      const line = table.find((row) => row.startsWith(session.sessionId))!
      expect(line.slice(sizeAt - 1, sizeAt)).toBe("-")
    }
  })

  it.skipIf(backend.skip)("acx show: the same output for every session in every format, every subagent", {
    timeout: TEST_TIMEOUT_MS * 2
  }, async () => {
    const same = async (args: ReadonlyArray<string>, runner: Runner = "inProcess") => {
      const [fromDir, fromStore] = await Promise.all([onDir(runner, args), onStore(runner, args)])
      expect(fromStore.stdout, args.join(" ")).toBe(fromDir.stdout)
      expect(fromStore.stderr, args.join(" ")).toBe(fromDir.stderr)
      expect(fromDir.stdout.length).toBeGreaterThan(100)
      return fromStore.stdout
    }
    const withAgents = built.sessions.find((session) => session.subagents.length > 0)!
    // through the binary: a session by a prefix (its footer names its subagents), a subagent by
    // its id alone
    expect(await same(["show", withAgents.sessionId.slice(0, 8), "--uuids"], binary))
      .toContain(withAgents.subagents.map((agent) => agent.agentId).join(", "))
    await same(["show", withAgents.subagents[0]!.agentId], binary)
    // every format of the first session and of those with subagents; the JSON (the entries as
    // shown) of every other: the entries themselves are compared one by one in
    // StoreProjects.test.ts, and every format is one function of them
    for (const [index, session] of built.sessions.entries()) {
      const formats = index === 0 || session.subagents.length > 0 ? FORMATS : (["jsonl"] as const)
      for (const format of formats) await same(["show", session.sessionId, "-f", format])
      const markdown = await same(["show", session.sessionId.slice(0, 8), "--uuids"])
      // the footer names the same subagents
      if (session.subagents.length > 0) {
        expect(markdown).toContain(session.subagents.map((agent) => agent.agentId).join(", "))
      }
      for (const agent of session.subagents) {
        for (const format of formats) await same(["show", session.sessionId, "--agent", agent.agentId, "-f", format])
        await same(["show", agent.agentId])
      }
    }
  })

  it.skipIf(backend.skip)("acx stats: the same report by every grouping, range and project; then from the cache", {
    timeout: TEST_TIMEOUT_MS * 2
  }, async () => {
    const project = built.sessions[1]!.projectKey
    const same = async (args: ReadonlyArray<string>, runner: Runner = "inProcess") => {
      const fromDir = parseJson(await onDir(runner, ["stats", "--json", ...args]))
      const fromStore = parseJson(await onStore(runner, ["stats", "--json", ...args]))
      expect(reportOf(fromStore), args.join(" ")).toEqual(reportOf(fromDir))
      expect(fromDir.rows.length, args.join(" ")).toBeGreaterThan(0)
    }
    // through the binary: the first fold of the store's transcripts (nothing cached yet)
    await same(["--by", "project"], binary)
    const cases: Array<ReadonlyArray<string>> = [
      ...BY.map((by) => ["--by", by]),
      ["--since", "2025-10-11", "--until", "2026-02-10"],
      ["--by", "day", "--since", "20251010"],
      ["--project", project],
      ["--by", "model", "--project", project]
    ]
    for (const args of cases) await same(args)
    // every transcript was folded by now: a run reads nothing from the store
    const transcripts = built.sessions.reduce((n, session) => n + 1 + session.subagents.length, 0)
    const again = parseJson(await onStore(binary, ["stats", "--json"]))
    expect(again.read).toMatchObject({ cached: transcripts, folded: 0 })
    // the table prints too
    expect((await onStore(binary, ["stats"])).stdout).toContain(`sessions     ${built.sessions.length}`)
  })

  it.skipIf(backend.skip)("acx fork --from: a deleted session forked from the store back into the config dir", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const copy = Fixtures.buildClaudeConfigDir(path.join(root, `restore-${backend.name}`))
    const session = copy.sessions.find((s) => s.projectKey === "tomjnsn-agentlogs")!
    // Claude Code deleted the whole project dir
    fs.rmSync(path.join(copy.configDir, "projects", session.projectKey), { recursive: true })
    const into = ["--config-dir", copy.configDir]
    const original = (await onStore("inProcess", ["show", session.sessionId])).stdout
    const fork = parseJson<{ sessionId: string; file: string; entries: number; forkedFrom: string; from: string }>(
      await onStore(binary, ["fork", session.sessionId.slice(0, 8), "--json", ...into])
    )
    expect(fork.forkedFrom).toBe(session.sessionId)
    expect(fork.file).toBe(path.join(copy.configDir, "projects", session.projectKey, `${fork.sessionId}.jsonl`))
    const lines = fs.readFileSync(fork.file, "utf8").split("\n").filter((line) => line !== "")
    expect(lines).toHaveLength(fork.entries)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    // the fork reads as the original, under the fork's title and with its ids
    const forked = ok(await acxInProcess(["show", fork.sessionId, ...into], { env })).stdout
    const headingless = (text: string) =>
      text.split("\n").slice(1).join("\n").replace(/ · \d{4}-\d\d-\d\dT[\d:.]+Z/g, "")
    expect(forked.split("\n")[0]).toBe(`${original.split("\n")[0]} (fork)`)
    expect(headingless(forked)).toBe(headingless(original))
    // the text says where it went and how to resume it
    const text = (await onStore("inProcess", ["fork", session.sessionId, ...into])).stdout
    expect(text).toMatch(new RegExp(`^forked ${session.sessionId} from .* → [0-9a-f-]{36} \\(\\d+ entries\\)`))
    expect(text).toContain(path.join(copy.configDir, "projects", session.projectKey))
    expect(text).toMatch(/claude --resume [0-9a-f-]{36}/)
    // and nothing was written into the store
    const listed = parseJson<Array<{ sessionId: string }>>(await onStore("inProcess", ["sessions", "--json"]))
    expect(listed).toHaveLength(built.sessions.length)
  })

  it.skipIf(backend.skip)("acx memory backfill --from --dry-run: the dir's sessions and events", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const memoryHome = { env: { ACX_HOME: path.join(root, "memory") } }
    const args = ["memory", "backfill", "--dry-run", "--json"]
    const fromDir = parseJson(await onDir("inProcess", args, memoryHome))
    const fromStore = parseJson(ok(await runWith(binary, [...args, ...from()], memoryHome)))
    expect(fromDir.sessions).toBe(built.sessions.length)
    const counts = ({ elapsedMs: _e, ...rest }: Record<string, unknown>) => rest
    expect(counts(fromStore)).toEqual(counts(fromDir))
  })
})
