/**
 * `acx sessions --from sqlite:FILE` and `acx stats --from sqlite:FILE` (`src/internal/storeReads.ts`,
 * one path) on a store synced from the real fixtures, in process: what they print is what the
 * store's own API lists and folds (`openStore`, `StoreProjects`, `SessionListing.rows`;
 * `StoreStats.foldStats`), rendered by the one renderers; a store behind its entries is derived,
 * then read; an empty store, a project with no session, a file that is not a store, a missing file
 * are said in the store's words; `stats` takes its folds from the statistics cache when it holds
 * every session as the catalog has it, else the store folds what it lacks. The bundle the binary
 * loads (`dist/store-reads.cjs`) holds no Effect, and one run through the binary prints the same.
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as Pricing from "@acx/convert/Pricing"
import * as Fixtures from "@acx/fixtures"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CommandIo, processIo } from "../src/CommandIo.js"
import { CurrentIo } from "../src/internal/currentIo.js"
import * as format from "../src/internal/format.js"
import { storeListing } from "../src/internal/sessionsTable.js"
import { statsReport } from "../src/internal/statsTable.js"
import { sessionsOfPostgres } from "../src/internal/storeReads.js"
import { openStore } from "../src/internal/storeSource.js"
import { acx, BIN, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { closedPort, dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

/** The store's sessions as its own API lists them (it derives what is behind first), rendered. */
const listed = (spec: string, options: { readonly json: boolean; readonly project?: string }) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { display, store } = yield* openStore(spec).pipe(Effect.provideService(CurrentIo, processIo()))
    const projects = StoreProjects.make({ store, location: display })
    const origins = yield* StatsOrigins.ofStore(store, options.project)
    const list = SessionListing.rows(yield* projects.listSessions(options.project), origins)
    return `${storeListing(list, { json: options.json, place: `in ${display}` })}\n`
  })))

/** The store's report as `StoreStats.foldStats` folds it (caching in `home`'s cache), rendered. */
const folded = (spec: string, home: string, options: { readonly json: boolean; readonly by: "session" | "day" }) =>
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

const readiness = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(StoreCatalogSql.READINESS).get() as { version: number; behind: number }
  } finally {
    db.close()
  }
}

const edit = (file: string, sql: string) => {
  const db = new Database(file)
  db.exec(sql)
  db.close()
}

const appendPrompt = (
  file: string,
  session: { readonly projectKey: string; readonly sessionId: string },
  uuid: string
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* SqliteSessionStore.make({ filename: file })
    yield* store.append({ projectKey: session.projectKey, sessionId: session.sessionId }, [{
      type: "user",
      uuid,
      timestamp: "2030-01-01T00:00:00.000Z",
      message: { role: "user", content: "a prompt appended after the catalog was derived" }
    }])
  })))

let root = ""
let built: Fixtures.BuiltConfigDir
let synced = ""
beforeAll(async () => {
  root = tempDir("storereads")
  built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
  synced = path.join(root, "synced.db")
  const result = await acxInProcess(["sync", "--config-dir", built.configDir, "--to", `sqlite:${synced}`, "--json"])
  expect(result.code, result.stderr).toBe(0)
  // checkpointed: one file to copy
  edit(synced, "PRAGMA wal_checkpoint(TRUNCATE)")
}, TEST_TIMEOUT_MS)
afterAll(() => removeTreeWhenIdle(root), 70_000)

// a copy of the synced store (as synced: nothing derived since)
const copy = (name: string): string => {
  const target = path.join(root, name)
  fs.copyFileSync(synced, target)
  return target
}

