/**
 * `pnpm bench` for the SessionStore adapters, each against a raw-driver baseline in the same run:
 * - append throughput, batches of 500 realistic transcript entries, against plain multi-row
 *   INSERTs of the same rows (target: adapter ≥ 50% of the baseline);
 * - `load` of a 10 000-entry session against a raw SELECT + JSON.parse (target ≤ 2×);
 * - `listSessionSummaries` over 1 000 sessions (one query, no per-session load);
 * - the derived data (`StoreCatalog`): the first read after those appends derives every entry
 *   (entries/s), then a search with nothing left to derive;
 * - Postgres only: the entry column's type, `JSONB` against `JSON` (what the adapter stores since
 *   migration 2: the text as written, so U+0000 survives) and `TEXT`, raw INSERTs and SELECTs of
 *   the same rows, interleaved; ratios against `JSONB`.
 * SQLite always; Postgres when ACX_PG_URL is set. Entries come from the transcripts in
 * packages/fixtures/data.
 */
import * as Fixtures from "@acx/fixtures"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

type Entry = SessionStore.SessionStoreEntry

const BATCH = 500
const BATCHES = 20
const LOAD_SIZE = 10_000
const SESSIONS = 1_000

const templates: Array<Record<string, unknown>> = Fixtures.transcriptEntries().map(({ value }) =>
  value as Record<string, unknown>
)
const realisticEntries = (n: number): Array<Entry> =>
  Array.from({ length: n }, (_, i) => ({ ...templates[i % templates.length]!, uuid: randomUUID() }) as Entry)

const time = async (f: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  await f()
  return performance.now() - start
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rate = (entries: number, ms: number) => `${Math.round(entries / (ms / 1000)).toLocaleString("en")} entries/s`

interface Raw {
  readonly insert: (projectKey: string, sessionId: string, entries: ReadonlyArray<Entry>) => Promise<void>
  readonly load: (projectKey: string, sessionId: string) => Promise<Array<unknown>>
  readonly close: () => Promise<void>
}

const rawSqlite = (filename: string): Raw => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.exec(
    `CREATE TABLE IF NOT EXISTS raw_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, project_key TEXT, session_id TEXT,
    subpath TEXT, uuid TEXT, entry TEXT, created_at INTEGER)`
  )
  const rows = `(?, ?, '', ?, ?, ?)`
  const insertBatch = db.prepare(
    `INSERT INTO raw_entries (project_key, session_id, subpath, uuid, entry, created_at) VALUES ${
      Array(BATCH).fill(rows).join(",")
    }`
  )
  const select = db.prepare(`SELECT entry FROM raw_entries WHERE project_key = ? AND session_id = ? ORDER BY id`)
  return {
    insert: async (projectKey, sessionId, entries) => {
      const now = Date.now()
      insertBatch.run(entries.flatMap((e) => [projectKey, sessionId, e.uuid ?? null, JSON.stringify(e), now]))
    },
    load: async (projectKey, sessionId) =>
      (select.all(projectKey, sessionId) as Array<{ entry: string }>).map((row) => JSON.parse(row.entry)),
    close: async () => void db.close()
  }
}

