/**
 * `acx sync` interrupted and raced, with real processes on a synthetic config dir
 * (`@acx/testing/BigConfigDir`, 24 sessions, ~6 MB, entries without a `uuid` among them, so
 * only the ledger keeps them single):
 * - `kill -9` at several points of a sync (into SQLite, and into Postgres when ACX_PG_URL is set) (before its first batch, a quarter, three fifths and
 *   nine tenths of the way, each on a rerun of the one killed before), then one more sync: every
 *   entry of every file stored exactly once; the killed holders' locks are broken, not waited on;
 * - `--watch` stopped by SIGINT in the middle of a sync exits 0, and the next sync stores the rest;
 * - two syncs of one target started at once both succeed and store every entry once;
 * - a lock held by a live process: `acx sync --background` (what the hook starts) leaves an
 *   `again` mark and exits 0 at once, without syncing; a plain `acx sync` waits for the lock,
 *   then syncs.
 */
import * as ClaudeSync from "@acx/claude-code/ClaudeSync"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import type { SdkSessionStore } from "@acx/session-store/SessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { type BigConfigDir, generateBigConfigDir } from "@acx/testing/BigConfigDir"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, BIN, parseJson, tempDir, TEST_ACX_HOME } from "./utils/acx.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { expectedEntries } from "./utils/syncExpected.js"

const TIMEOUT = 300_000
const PG_URL = process.env["ACX_PG_URL"]
const PG_SCHEMA = `acx_sync_kill_${process.pid}_${randomUUID().slice(0, 8)}`

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

/** A target the tests sync into: its spec, a row count of its entries table, a store to read it. */
interface Target {
  readonly spec: string
  readonly rows: () => Promise<number>
  readonly open: () => SdkSessionStore & { readonly close: () => Promise<void> }
}

const sqliteTarget = (file: string): Target => ({
  spec: `sqlite:${file}`,
  rows: async () => rowCount(file),
  open: () => createSqliteSessionStore({ filename: file })
})

const postgresTarget = (url: string, schema: string): Target & { readonly end: () => Promise<void> } => {
  const spec = new URL(url)
  spec.searchParams.set("schema", schema)
  // one connection for every count: the kill loop asks every few milliseconds, and a connection
  // per question (its authentication) cost more than the sync it watched
  let client: Promise<PgClient> | undefined
  const connected = () => (client ??= (async () => {
    const pg = (await import("pg" as string)) as {
      default: { Client: new(options: object) => PgClient }
    }
    const opened = new pg.default.Client({ connectionString: url })
    await opened.connect()
    return opened
  })())
  return {
    spec: spec.href,
    rows: async () => {
      const opened = await connected()
      try {
        const result = await opened.query(`SELECT count(*)::int AS n FROM "${schema}".claude_session_entries`)
        return result.rows[0]!.n
      } catch {
        return 0 // its tables not yet
      }
    },
    open: () => createPostgresSessionStore({ url, schema }),
    end: async () => {
      if (client !== undefined) await (await client).end()
    }
  }
}

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<{ rows: Array<{ n: number }> }>
  end(): Promise<void>
}

const expectExactlyOnce = async (target: Target, configDir: string) => {
  const expected = expectedEntries(configDir)
  const store = target.open()
  try {
    for (const { entries, key } of expected) expect(await store.load(key), JSON.stringify(key)).toEqual(entries)
  } finally {
    await store.close()
  }
  expect(await target.rows()).toBe(expected.reduce((n, { entries }) => n + entries.length, 0))
}

const rowCount = (file: string): number => {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      return (db.prepare("SELECT count(*) AS n FROM acx_session_entries").get() as { n: number }).n
    } finally {
      db.close()
    }
  } catch {
    return 0 // not created yet, or its tables not yet
  }
}

/** Starts `acx sync` into `target` and kills it with SIGKILL once the store holds `atRows` rows. */
const killSyncAt = (target: Target, configDir: string, atRows: number) =>
  new Promise<{ killedAt: number; code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, "sync", "--to", target.spec, "--config-dir", configDir, "--json"],
      { env: { ...process.env, ACX_HOME: TEST_ACX_HOME }, stdio: "ignore" }
    )
    let killedAt = -1
    let exited = false
    const poll = async () => {
      while (!exited && killedAt < 0) {
        const rows = await target.rows()
        if (rows >= atRows && !exited) {
          killedAt = rows
          child.kill("SIGKILL")
        }
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    void poll()
    child.on("error", reject)
    child.on("close", (code, signal) => {
      exited = true
      resolve({ killedAt, code, signal })
    })
  })