describe("acx sessions --from sqlite:", () => {
  let file = ""
  let project = ""
  beforeAll(async () => {
    file = copy("current.db")
    await listed(`sqlite:${file}`, { json: true }) // derives every entry: a current store
    project = built.sessions[0]!.projectKey
  }, TEST_TIMEOUT_MS)

  it("lists a current store as its catalog has it: a table, --json, a bare FILE.db, --project, -p", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expect(readiness(file).behind).toBe(0)
    const spec = `sqlite:${file}`
    const shapes: ReadonlyArray<readonly [ReadonlyArray<string>, { json: boolean; project?: string }]> = [
      [["--from", spec], { json: false }],
      [["--from", spec, "--json"], { json: true }],
      [["--json", "--from", file], { json: true }],
      [["--from", spec, "--project", project], { json: false, project }],
      [["-p", project, "--json", "--from", spec], { json: true, project }]
    ]
    for (const [args, options] of shapes) {
      const result = await acxInProcess(["sessions", ...args])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toBe("")
      expect(result.stdout, args.join(" ")).toBe(await listed(spec, options))
    }
    const all = JSON.parse((await acxInProcess(["sessions", "--from", spec, "--json"])).stdout) as Array<
      { sessionId: string }
    >
    expect(all.map((row) => row.sessionId).sort()).toEqual(built.sessions.map((s) => s.sessionId).sort())
    const table = (await acxInProcess(["sessions", "--from", spec])).stdout
    expect(table).toMatch(/^SESSION\s+PROJECT\s+LAST ACTIVE\s+SIZE/)
    for (const session of built.sessions) expect(table).toContain(session.sessionId)
  })

  it("--limit N (-n N): the N last active rows, read from the catalog and through the store alike", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const newer = copy("newer-limit.db")
    edit(
      newer,
      "INSERT INTO acx_session_store_migrations (migration_id, name) SELECT max(migration_id) + 1, 'later' FROM acx_session_store_migrations"
    )
    // a current store is read from its catalog without Effect; one of a later schema through the store
    for (const spec of [`sqlite:${file}`, `sqlite:${newer}`]) {
      const all = JSON.parse((await acxInProcess(["sessions", "--from", spec, "--json"])).stdout) as Array<unknown>
      expect(all.length).toBeGreaterThan(2)
      for (const args of [["--limit", "2"], ["-n", "2"]]) {
        const result = await acxInProcess(["sessions", "--from", spec, "--json", ...args])
        expect(result.code, result.stderr).toBe(0)
        expect(JSON.parse(result.stdout)).toEqual(all.slice(0, 2))
      }
      const table = (await acxInProcess(["sessions", "--from", spec, "-n", "1"])).stdout.trim().split("\n")
      expect(table).toHaveLength(2)
      expect(table[1]).toContain((all[0] as { sessionId: string }).sessionId)
    }
  })

  it("resolves a relative file against the working directory", { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = await acxInProcess(["sessions", "--from", "sqlite:current.db", "--json"], { cwd: root })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(await listed(`sqlite:${file}`, { json: true }))
  })

  it("derives a store behind its entries, then reads it (the new prompt shown)", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const behind = copy("behind.db")
    await appendPrompt(behind, built.sessions[0]!, "0f8a3c1e-5b7d-4e2a-9c6f-1d3b5a7e9c2f")
    expect(readiness(behind).behind).toBeGreaterThan(0)
    const result = await acxInProcess(["sessions", "--from", `sqlite:${behind}`, "--json"])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("a prompt appended after the catalog was derived")
    expect(readiness(behind).behind).toBe(0)
    expect(result.stdout).toBe(await listed(`sqlite:${behind}`, { json: true }))
  })

  it("lists a catalog of a later schema through the store", { timeout: TEST_TIMEOUT_MS }, async () => {
    const newer = copy("newer.db")
    edit(
      newer,
      "INSERT INTO acx_session_store_migrations (migration_id, name) SELECT max(migration_id) + 1, 'later' FROM acx_session_store_migrations"
    )
    const result = await acxInProcess(["sessions", "--from", `sqlite:${newer}`, "--json"])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toHaveLength(built.sessions.length)
  })

  it("an empty store: no sessions in it, [] as JSON; a project with no session is one line, exit 1", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const empty = copy("empty.db")
    edit(empty, "DELETE FROM acx_session_meta; DELETE FROM acx_session_keys; DELETE FROM acx_session_entries")
    const table = await acxInProcess(["sessions", "--from", `sqlite:${empty}`])
    expect([table.code, table.stdout, table.stderr]).toEqual([0, `no sessions in sqlite:${empty}\n`, ""])
    const json = await acxInProcess(["sessions", "--from", `sqlite:${empty}`, "--json"])
    expect([json.code, json.stdout]).toEqual([0, "[]\n"])
    for (const args of [["--from", `sqlite:${file}`, "-p", "nothere"], ["--from", empty, "-p", "nothere", "--json"]]) {
      const none = await acxInProcess(["sessions", ...args])
      const where = args[1]!.startsWith("sqlite:") ? args[1] : `sqlite:${args[1]}`
      expect([none.code, none.stdout, none.stderr]).toEqual([
        1,
        "",
        `acx: no sessions for project nothere in ${where}\n`
      ])
    }
  })

  it("a file that is not a store, a missing file: one line, exit 1, nothing created or changed", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const text = path.join(root, "text.db")
    fs.writeFileSync(text, "not a database\n")
    const absent = path.join(root, "absent.db")
    for (const target of [text, absent]) {
      const result = await acxInProcess(["sessions", "--from", `sqlite:${target}`])
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderrLines).toHaveLength(1)
      expect(result.stderr).toContain(target)
    }
    expect(fs.readFileSync(text, "utf8")).toBe("not a database\n")
    expect(fs.existsSync(absent)).toBe(false)
  })

  it("reads a current store without writing to it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const readOnly = copy("readonly.db")
    await listed(`sqlite:${readOnly}`, { json: true })
    edit(readOnly, "PRAGMA wal_checkpoint(TRUNCATE)")
    const before = fs.readFileSync(readOnly)
    fs.chmodSync(readOnly, 0o444)
    const result = await acxInProcess(["sessions", "--from", `sqlite:${readOnly}`, "--json"])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toHaveLength(built.sessions.length)
    expect(fs.readFileSync(readOnly).equals(before)).toBe(true)
  })

  it("a generated store of many sessions, origins of two machines, damaged and tied rows: as its catalog lists", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const big = generateBigConfigDir({ dir: path.join(root, "big"), sessions: 400, bytes: 3_000_000, projects: 5 })
    const store = path.join(root, "big.db")
    const synced = await acxInProcess(["sync", "--config-dir", big.configDir, "--to", `sqlite:${store}`])
    expect(synced.code, synced.stderr).toBe(0)
    const spec = `sqlite:${store}`
    await listed(spec, { json: true }) // derived: a current store
    const keys = new Database(store, { readonly: true }).prepare(
      "SELECT project_key, session_id FROM acx_session_meta ORDER BY project_key, session_id"
    ).all() as Array<{ project_key: string; session_id: string }>
    const at = (i: number) => `project_key = '${keys[i]!.project_key}' AND session_id = '${keys[i]!.session_id}'`
    const tied = JSON.stringify({ lastTime: "2030-05-05T05:05:05.000Z", customTitle: "tied" })
    edit(
      store,
      `UPDATE acx_session_meta SET state = '{not json' WHERE ${at(0)};
      UPDATE acx_session_meta SET state = '[1, 2]' WHERE ${at(1)};
      UPDATE acx_session_meta SET state = '{"customTitle": 5, "firstPrompt": "api_token=abc123 \\u001b]52;c;x\\u0007", "lastTime": "soon"}' WHERE ${
        at(2)
      };
      UPDATE acx_session_meta SET state = '{"customTitle": "\\ud800 half a pair", "lastUserPrompt": "sk-ant-api03-abcdefghijklmnopqrstuvwx"}' WHERE ${
        at(3)
      };
      UPDATE acx_session_meta SET state = '${tied}' WHERE ${at(4)} OR ${at(5)} OR ${at(6)};
      UPDATE acx_session_origin SET machine = 'ci-runner', project = 'github.com/acme/app' WHERE ${at(7)} OR ${at(8)};
      DELETE FROM acx_session_origin WHERE ${at(9)};`
    )
    const project = keys[10]!.project_key
    for (
      const [args, options] of [
        [["--from", spec], { json: false }],
        [["--from", spec, "--json"], { json: true }],
        [["--from", spec, "-p", project], { json: false, project }],
        [["--from", spec, "-p", project, "--json"], { json: true, project }]
      ] as const
    ) {
      const result = await acxInProcess(["sessions", ...args])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout, args.join(" ")).toBe(await listed(spec, options))
    }
    const rows = JSON.parse((await acxInProcess(["sessions", "--from", spec, "--json"])).stdout) as Array<
      { sessionId: string; title?: string; lastPrompt?: string; machine?: string }
    >
    expect(rows).toHaveLength(big.sessions)
    // the tied rows by session id; the secret masked; a machine column for the sessions of two machines
    const ties = rows.filter((row) => row.title === "tied").map((row) => row.sessionId)
    expect(ties).toEqual([keys[4]!, keys[5]!, keys[6]!].map((key) => key.session_id).sort())
    expect(rows.find((row) => row.sessionId === keys[3]!.session_id)?.lastPrompt).toBe("[REDACTED:anthropic-key]")
    expect((await acxInProcess(["sessions", "--from", spec])).stdout).toMatch(/^SESSION\s+MACHINE\s+PROJECT/)
  })

  it("the binary prints the same, and its store reads' bundle holds no Effect", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const args = ["sessions", "--from", `sqlite:${file}`]
    const spawned = await acx(args)
    expect(spawned.code, spawned.stderr).toBe(0)
    expect(spawned.stdout).toBe((await acxInProcess(args)).stdout)
    const map = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), "../dist/store-reads.cjs.map"), "utf8")) as {
      sources: Array<string>
    }
    expect(map.sources.filter((source) => /node_modules\/(effect|@effect)\//.test(source))).toEqual([])
    expect(map.sources.some((source) => source.endsWith("src/internal/storeReads.ts"))).toBe(true)
  })
})