const rawPg = async (url: string, schema: string): Promise<Raw> => {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
  await pool.query(`CREATE TABLE ${schema}.raw_entries (id BIGSERIAL PRIMARY KEY, project_key TEXT, session_id TEXT,
    subpath TEXT DEFAULT '', uuid TEXT, entry JSON, created_at TIMESTAMPTZ DEFAULT clock_timestamp())`)
  return {
    insert: async (projectKey, sessionId, entries) => {
      const values = entries.map((_, i) => `($1, $2, $${i * 2 + 3}, $${i * 2 + 4})`).join(",")
      await pool.query(
        `INSERT INTO ${schema}.raw_entries (project_key, session_id, uuid, entry) VALUES ${values}`,
        [projectKey, sessionId, ...entries.flatMap((e) => [e.uuid ?? null, JSON.stringify(e)])]
      )
    },
    load: async (projectKey, sessionId) =>
      (await pool.query(
        `SELECT entry::text AS entry FROM ${schema}.raw_entries WHERE project_key = $1 AND session_id = $2 ORDER BY id`,
        [projectKey, sessionId]
      )).rows.map((row: { entry: string }) => JSON.parse(row.entry)),
    close: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`)
      await pool.end()
    }
  }
}

const compare = async (name: string, store: SessionStore.SdkSessionStore, raw: Raw) => {
  const batches = Array.from({ length: BATCHES }, () => realisticEntries(BATCH))
  // warm up both
  await store.append({ projectKey: "warm", sessionId: randomUUID() }, realisticEntries(BATCH))
  await raw.insert("warm", randomUUID(), realisticEntries(BATCH))

  const adapterMs: Array<number> = []
  const rawMs: Array<number> = []
  for (const [i, batch] of batches.entries()) {
    const sessionId = randomUUID()
    const run = [
      async () => adapterMs.push(await time(() => store.append({ projectKey: "bench", sessionId }, batch))),
      async () => rawMs.push(await time(() => raw.insert("bench", sessionId, batch)))
    ]
    if (i % 2 === 1) run.reverse()
    for (const step of run) await step()
  }
  const appendRatio = median(rawMs) / median(adapterMs)
  console.log(
    `  ${name} append (batches of ${BATCH}): adapter ${rate(BATCH, median(adapterMs))}, raw INSERT ${
      rate(BATCH, median(rawMs))
    } — ${(appendRatio * 100).toFixed(0)}% of baseline (target ≥ 50%) ${appendRatio >= 0.5 ? "MET" : "NOT MET"}`
  )

  const big = randomUUID()
  const entries = realisticEntries(LOAD_SIZE)
  for (let i = 0; i < LOAD_SIZE; i += BATCH) {
    await store.append({ projectKey: "bench", sessionId: big }, entries.slice(i, i + BATCH))
    await raw.insert("bench", big, entries.slice(i, i + BATCH))
  }
  const loadMs: Array<number> = []
  const rawLoadMs: Array<number> = []
  for (let i = 0; i < 5; i++) {
    loadMs.push(await time(() => store.load({ projectKey: "bench", sessionId: big })))
    rawLoadMs.push(await time(() => raw.load("bench", big)))
  }
  const loadRatio = median(loadMs) / median(rawLoadMs)
  console.log(
    `  ${name} load of ${LOAD_SIZE} entries: adapter ${median(loadMs).toFixed(1)} ms, raw SELECT + JSON.parse ${
      median(rawLoadMs).toFixed(1)
    } ms — ${loadRatio.toFixed(2)}× (target ≤ 2×) ${loadRatio <= 2 ? "MET" : "NOT MET"}`
  )

  const projectKey = `summaries-${randomUUID()}`
  for (let i = 0; i < SESSIONS; i++) {
    await store.append({ projectKey, sessionId: randomUUID() }, realisticEntries(2))
  }
  const listMs: Array<number> = []
  let listed = 0
  for (let i = 0; i < 5; i++) {
    listMs.push(
      await time(async () => {
        listed = (await store.listSessionSummaries(projectKey)).length
      })
    )
  }
  console.log(`  ${name} listSessionSummaries over ${listed} sessions: ${median(listMs).toFixed(1)} ms (one query)`)
}

/** Raw INSERT and SELECT of the same rows into an entry column of each type, interleaved. */
const columnTypes = async (url: string, schema: string) => {
  const types = ["JSONB", "JSON", "TEXT"] as const
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  await pool.query(`CREATE SCHEMA ${schema}`)
  try {
    for (const type of types) {
      await pool.query(`CREATE TABLE ${schema}.entries_${type} (id BIGSERIAL PRIMARY KEY, project_key TEXT NOT NULL,
        session_id TEXT NOT NULL, uuid TEXT, entry ${type} NOT NULL)`)
      await pool.query(`CREATE INDEX ON ${schema}.entries_${type} (project_key, session_id, id)`)
    }
    const insert = (type: string, sessionId: string, entries: ReadonlyArray<Entry>) =>
      pool.query(
        `INSERT INTO ${schema}.entries_${type} (project_key, session_id, uuid, entry) VALUES ${
          entries.map((_, i) => `('p', $1, $${i * 2 + 2}, $${i * 2 + 3})`).join(",")
        }`,
        [sessionId, ...entries.flatMap((e) => [e.uuid ?? null, JSON.stringify(e)])]
      )
    const select = async (type: string, sessionId: string) =>
      (await pool.query(
        `SELECT entry::text AS entry FROM ${schema}.entries_${type} WHERE project_key = 'p' AND session_id = $1
        ORDER BY id`,
        [sessionId]
      )).rows.map((row: { entry: string }) => JSON.parse(row.entry))
    const inserts = new Map<string, Array<number>>(types.map((type) => [type, []]))
    const loads = new Map<string, Array<number>>(types.map((type) => [type, []]))
    for (let round = 0; round < BATCHES; round++) {
      const batch = realisticEntries(BATCH)
      const order = round % 2 === 0 ? types : [...types].reverse()
      for (const type of order) inserts.get(type)!.push(await time(() => insert(type, randomUUID(), batch)))
    }
    const big = randomUUID()
    const entries = realisticEntries(LOAD_SIZE)
    for (const type of types) {
      for (let i = 0; i < LOAD_SIZE; i += BATCH) await insert(type, big, entries.slice(i, i + BATCH))
    }
    for (let round = 0; round < 5; round++) {
      const order = round % 2 === 0 ? types : [...types].reverse()
      for (const type of order) loads.get(type)!.push(await time(() => select(type, big)))
    }
    const base = { insert: median(inserts.get("JSONB")!), load: median(loads.get("JSONB")!) }
    for (const type of types) {
      const insertMs = median(inserts.get(type)!)
      const loadMs = median(loads.get(type)!)
      console.log(
        `  Postgres entry column ${type.padEnd(5)}: INSERT ${rate(BATCH, insertMs)} (${
          (base.insert / insertMs).toFixed(2)
        }× JSONB's rate), SELECT + parse of ${LOAD_SIZE} ${loadMs.toFixed(1)} ms (${
          (loadMs / base.load).toFixed(2)
        }× JSONB's time)`
      )
    }
  } finally {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`)
    await pool.end()
  }
}

// The first catalog read derives what the appends above stored (the watermark starts behind).
const deriveCatchUp = (
  name: string,
  open: Effect.Effect<StoreCatalog.WithCatalog, unknown, Scope.Scope>
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { catalog } = yield* open
    const start = performance.now()
    const derived = yield* catalog.refresh()
    const deriveMs = performance.now() - start
    const searchMs: Array<number> = []
    for (const query of ["beads", "\"sync beads\"", "tests -credo", "the"]) {
      const at = performance.now()
      yield* catalog.search(query, { limit: 20 })
      searchMs.push(performance.now() - at)
    }
    console.log(
      `  ${name} derived data: first read derived ${derived.toLocaleString("en")} entries in ${
        deriveMs.toFixed(0)
      } ms (${rate(derived, deriveMs)}); then search median ${median(searchMs).toFixed(1)} ms`
    )
  })))

const main = async () => {
  console.log(
    `SessionStore bench — ${new Date().toISOString()} — node ${process.version}, ${
      os.cpus()[0]?.model ?? "cpu"
    } x${os.cpus().length}`
  )
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-bench-"))
  try {
    const sqlite = SqliteSessionStore.createSqliteSessionStore({ filename: path.join(dir, "store.sqlite") })
    const raw = rawSqlite(path.join(dir, "raw.sqlite"))
    await compare("SQLite", sqlite, raw)
    await sqlite.close()
    await raw.close()
    await deriveCatchUp("SQLite", SqliteSessionStore.make({ filename: path.join(dir, "store.sqlite") }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const url = process.env["ACX_PG_URL"]
  if (url === undefined) {
    console.log("  Postgres skipped: ACX_PG_URL is not set")
    return
  }
  const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`
  const store = PostgresSessionStore.createPostgresSessionStore({ url, schema: `${schema}_acx` })
  const raw = await rawPg(url, schema)
  try {
    await compare("Postgres", store, raw)
    await deriveCatchUp("Postgres", PostgresSessionStore.make({ url: Redacted.make(url), schema: `${schema}_acx` }))
    await columnTypes(url, `${schema}_types`)
  } finally {
    await store.close()
    await raw.close()
    const cleanup = new pg.Client({ connectionString: url })
    await cleanup.connect()
    await cleanup.query(`DROP SCHEMA IF EXISTS ${schema}_acx CASCADE`)
    await cleanup.end()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
