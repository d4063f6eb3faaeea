/**
 * `acx sync` killed with SIGKILL at exact points of every phase, into SQLite and into Postgres,
 * then run again: the store ends as a clean sync leaves it — every entry once, and every derived
 * row (session metadata and counts, usage, search text) and origin there, nothing behind its
 * watermark. The points are reached by a barrier, not by timing: `ACX_PAUSE_AT=<phase>:<n>`
 * makes the sync write the gate file at its `n`th arrival there and wait (`PhaseBarrier`); the
 * test then kills it.
 *
 * Phases: `read` (a transcript opened), `append` (a batch's entries written, its ledger record
 * not: inside the transaction), `ledger` (a batch and its record committed), `origins` (every
 * file stored, no origin recorded), `derive` (a key's derived rows written, its watermark not:
 * inside the transaction, which holds several keys), `derived` (a key's derived data committed
 * with its transaction's, the next transaction not begun).
 */
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { unchangedSummary } from "../src/internal/unchangedSync.js"
import { acx, type AcxResult, BIN, tempDir, TEST_ACX_HOME } from "./utils/acx.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { expectedEntries } from "./utils/syncExpected.js"

const TIMEOUT = 600_000
const PG_URL = process.env["ACX_PG_URL"]!

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

/** A store to sync into and to look at with plain SQL (no catalog read, which would derive). */
interface Target {
  readonly spec: string
  readonly rows: (sql: string) => Promise<Array<Record<string, unknown>>>
  /** Entries per key: project, session, subpath, count. */
  readonly perKey: string
  readonly close: () => Promise<void>
}

const sqliteTarget = (file: string): Target => ({
  spec: `sqlite:${file}`,
  perKey: `SELECT k.project_key, k.session_id, k.subpath, count(*) AS n
    FROM acx_session_entries e JOIN acx_session_keys k ON k.id = e.key_id GROUP BY k.id`,
  rows: async (sql) => {
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>
    } finally {
      db.close()
    }
  },
  close: async () => {}
})

const postgresTarget = async (schema: string): Promise<Target> => {
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`SET search_path TO "${schema}"`)
  const spec = new URL(PG_URL)
  spec.searchParams.set("schema", schema)
  return {
    spec: spec.href,
    perKey: `SELECT project_key, session_id, subpath, count(*) AS n
      FROM claude_session_entries GROUP BY project_key, session_id, subpath`,
    rows: async (sql) => (await client.query(sql)).rows,
    close: async () => {
      await client.end()
      await dropSchema(PG_URL, schema)
    }
  }
}

/**
 * What a store holds, in a form two stores can be compared by: entries per key, keys behind their
 * watermark, each session's derived metadata and counts, usage and search rows per key, origins.
 */
const snapshot = async (target: Target) => {
  const text = async (sql: string) =>
    (await target.rows(sql)).map((row) => JSON.stringify(Object.values(row).map(String))).sort()
  return {
    entries: await text(target.perKey),
    behind: await text("SELECT project_key, session_id, subpath FROM acx_session_keys WHERE mtime > derived_mtime"),
    meta: await text(`SELECT project_key, session_id, state, entries, user_messages, assistant_messages,
      tool_calls, subagents FROM acx_session_meta`),
    usage: await text("SELECT count(*) AS n FROM acx_session_usage"),
    search: await text("SELECT count(*) AS n FROM acx_session_text"),
    origins: await text("SELECT project_key, session_id, machine, project FROM acx_session_origin")
  }
}

/** Starts `acx sync` paused at `at` and kills it with SIGKILL once it is there (failing when it ended first). */
const killAt = async (target: Target, configDir: string, at: string, root: string): Promise<void> => {
  const gate = path.join(root, `gate-${randomUUID().slice(0, 8)}`)
  const child = spawn(
    process.execPath,
    [BIN, "sync", "--to", target.spec, "--config-dir", configDir, "--machine", "m1", "--json"],
    {
      env: { ...process.env, ACX_HOME: TEST_ACX_HOME, ACX_PAUSE_AT: at, ACX_PAUSE_GATE: gate },
      stdio: ["ignore", "ignore", "pipe"]
    }
  )
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)))
  let exited = false
  void closed.then(() => (exited = true))
  await expect.poll(() => fs.existsSync(gate) || exited, { timeout: 240_000, interval: 20 }).toBe(true)
  if (!fs.existsSync(gate)) {
    expect.fail(`the sync ended before reaching ${at}: ${stderr}`)
  }
  child.kill("SIGKILL")
  expect(await closed).toBe("SIGKILL")
}

const sync = (target: Target, configDir: string) =>
  acx(["sync", "--to", target.spec, "--config-dir", configDir, "--machine", "m1", "--json"], {
    env: { ACX_HOME: TEST_ACX_HOME }
  })