describe("acx sync interrupted and raced", () => {
  let root = ""
  let big: BigConfigDir
  let total = 0

  beforeAll(() => {
    root = tempDir("sync-kill")
    big = generateBigConfigDir({ dir: path.join(root, "claude"), sessions: 24, bytes: 6_000_000, projects: 3 })
    total = expectedEntries(big.configDir).reduce((n, { entries }) => n + entries.length, 0)
  }, TIMEOUT)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  const killTargets: ReadonlyArray<readonly [string, () => Target, () => Promise<void>]> = [
    ["SQLite", () => sqliteTarget(path.join(root, "killed.db")), async () => {}],
    ...(PG_URL === undefined ? [] : (() => {
      const target = postgresTarget(PG_URL, PG_SCHEMA)
      return [
        [
          "Postgres",
          () => target,
          async () => {
            await target.end()
            await dropSchema(PG_URL, PG_SCHEMA)
          }
        ] as const
      ]
    })())
  ]

  it.each(killTargets)("%s: kill -9 at several points, then a rerun: every entry exactly once", {
    timeout: TIMEOUT
  }, async (_, makeTarget, drop) => {
    const target = makeTarget()
    try {
      const killed: Array<number> = []
      for (const fraction of [0, 0.25, 0.6, 0.9]) {
        const run = await killSyncAt(target, big.configDir, Math.max(1, Math.floor(total * fraction)))
        // killed mid-sync (a run that finished first would have exited 0 on its own)
        if (run.signal === "SIGKILL") killed.push(run.killedAt)
      }
      expect(killed.length, `kill points reached: ${killed.join(", ")}`).toBeGreaterThanOrEqual(3)
      expect(await target.rows()).toBeLessThanOrEqual(total)
      const last = parseJson<{ entries: number; passes: number }>(
        ok(await acx(["sync", "--to", target.spec, "--config-dir", big.configDir, "--json"]))
      )
      expect(last.passes).toBe(1)
      await expectExactlyOnce(target, big.configDir)
    } finally {
      await drop()
    }
  })

  it("--watch stopped by SIGINT in the middle of its first sync exits 0; a rerun stores the rest once", {
    timeout: TIMEOUT
  }, async () => {
    const file = path.join(root, "interrupted-watch.db")
    const child = spawn(
      process.execPath,
      [BIN, "sync", "--watch", "--json", "--to", `sqlite:${file}`, "--config-dir", big.configDir],
      { env: { ...process.env, ACX_HOME: TEST_ACX_HOME }, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    const poll = setInterval(() => {
      if (rowCount(file) >= total / 3) {
        clearInterval(poll)
        child.kill("SIGINT")
      }
    }, 5)
    expect(await exited, stderr).toBe(0)
    clearInterval(poll)
    expect(rowCount(file)).toBeLessThan(total)
    ok(await acx(["sync", "--to", `sqlite:${file}`, "--config-dir", big.configDir]))
    await expectExactlyOnce(sqliteTarget(file), big.configDir)
  })

  it("two syncs of one target at once: both succeed, every entry once", { timeout: TIMEOUT }, async () => {
    const file = path.join(root, "raced.db")
    const args = ["sync", "--to", `sqlite:${file}`, "--config-dir", big.configDir, "--json"]
    const [a, b] = await Promise.all([acx(args), acx(args)])
    const results = [parseJson<{ entries: number }>(ok(a)), parseJson<{ entries: number }>(ok(b))]
    // one stored everything; the other waited for the lock and found nothing left to do
    expect(results.map((r) => r.entries).sort((x, y) => x - y)).toEqual([0, total])
    await expectExactlyOnce(sqliteTarget(file), big.configDir)
  })

  it("a held lock: --background marks it and exits; a plain sync waits for it", { timeout: TIMEOUT }, async () => {
    const file = path.join(root, "held.db")
    const target = `sqlite:${file}`
    const lockDir = path.join(
      TEST_ACX_HOME,
      "sync",
      ClaudeSync.lockName(target, fs.realpathSync(path.join(big.configDir, "projects")))
    )
    fs.mkdirSync(lockDir, { recursive: true })
    // held by this (live) test process
    fs.writeFileSync(path.join(lockDir, ".acx-lock"), `${process.pid}:${os.hostname()}:held-by-the-test`)
    try {
      const background = ok(
        await acx(["sync", "--background", "--to", target, "--config-dir", big.configDir, "--json"])
      )
      expect(parseJson(background)).toEqual({ deferred: true, target })
      expect(fs.existsSync(path.join(lockDir, ClaudeSync.AGAIN))).toBe(true)
      expect(rowCount(file)).toBe(0)

      const waiting = acx(["sync", "--to", target, "--config-dir", big.configDir, "--json"])
      // it is waiting: it stored nothing while the lock is held
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(rowCount(file)).toBe(0)
      fs.rmSync(path.join(lockDir, ".acx-lock"))
      const synced = parseJson<{ entries: number }>(ok(await waiting))
      expect(synced.entries).toBe(total)
    } finally {
      fs.rmSync(path.join(lockDir, ".acx-lock"), { force: true })
    }
    // the mark was taken by the sync that ran (it clears it before its pass)
    expect(fs.existsSync(path.join(lockDir, ClaudeSync.AGAIN))).toBe(false)
    expect(fs.existsSync(path.join(lockDir, ".acx-lock"))).toBe(false)
    await expectExactlyOnce(sqliteTarget(file), big.configDir)
  })
})
