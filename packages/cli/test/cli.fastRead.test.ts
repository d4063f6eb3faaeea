/**
 * The fast read path (`src/fastRead.ts`, `dist/fast-read.cjs`) through the BUILT binary, on a
 * store synced from the real fixtures: for every command line shape it takes, it answers (it says
 * so on stderr under `ACX_FAST_REPORT=1`) and prints byte for byte what the full path prints —
 * the CLI itself under `ACX_NO_FAST=1`, and the full path computed in process from the same
 * modules (`openStore`, `StoreProjects`, `SessionListing.rows`, `sessionsTable` / `format.json`;
 * `StoreStats.foldStats`, `reportStats`, `statsReport` / `statsJson`). On any doubt it hands the command back: derived data behind
 * the entries, another schema, a missing table, an empty listing, an option it does not know,
 * a file that is not a store, a Postgres URL, `ACX_NO_FAST=1`. Its bundle loads no Effect.
 *
 * Each shape is answered by the binary; the full CLI's own output for it is `run` of
 * `src/Cli.ts` in this process (`acxInProcess`; one shape also spawned under `ACX_NO_FAST=1`). A
 * command line it hands back is asked of the built bundle's `main` in this process (what
 * `bin/acx.mjs` asks), which says `false` without the full CLI running after it; the binary
 * hands back a Postgres URL, a missing file and `ACX_NO_FAST=1`. One `acx sync` fills the store
 * both describes copy.
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as Pricing from "@acx/convert/Pricing"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as Fixtures from "@acx/fixtures"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { processIo } from "../src/CommandIo.js"
import { parseSessions } from "../src/fastRead.js"
import { CurrentIo } from "../src/internal/currentIo.js"
import { parseStats } from "../src/internal/fastStats.js"
import * as format from "../src/internal/format.js"
import { sessionsTable } from "../src/internal/sessionsTable.js"
import { statsReport } from "../src/internal/statsTable.js"
import { openStore } from "../src/internal/storeSource.js"
import { acx, type AcxResult, BIN, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const FAST = "acx: fast path: sessions\n"

/** What the full path prints for `acx sessions --from spec` (it derives what is behind first). */
const fullOutput = (spec: string, options: { readonly json: boolean; readonly project?: string }) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { display, store } = yield* openStore(spec).pipe(Effect.provideService(CurrentIo, processIo()))
    const projects = StoreProjects.make({ store, location: display })
    // with the origins the store recorded (`run/sessions.ts`)
    const origins = yield* StatsOrigins.ofStore(store, options.project)
    const list = SessionListing.rows(yield* projects.listSessions(options.project), origins)
    // a store's rows have no size to show (`run/sessions.ts`)
    return `${options.json ? format.json(list) : sessionsTable(list, { sizes: false })}\n`
  })))

/** What the full path prints for `acx stats --from spec` (caching its folds in `home`'s cache). */
const fullStats = (spec: string, home: string, options: { readonly json: boolean; readonly by: StatsReport.GroupBy }) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { display, store } = yield* openStore(spec).pipe(Effect.provideService(CurrentIo, processIo()))
    const folds = yield* StoreStats.foldStats({
      store,
      location: display,
      cacheDir: path.join(home, "cache"),
      pricing: Pricing.builtinPricing
    })
    const result = SessionStats.reportStats(folds, options.by)
    return `${options.json ? format.json(SessionStats.statsJson(result)) : statsReport(result)}\n`
  })))

const fast = (args: ReadonlyArray<string>, cwd?: string) =>
  acx(["sessions", ...args], { env: { ACX_FAST_REPORT: "1" }, ...(cwd === undefined ? {} : { cwd }) })

const handedBack = (result: AcxResult) => expect(result.stderr).not.toMatch(/acx: fast path: /)