describe("acx sync killed at every phase, then run again", () => {
  let root = ""
  let configDir = ""
  let total = 0
  const reference: Record<string, Awaited<ReturnType<typeof snapshot>>> = {}

  // every phase, early and late (a key of a subagent derives after every main transcript); on
  // Postgres one point of each phase, late enough to have work on both sides of it
  const everyPoint = [
    "read:1",
    "read:9",
    "append:1",
    "append:12",
    "ledger:2",
    "ledger:14",
    "origins:1",
    "derive:1",
    "derive:15",
    "derived:1",
    "derived:14"
  ]
  const onePerPhase = ["read:9", "append:12", "ledger:2", "origins:1", "derive:15", "derived:1"]

  const engines: ReadonlyArray<readonly [string, (name: string) => Promise<Target>, ReadonlyArray<string>]> = [
    ["SQLite", async (name) => sqliteTarget(path.join(root, `${name}.db`)), everyPoint],
    ["Postgres", async (name) => postgresTarget(`acx_killpt_${process.pid}_${name.replace(/\W/g, "_")}`), onePerPhase]
  ]

  beforeAll(async () => {
    root = tempDir("sync-killpoints")
    // 16 sessions (4 with a subagent), 2 projects, ~4 MB: batches of 500 entries in every
    // transcript, several per file, and a first sync of a few seconds
    const big = generateBigConfigDir({ dir: path.join(root, "claude"), sessions: 16, bytes: 4_000_000, projects: 2 })
    configDir = big.configDir
    total = expectedEntries(configDir).reduce((n, { entries }) => n + entries.length, 0)
    for (const [engine, make] of engines) {
      const target = await make("reference")
      try {
        ok(await sync(target, configDir))
        reference[engine] = await snapshot(target)
      } finally {
        await target.close()
      }
    }
  }, TIMEOUT)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it("the reference stores are whole and derived", () => {
    for (const [engine] of engines) {
      const ref = reference[engine]!
      expect(ref.behind).toEqual([])
      expect(ref.entries.reduce((n, row) => n + Number(JSON.parse(row).at(-1)), 0)).toBe(total)
      expect(ref.meta.length).toBe(16)
      expect(ref.origins.length).toBe(16)
    }
  })

  it.each(engines)("%s: killed at each point, the next sync leaves what a clean sync leaves", {
    timeout: TIMEOUT
  }, async (engine, make, points) => {
    for (const at of points) {
      const target = await make(`k_${at.replace(":", "_")}`)
      try {
        await killAt(target, configDir, at, root)
        ok(await sync(target, configDir))
        expect(await snapshot(target), `killed at ${at}`).toEqual(reference[engine])
      } finally {
        await target.close()
      }
    }
  })

  it.each(engines)(
    "%s: killed inside a derive transaction of many keys, none of them is derived; the next sync derives them",
    {
      timeout: TIMEOUT
    },
    async (engine, make) => {
      const target = await make("derive_many")
      try {
        // the 15th key's rows written, in the transaction that holds the first keys (none of them
        // committed; when each key derived in its own transaction, 14 were)
        await killAt(target, configDir, "derive:15", root)
        const keys = await target.rows("SELECT count(*) AS n FROM acx_session_keys")
        expect((await snapshot(target)).behind.length).toBe(Number(keys[0]!["n"]))
        expect((await target.rows("SELECT count(*) AS n FROM acx_session_text")).map((row) => Number(row["n"])))
          .toEqual([0])
        ok(await sync(target, configDir))
        expect(await snapshot(target)).toEqual(reference[engine])
      } finally {
        await target.close()
      }
    }
  )

  it("SQLite: a store left behind with no lock held is derived by the next sync, not answered unchanged", {
    timeout: TIMEOUT
  }, async () => {
    const target = sqliteTarget(path.join(root, "behind-unlocked.db"))
    await killAt(target, configDir, "derived:3", root)
    // the killed sync's lock broken, as a sync that ran meanwhile leaves it: the first step may look
    const locks = path.join(TEST_ACX_HOME, "sync")
    for (const dir of fs.readdirSync(locks)) {
      for (const file of fs.readdirSync(path.join(locks, dir))) fs.rmSync(path.join(locks, dir, file))
    }
    const options = {
      to: target.spec,
      configDir,
      json: true,
      watch: false,
      background: false,
      machine: "m1",
      user: undefined,
      noMask: false
    }
    const io = { env: { ACX_HOME: TEST_ACX_HOME }, cwd: root }
    // entries behind their watermark: not unchanged, the sync derives them
    expect(unchangedSummary(options, io)).toBeUndefined()
    ok(await sync(target, configDir))
    expect(await snapshot(target)).toEqual(reference["SQLite"])
    // and now unchanged and derived: the first step answers, and the sync prints it, storing nothing
    expect(JSON.parse(unchangedSummary(options, io)!)).toMatchObject({ entries: 0, filesRead: 0 })
    expect(JSON.parse(ok(await sync(target, configDir)).stdout)).toMatchObject({ entries: 0, filesRead: 0 })
    expect(await snapshot(target)).toEqual(reference["SQLite"])
  })
})
