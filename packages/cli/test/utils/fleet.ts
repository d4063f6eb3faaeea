/**
 * A fleet of simulated machines syncing into one Postgres (`@acx/testing/FleetConfigDirs`): each
 * machine is a real `acx sync` process with a home, a Claude config dir and an `ACX_HOME` of its
 * own and `--machine NAME`; and what the store must hold afterwards, checked through SQL on the
 * store's own tables.
 */
import type { FleetMachine } from "@acx/testing/FleetConfigDirs"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { BIN } from "./acx.js"
import { expectedEntries, keyString } from "./syncExpected.js"

interface PgPool {
  query<Row>(sql: string, values?: ReadonlyArray<unknown>): Promise<{ rows: Array<Row> }>
  end(): Promise<void>
}

/** A small pool on `url` (pg is a dependency of @acx/cli, its types are not installed here). */
export const pgPool = async (url: string): Promise<PgPool> => {
  const pg = (await import("pg" as string)) as { default: { Pool: new(options: object) => PgPool } }
  const pool = new pg.default.Pool({ connectionString: url, max: 2 }) // a server restarting under an idle client is an event, not a crash of the test
  ;(pool as unknown as { on: (event: string, listener: () => void) => void }).on("error", () => {})
  return pool
}

/** `url` with `?schema=`. */
export const withSchema = (url: string, schema: string): string => {
  const spec = new URL(url)
  spec.searchParams.set("schema", schema)
  return spec.href
}

/** The OS user a machine's sync records (`--user`). */
export const userOf = (machine: FleetMachine): string => `dev${Number(machine.name.slice(1)) % 3}`

/** A machine's `acx sync` arguments and environment. */
export const syncCommand = (machine: FleetMachine, spec: string, extra: ReadonlyArray<string> = []) => ({
  args: [BIN, "sync", "--to", spec, "--machine", machine.name, "--user", userOf(machine), "--json", ...extra],
  env: {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== "CLAUDE_CONFIG_DIR" && name !== "FORCE_COLOR")
    ),
    HOME: machine.home,
    CLAUDE_CONFIG_DIR: machine.configDir,
    ACX_HOME: path.join(machine.home, ".acx"),
    NO_COLOR: "1"
  }
})

/** How a machine's sync ended. */
export interface SyncRun {
  readonly machine: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Starts a machine's sync; `done` resolves when it exits (killed after `timeoutMs`). */
export const startSync = (
  machine: FleetMachine,
  spec: string,
  options: { readonly extra?: ReadonlyArray<string>; readonly timeoutMs?: number } = {}
): { readonly child: ChildProcess; readonly done: Promise<SyncRun> } => {
  const { args, env } = syncCommand(machine, spec, options.extra)
  const child = spawn(process.execPath, args, {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: options.timeoutMs ?? 120_000,
    killSignal: "SIGKILL"
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const done = new Promise<SyncRun>((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ machine: machine.name, code, signal, stdout, stderr }))
  })
  return { child, done }
}

/** The files a machine's ledger must hold a record of: its transcripts and subagents' metadata. */
export const ledgerFiles = (machine: FleetMachine): number => {
  let files = 0
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name))
      else if (entry.name.endsWith(".jsonl") || entry.name.endsWith(".meta.json")) files++
    }
  }
  walk(path.join(machine.configDir, "projects"))
  return files
}

/** A machine's ledger source: `machine:<real projects dir>`. */
export const ledgerSource = (machine: FleetMachine): string =>
  `${machine.name}:${fs.realpathSync(path.join(machine.configDir, "projects"))}`

/** Entries per key the whole fleet must leave in the store; fails when two machines share a key. */
export const expectedCounts = (fleet: ReadonlyArray<FleetMachine>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const machine of fleet) {
    for (const { entries, key } of expectedEntries(machine.configDir)) {
      const name = keyString(key)
      expect(counts.has(name), `${name} on two machines`).toBe(false)
      counts.set(name, entries.length)
    }
  }
  return counts
}

/** Entries per key the store holds. */
export const storedCounts = async (pool: PgPool, schema: string): Promise<Map<string, number>> => {
  const { rows } = await pool.query<{ project_key: string; session_id: string; subpath: string; n: number }>(
    `SELECT project_key, session_id, subpath, count(*)::int AS n FROM "${schema}".claude_session_entries
     GROUP BY 1, 2, 3`
  )
  return new Map(
    rows.map((
      row
    ) => [keyString({ projectKey: row.project_key, sessionId: row.session_id, subpath: row.subpath }), row.n])
  )
}

/**
 * Checks everything a fleet's syncs must leave in the store: each key's entries exactly once,
 * each session's origin (machine, user, project) as its machine and directory say, and one
 * ledger source per machine with a record per file.
 */
export const expectFleetStored = async (
  pool: PgPool,
  schema: string,
  fleet: ReadonlyArray<FleetMachine>,
  expected: Map<string, number>
): Promise<void> => {
  const stored = await storedCounts(pool, schema)
  const sorted = (map: Map<string, number>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  expect(sorted(stored)).toEqual(sorted(expected))

  const { rows: origins } = await pool.query<
    { project_key: string; session_id: string; machine: string; os_user: string; project: string }
  >(`SELECT project_key, session_id, machine, os_user, project FROM "${schema}".acx_session_origin`)
  const byKey = new Map(origins.map((row) => [`${row.project_key}/${row.session_id}`, row]))
  let sessions = 0
  for (const machine of fleet) {
    const projectOfKey = new Map(
      machine.projects.map((project) => [project.cwd.replace(/[^A-Za-z0-9]/g, "-"), project.project])
    )
    for (const { key } of expectedEntries(machine.configDir)) {
      if (key.subpath !== undefined) continue
      sessions++
      const origin = byKey.get(`${key.projectKey}/${key.sessionId}`)
      expect(origin, `origin of ${keyString(key)}`).toMatchObject({
        machine: machine.name,
        os_user: userOf(machine),
        project: projectOfKey.get(key.projectKey)
      })
    }
  }
  expect(origins.length).toBe(sessions)

  const { rows: ledger } = await pool.query<{ source: string; n: number }>(
    `SELECT source, count(*)::int AS n FROM "${schema}".acx_import_ledger GROUP BY source`
  )
  expect(Object.fromEntries(ledger.map((row) => [row.source, row.n]))).toEqual(
    Object.fromEntries(fleet.map((machine) => [ledgerSource(machine), ledgerFiles(machine)]))
  )
}