// the built fast path, as `bin/acx.mjs` loads and asks it
const fastRead = createRequire(import.meta.url)(path.join(path.dirname(BIN), "../dist/fast-read.cjs")) as {
  main: (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => boolean
}

/** `acx args` is handed back: the fast path answers `false` (asked in this process, `ACX_HOME` = `home`). */
const handsBack = (args: ReadonlyArray<string>, home?: string) => {
  const saved = process.env["ACX_HOME"]
  if (home !== undefined) process.env["ACX_HOME"] = home
  try {
    expect(fastRead.main(["node", BIN, ...args], { ACX_FAST_REPORT: "1" }), args.join(" ")).toBe(false)
  } finally {
    if (saved === undefined) delete process.env["ACX_HOME"]
    else process.env["ACX_HOME"] = saved
  }
}

// one store synced from the fixtures, copied by each describe (as synced: nothing derived since)
const syncedRoot = tempDir("fastread-synced")
let synced = ""
beforeAll(async () => {
  const built = Fixtures.buildClaudeConfigDir(path.join(syncedRoot, "claude"))
  synced = path.join(syncedRoot, "store.db")
  const result = await acx(["sync", "--config-dir", built.configDir, "--to", `sqlite:${synced}`, "--json"])
  expect(result.code, result.stderr).toBe(0)
}, TEST_TIMEOUT_MS)
afterAll(() => removeTreeWhenIdle(syncedRoot), 70_000)
const copySynced = (target: string) => {
  for (const name of fs.readdirSync(syncedRoot).filter((name) => name.startsWith("store.db"))) {
    fs.copyFileSync(
      path.join(syncedRoot, name),
      path.join(path.dirname(target), name.replace("store.db", path.basename(target)))
    )
  }
}

describe("the fast read path: acx sessions --from sqlite:", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir
  let file = ""
  let project = ""

  const copy = (name: string): string => {
    const target = path.join(root, name)
    fs.copyFileSync(file, target)
    return target
  }

  beforeAll(async () => {
    root = tempDir("fastread")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    file = path.join(root, "store.db")
    copySynced(file)
    await fullOutput(`sqlite:${file}`, { json: true }) // derives every entry: the fast path's condition
    project = built.sessions[0]!.projectKey
  }, TEST_TIMEOUT_MS)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  const shapes: ReadonlyArray<
    { readonly name: string; readonly args: () => Array<string>; json: boolean; p?: boolean }
  > = [
    { name: "table", args: () => ["--from", `sqlite:${file}`], json: false },
    { name: "--json", args: () => ["--from", `sqlite:${file}`, "--json"], json: true },
    { name: "--json first, a bare FILE.db", args: () => ["--json", "--from", file], json: true },
    { name: "--project", args: () => ["--from", `sqlite:${file}`, "--project", project], json: false, p: true },
    { name: "-p, --json", args: () => ["-p", project, "--json", "--from", `sqlite:${file}`], json: true, p: true }
  ]

  for (const [index, shape] of shapes.entries()) {
    it(`answers ${shape.name} as the full path does`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const expected = await fullOutput(`sqlite:${file}`, { json: shape.json, ...(shape.p ? { project } : {}) })
      const result = await fast(shape.args())
      expect(result.stderr).toBe(FAST)
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(expected)
      expect(result.stdout).toContain(shape.p ? project : built.sessions[built.sessions.length - 1]!.projectKey)
      // the full CLI: the first shape through the binary, the others in process
      const full = index === 0
        ? await acx(["sessions", ...shape.args()], { env: { ACX_NO_FAST: "1" } })
        : await acxInProcess(["sessions", ...shape.args()])
      expect(full.code, full.stderr).toBe(0)
      expect(result.stdout).toBe(full.stdout)
    })
  }

  it("resolves a relative file against the working directory, as the full path does", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const result = await fast(["--from", "sqlite:store.db", "--json"], root)
    expect(result.stderr).toBe(FAST)
    expect(result.stdout).toBe(await fullOutput(`sqlite:${file}`, { json: true }))
  })

  it("hands back a store whose derived data is behind its entries; the full path derives it", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const behind = copy("behind.db")
    const session = built.sessions[0]!
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = yield* SqliteSessionStore.make({ filename: behind })
      yield* store.append({ projectKey: session.projectKey, sessionId: session.sessionId }, [{
        type: "user",
        uuid: "0f8a3c1e-5b7d-4e2a-9c6f-1d3b5a7e9c2f",
        timestamp: "2030-01-01T00:00:00.000Z",
        message: { role: "user", content: "a prompt appended after the catalog was derived" }
      }])
    })))
    handsBack(["sessions", "--from", `sqlite:${behind}`, "--json"])
    // once a catalog read derived it, the fast path answers again, with the new prompt
    const expected = await fullOutput(`sqlite:${behind}`, { json: true })
    expect(expected).toContain("a prompt appended after the catalog was derived")
    const again = await fast(["--from", `sqlite:${behind}`, "--json"])
    expect(again.stderr).toBe(FAST)
    expect(again.stdout).toBe(expected)
  })

  it("hands back another schema, a missing table, an empty store", { timeout: TEST_TIMEOUT_MS }, async () => {
    const newer = copy("newer.db")
    const missing = copy("missing.db")
    const empty = copy("empty.db")
    const edit = (target: string, sql: string) => {
      const db = new Database(target)
      db.exec(sql)
      db.close()
    }
    edit(
      newer,
      "INSERT INTO acx_session_store_migrations (migration_id, name) SELECT max(migration_id) + 1, 'later' FROM acx_session_store_migrations"
    )
    edit(missing, "DROP TABLE acx_session_meta")
    edit(empty, "DELETE FROM acx_session_meta; DELETE FROM acx_session_keys; DELETE FROM acx_session_entries")
    for (const target of [newer, missing, empty]) handsBack(["sessions", "--from", `sqlite:${target}`])
  })

  it("hands back what it does not know, a file that is not a store, Postgres, ACX_NO_FAST=1", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const text = path.join(root, "text.db")
    fs.writeFileSync(text, "not a database\n")
    const spec = `sqlite:${file}`
    const lines = [
      ["--from", spec, "--config-dir", built.configDir],
      [`--from=${spec}`],
      ["--from", spec, "--json", "--json"],
      ["--from", spec, "--from", spec],
      ["--from", spec, "--project"],
      ["--from", spec, "--help"],
      ["--from", path.join(root, "absent.db")],
      ["--from", text],
      ["--from", "postgres://user:secret@127.0.0.1:1/db"]
    ]
    for (const args of lines) handsBack(["sessions", ...args])
    // through the binary: handed back, and the full path answers (no password, nothing created)
    const postgres = await fast(["--from", "postgres://user:secret@127.0.0.1:1/db"])
    handedBack(postgres)
    expect(postgres.stderr).not.toContain("secret")
    const absent = await fast(["--from", path.join(root, "absent.db")])
    handedBack(absent)
    expect(absent.code).not.toBe(0)
    expect(fs.existsSync(path.join(root, "absent.db"))).toBe(false)
    handedBack(await acx(["sessions", "--from", spec], { env: { ACX_FAST_REPORT: "1", ACX_NO_FAST: "1" } }))
  })

  it("reads a store without writing to it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const readOnly = copy("readonly.db")
    const before = fs.readFileSync(readOnly)
    fs.chmodSync(readOnly, 0o444)
    const result = await fast(["--from", `sqlite:${readOnly}`, "--json"])
    expect(result.stderr).toBe(FAST)
    const expected = await fullOutput(`sqlite:${file}`, { json: true })
    expect(result.stdout).toBe(expected.replaceAll(`"sqlite:${file}#`, `"sqlite:${readOnly}#`))
    expect(fs.readFileSync(readOnly).equals(before)).toBe(true)
  })
})