const PG_URL = process.env["ACX_PG_URL"]

describe.skipIf(PG_URL === undefined)("acx sessions --from postgres://", () => {
  const schema = `acx_storereads_${process.pid}`
  const specOf = (url: string, name = schema) => {
    const at = new URL(url)
    at.searchParams.set("schema", name)
    return at.href
  }
  const spec = () => specOf(PG_URL!)
  const sql = async (statements: string) => {
    // pg's types are not installed here
    const pg = (await import("pg" as string)) as {
      default: {
        Client: new(options: object) => {
          connect(): Promise<void>
          query(text: string): Promise<unknown>
          end(): Promise<void>
        }
      }
    }
    const client = new pg.default.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      await client.query(statements.replaceAll("SCHEMA.", `${schema}.`))
    } finally {
      await client.end()
    }
  }
  // the read without Effect, in process: what it printed, its exit code, and whether it handed
  // the listing to the store (`list`, which then answers 99)
  const fastRead = async (args: { readonly from: string; readonly json?: boolean; readonly project?: string }) => {
    const out: Array<string> = []
    const err: Array<string> = []
    let handed = 0
    const io: CommandIo = {
      ...processIo(),
      stdout: async (text) => void out.push(text),
      stderr: (text) => void err.push(text)
    }
    const code = await sessionsOfPostgres(
      { configDir: undefined, followSymlinks: false, project: undefined, json: false, ...args },
      io,
      {
        list: async () => {
          handed++
          return 99
        }
      }
    )
    return { code, stdout: out.join(""), stderr: err.join(""), handed }
  }

  beforeAll(async () => {
    const synced = await acxInProcess(["sync", "--config-dir", built.configDir, "--to", spec()])
    expect(synced.code, synced.stderr).toBe(0)
    await listed(spec(), { json: true }) // derived: a current store
  }, TEST_TIMEOUT_MS)
  afterAll(() => dropSchema(PG_URL!, schema))

  it("reads a current store without the store: what the store lists, every shape; damaged rows, two machines", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const project = built.sessions[0]!.projectKey
    const check = async () => {
      for (const options of [{ json: false }, { json: true }, { json: false, project }, { json: true, project }]) {
        const read = await fastRead({ from: spec(), ...options })
        expect([read.code, read.handed, read.stderr]).toEqual([0, 0, ""])
        expect(read.stdout, JSON.stringify(options)).toBe(await listed(spec(), options))
        const binary = await acxInProcess([
          "sessions",
          "--from",
          spec(),
          ...(options.json ? ["--json"] : []),
          ...(
            options.project === undefined ? [] : ["-p", options.project]
          )
        ])
        expect(binary.stdout).toBe(read.stdout)
      }
    }
    await check()
    const [a, b, c] = built.sessions
    await sql(`UPDATE SCHEMA.acx_session_meta SET state = '{not json' WHERE session_id = '${a!.sessionId}';
      UPDATE SCHEMA.acx_session_meta SET state = '{"customTitle": 7, "lastUserPrompt": "password=hunter2x"}'
        WHERE session_id = '${b!.sessionId}';
      UPDATE SCHEMA.acx_session_origin SET machine = 'ci-runner', project = 'github.com/acme/app'
        WHERE session_id = '${c!.sessionId}'`)
    await check()
    expect((await fastRead({ from: spec() })).stdout).toMatch(/^SESSION\s+MACHINE\s+PROJECT/)
    const none = await fastRead({ from: spec(), project: "nothere" })
    expect([none.code, none.stdout, none.handed]).toEqual([1, "", 0])
    expect(none.stderr).toBe((await acxInProcess(["sessions", "--from", spec(), "-p", "nothere"])).stderr)
  })

  it("hands a store it cannot read as is to the store: entries not derived, a later schema, no answer, no store", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions[0]!
    await sql(`UPDATE SCHEMA.acx_session_keys SET derived_mtime = -1
      WHERE project_key = '${session.projectKey}' AND session_id = '${session.sessionId}' AND subpath = ''`)
    expect(await fastRead({ from: spec(), json: true })).toEqual({ code: 99, stdout: "", stderr: "", handed: 1 })
    // through the store: derived, then read as is again
    const derived = await acxInProcess(["sessions", "--from", spec(), "--json"])
    expect(derived.code, derived.stderr).toBe(0)
    expect((await fastRead({ from: spec(), json: true })).handed).toBe(0)
    await sql(`INSERT INTO SCHEMA.acx_session_store_migrations (migration_id, name)
      SELECT max(migration_id) + 1, 'later' FROM SCHEMA.acx_session_store_migrations`)
    expect((await fastRead({ from: spec() })).handed).toBe(1)
    await sql(`DELETE FROM SCHEMA.acx_session_store_migrations
      WHERE migration_id = (SELECT max(migration_id) FROM SCHEMA.acx_session_store_migrations)`)
    const closed = new URL(PG_URL!)
    closed.port = String(await closedPort())
    expect((await fastRead({ from: specOf(closed.href) })).handed).toBe(1)
    expect((await fastRead({ from: specOf(PG_URL!, "acx_no_such_schema") })).handed).toBe(1)
    expect((await fastRead({ from: "sqlite:/nowhere.db" })).handed).toBe(1)
  })
})