describe("the fast read path: acx stats --from sqlite:", () => {
  let root = ""
  let file = ""
  let home = ""
  const FAST_STATS = "acx: fast path: stats\n"
  const stats = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    acx(["stats", ...args], { env: { ACX_HOME: home, ACX_FAST_REPORT: "1", ...env } })

  beforeAll(() => {
    root = tempDir("faststats")
    home = path.join(root, "home")
    file = path.join(root, "store.db")
    copySynced(file)
  })
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it("hands back a store whose folds are not cached yet, then answers from the cache as the full path does", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const spec = `sqlite:${file}`
    const first = await stats(["--from", spec, "--json"])
    handedBack(first)
    // the full path folded and cached
    expect(first.code, first.stderr).toBe(0)
    expect(JSON.parse(first.stdout).read.folded).toBeGreaterThan(0)
    const shapes: ReadonlyArray<readonly [ReadonlyArray<string>, boolean, StatsReport.GroupBy]> = [
      [["--from", spec], false, "session"],
      [["--from", spec, "--json"], true, "session"],
      [["--by", "day", "--from", spec], false, "day"],
      [["--json", "--by", "model", "--from", file], true, "model"]
    ]
    for (const [index, [args, json, by]] of shapes.entries()) {
      const expected = await fullStats(spec, home, { json, by })
      const result = await stats(args)
      expect(result.stderr, args.join(" ")).toBe(FAST_STATS)
      expect(result.stdout, args.join(" ")).toBe(expected)
      // the full CLI: the first shape through the binary, the others in process
      const full = index === 0
        ? await stats(args, { ACX_NO_FAST: "1" })
        : await acxInProcess(["stats", ...args], { env: { ACX_HOME: home } })
      expect(full.code, full.stderr).toBe(0)
      expect(result.stdout, args.join(" ")).toBe(full.stdout)
    }
    // a project is its recorded origin (StatsOrigins), which only the full path reads
    handsBack(["stats", "--from", spec, "--by", "project"], home)
    expect(JSON.parse((await stats(["--from", spec, "--json"])).stdout).read).toMatchObject({ folded: 0 })
  })

  it("hands back a pricing file, an unknown grouping or option, a session changed since it was cached", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const spec = `sqlite:${file}`
    await fullStats(spec, home, { json: true, by: "session" })
    expect((await stats(["--from", spec])).stderr).toBe(FAST_STATS)
    fs.writeFileSync(path.join(home, "pricing.json"), "{}")
    handsBack(["stats", "--from", spec], home)
    fs.rmSync(path.join(home, "pricing.json"))
    for (
      const args of [["--from", spec, "--by", "year"], ["--from", spec, "--since", "2026-01-01"], [
        "--from",
        spec,
        "-p",
        "x"
      ]]
    ) {
      handsBack(["stats", ...args], home)
    }
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = yield* SqliteSessionStore.make({ filename: file })
      const [session] = yield* store.catalog.listSessions()
      yield* store.append({ projectKey: session!.projectKey, sessionId: session!.sessionId }, [{
        type: "user",
        uuid: "5d0c9a7e-3b1f-4c2d-8e6a-9f0b1c2d3e4f",
        timestamp: "2030-01-01T00:00:00.000Z",
        message: { role: "user", content: "later" }
      }])
      yield* store.catalog.refresh()
    })))
    handsBack(["stats", "--from", spec], home) // derived, but its cached folds are stale
    await fullStats(spec, home, { json: false, by: "session" })
    expect((await stats(["--from", spec])).stderr).toBe(FAST_STATS)
  })
})

describe("the fast read path's command line", () => {
  it("takes --from, --json and --project / -p, each once, in any order", () => {
    expect(parseSessions(["--from", "a.db"])).toEqual({ from: "a.db", json: false, project: undefined })
    expect(parseSessions(["-p", "k", "--json", "--from", "sqlite:x"])).toEqual({
      from: "sqlite:x",
      json: true,
      project: "k"
    })
    for (
      const args of [
        [],
        ["--json"],
        ["--from"],
        ["--from", "--json"],
        ["--from", "a.db", "extra"],
        ["--from", "a.db", "--project", "-x"],
        ["--from", "a.db", "--follow-symlinks"],
        ["--from", "a.db", "-p", "k", "--project", "k"]
      ]
    ) {
      expect(parseSessions(args), JSON.stringify(args)).toBeUndefined()
    }
  })

  it("stats takes --from, --json and --by GROUP, each once", () => {
    expect(parseStats(["--from", "a.db"])).toEqual({ from: "a.db", json: false, by: "session" })
    expect(parseStats(["--by", "week", "--json", "--from", "a.db"])).toEqual({ from: "a.db", json: true, by: "week" })
    for (
      const args of [[], ["--from", "a.db", "--by"], ["--from", "a.db", "--by", "hour"], [
        "--from",
        "a.db",
        "--project",
        "k"
      ]]
    ) {
      expect(parseStats(args), JSON.stringify(args)).toBeUndefined()
    }
  })

  it("its bundle loads no Effect and no CLI framework", () => {
    const map = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), "../dist/fast-read.cjs.map"), "utf8")) as {
      sources: Array<string>
    }
    expect(map.sources.filter((source) => /node_modules\/(effect|@effect)\//.test(source))).toEqual([])
    expect(map.sources.some((source) => source.endsWith("src/fastRead.ts"))).toBe(true)
  })
})