describe("acx stats --from sqlite:", () => {
  type Read = { cached: number; folded: number }
  const readOf = (stdout: string) => (JSON.parse(stdout) as { read: Read }).read

  it("cold: the store folds and caches; warm: every transcript from the cache, the same report", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const file = copy("stats.db")
    const home = path.join(root, "stats-home")
    const spec = `sqlite:${file}`
    const env = { ACX_HOME: home }
    const cold = await acxInProcess(["stats", "--from", spec, "--json"], { env })
    expect(cold.code, cold.stderr).toBe(0)
    const first = readOf(cold.stdout)
    expect(first.folded).toBeGreaterThan(0)
    const warm = await acxInProcess(["stats", "--from", spec, "--json"], { env })
    expect(readOf(warm.stdout)).toMatchObject({ cached: first.folded + first.cached, appended: 0, folded: 0 })
    for (
      const [args, options] of [[["--from", spec], { json: false, by: "session" }], [["--by", "day", "--from", file], {
        json: false,
        by: "day"
      }], [["--from", spec, "--json"], { json: true, by: "session" }]] as const
    ) {
      const result = await acxInProcess(["stats", ...args], { env })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout, args.join(" ")).toBe(await folded(spec, home, options))
    }

    // after an append: the changed session folded again, the others from the cache
    const session = built.sessions[0]!
    await appendPrompt(file, session, "5d0c9a7e-3b1f-4c2d-8e6a-9f0b1c2d3e4f")
    const after = readOf((await acxInProcess(["stats", "--from", spec, "--json"], { env })).stdout)
    expect(after.folded).toBeGreaterThan(0)
    expect(after.cached).toBeGreaterThan(0)
    expect(after.folded + after.cached).toBe(first.folded + first.cached)
    expect(readOf((await acxInProcess(["stats", "--from", spec, "--json"], { env })).stdout).folded).toBe(0)

    // a project: its sessions from the cache; one with no session is one line, exit 1
    const one = await acxInProcess(["stats", "--from", spec, "--json", "-p", session.projectKey], { env })
    expect(readOf(one.stdout).folded).toBe(0)
    expect((JSON.parse(one.stdout) as { rows: Array<{ project?: string }> }).rows.length).toBeGreaterThan(0)
    const none = await acxInProcess(["stats", "--from", spec, "-p", "nothere"], { env })
    expect([none.code, none.stderr]).toEqual([1, `acx: no sessions for project nothere in ${spec}\n`])
  })

  it("ranges: a range with no day is said; a bad one is exit 2; --live only with --by block", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const file = copy("ranges.db")
    const env = { ACX_HOME: path.join(root, "ranges-home") }
    const spec = `sqlite:${file}`
    for (let round = 0; round < 2; round++) {
      const later = await acxInProcess(["stats", "--from", spec, "--since", "2031-01-01"], { env })
      expect([later.code, later.stdout]).toEqual([0, `no sessions in that date range in ${spec}\n`])
    }
    const within = await acxInProcess(["stats", "--from", spec, "--until", "2031-01-01", "--json"], { env })
    expect((JSON.parse(within.stdout) as { rows: Array<unknown>; until: string }).rows.length).toBeGreaterThan(0)
    const bad = await acxInProcess(["stats", "--from", spec, "--since", "garbage"], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderrLines).toHaveLength(1)
    expect(bad.stderr).toContain("--since")
    const live = await acxInProcess(["stats", "--from", spec, "--live"], { env })
    expect([live.code, live.stderr]).toEqual([2, "acx: --live: only with --by block\n"])
  })

  it("an empty store: no sessions in it; a stored row that is not an entry is skipped, cold and warm alike", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const empty = copy("stats-empty.db")
    edit(empty, "DELETE FROM acx_session_meta; DELETE FROM acx_session_keys; DELETE FROM acx_session_entries")
    const env = { ACX_HOME: path.join(root, "malformed-home") }
    const none = await acxInProcess(["stats", "--from", `sqlite:${empty}`], { env })
    expect([none.code, none.stdout, none.stderr]).toEqual([0, `no sessions in sqlite:${empty}\n`, ""])

    // the store skips a row that is not an object (`CorruptEntry`): a
    // store's folds have no malformed line; the warm report, from the cache, is the cold one
    const file = copy("malformed.db")
    edit(file, "UPDATE acx_session_entries SET entry = '42' WHERE id = (SELECT max(id) FROM acx_session_entries)")
    const runs = []
    for (let round = 0; round < 2; round++) {
      runs.push(await acxInProcess(["stats", "--from", `sqlite:${file}`], { env }))
    }
    const [cold, warm] = runs
    expect(cold!.code, cold!.stderr).toBe(0)
    // (the store's log line of the skipped row goes to stdout: Effect's logger writes through the console)
    const report = (stdout: string) => stdout.split("\n").filter((line) => !line.startsWith("timestamp=")).join("\n")
    expect([warm!.code, warm!.stdout, warm!.stderr]).toEqual([0, report(cold!.stdout), ""])
    const json = await acxInProcess(["stats", "--from", `sqlite:${file}`, "--json"], { env })
    expect(readOf(json.stdout).folded).toBe(0)
    expect((JSON.parse(json.stdout) as { malformed: Array<unknown> }).malformed).toEqual([])
  })

  it("a refused pricing file is said in the loader's words, exit 1", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = path.join(root, "pricing-home")
    fs.mkdirSync(home, { recursive: true })
    fs.writeFileSync(path.join(home, "pricing.json"), "{ not json")
    const result = await acxInProcess(["stats", "--from", `sqlite:${copy("pricing.db")}`], { env: { ACX_HOME: home } })
    expect(result.code).toBe(1)
    expect(result.stderrLines).toHaveLength(1)
    expect(result.stderr).toContain("pricing.json")
  })
})
