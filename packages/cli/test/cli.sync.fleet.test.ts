/**
 * Twenty machines, one Postgres: twenty real `acx sync --machine mNN` processes, each with a home,
 * a Claude config dir and an `ACX_HOME` of its own (`@acx/testing/FleetConfigDirs`: overlapping
 * project paths, repositories whose remotes two or more machines share, entries without a `uuid`
 * among them), sync at once into one schema of the run's Postgres, and `kill -9` cuts several of
 * the twenty at random points of their syncs (before they connected, mid-file, mid-catalog); a
 * rerun of those follows. Then:
 * - every entry of every transcript is stored exactly once, each session's origin names its
 *   machine, user and project (one remote is one project across machines, at whatever path;
 *   `/home/dev/app` without a repository is one project by its path, each session under the
 *   machine it came from), and each machine keeps ledger records of its own: exactly the store a
 *   clean run leaves;
 * - each machine's reports add up to its own entries: a sync that ran to its end reports all of
 *   them, a killed one's rerun what the killed sync had not committed.
 *
 * One run proves both: the syncs that were not killed are a clean run, twenty at once (the killed
 * ones among them while they live); a second run of twenty for the clean case only repeated the
 * twenty process starts.
 */
import { type FleetMachine, generateFleet } from "@acx/testing/FleetConfigDirs"
import { random } from "@acx/testing/SeededRandom"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "./utils/acx.js"
import {
  expectedCounts,
  expectFleetStored,
  ledgerFiles,
  ledgerSource,
  pgPool,
  startSync,
  storedCounts,
  type SyncRun,
  withSchema
} from "./utils/fleet.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { expectedEntries, keyString } from "./utils/syncExpected.js"

const TIMEOUT = 600_000
// per process: twenty syncs take turns on the store's write lock, slowly on a loaded machine
const SYNC_TIMEOUT = 420_000
const PG_URL = process.env["ACX_PG_URL"]!
const MACHINES = 20
// small transcripts, so that twenty process starts, not the data, are most of the time
const SESSIONS = 4
const BYTES = 160_000

const schemaName = (what: string) => `acx_fleet_${what}_${process.pid}_${randomUUID().slice(0, 8)}`

const succeeded = (run: SyncRun) => {
  expect(run.code, `${run.machine}: exit code (stderr: ${run.stderr})`).toBe(0)
  return JSON.parse(run.stdout) as { entries: number; passes: number }
}

describe("twenty machines syncing into one Postgres", () => {
  let root = ""
  let fleet: ReadonlyArray<FleetMachine> = []
  let expected = new Map<string, number>()
  let keysOf = new Map<string, ReadonlyArray<string>>()
  const schemas: Array<string> = []

  beforeAll(() => {
    root = tempDir("sync-fleet")
    fleet = generateFleet({ root: path.join(root, "fleet"), machines: MACHINES, sessions: SESSIONS, bytes: BYTES })
    expected = expectedCounts(fleet)
    keysOf = new Map(
      fleet.map((machine) => [machine.name, expectedEntries(machine.configDir).map(({ key }) => keyString(key))])
    )
  }, TIMEOUT)
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(PG_URL, schema)
    await removeTreeWhenIdle(root)
  }, 70_000)

  it(
    "all at once, several killed at random points and rerun: every entry once, the right machine and project, a ledger per machine",
    {
      timeout: TIMEOUT
    },
    async () => {
      const schema = schemaName("fleet")
      schemas.push(schema)
      const spec = withSchema(PG_URL, schema)
      const seed = Date.now() % 1_000_000
      const rand = random(seed)
      // five victims, each killed once its ledger holds a random number of records (none: after a
      // random delay, maybe before it connected)
      const victims = new Map<string, number>()
      while (victims.size < 5) {
        const machine = fleet[Math.floor(rand() * fleet.length)]!
        victims.set(machine.name, Math.floor(rand() * ledgerFiles(machine)))
      }
      const delays = new Map([...victims.keys()].map((name) => [name, Math.floor(rand() * 1500)]))
      const pool = await pgPool(PG_URL)
      try {
        const started = fleet.map((machine) => ({ machine, ...startSync(machine, spec, { timeoutMs: SYNC_TIMEOUT }) }))
        const pending = new Set(victims.keys())
        const exited = new Set<string>()
        for (const { done, machine } of started) void done.then(() => exited.add(machine.name))
        const killer = (async () => {
          const begun = Date.now()
          while (pending.size > 0) {
            const counts = new Map<string, number>()
            try {
              const { rows } = await pool.query<{ source: string; n: number }>(
                `SELECT source, count(*)::int AS n FROM "${schema}".acx_import_ledger GROUP BY source`
              )
              for (const row of rows) counts.set(row.source, row.n)
            } catch {
              // no ledger table yet
            }
            for (const { child, machine } of started) {
              if (!pending.has(machine.name)) continue
              const at = victims.get(machine.name)!
              const due = at === 0
                ? Date.now() - begun >= delays.get(machine.name)!
                : (counts.get(ledgerSource(machine)) ?? 0) >= at
              if (due || exited.has(machine.name)) {
                pending.delete(machine.name)
                if (!exited.has(machine.name)) child.kill("SIGKILL")
              }
            }
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        })()
        const runs = await Promise.all(started.map(({ done }) => done))
        await killer
        const killed = runs.filter((run) => run.signal === "SIGKILL").map((run) => run.machine)
        for (const run of runs) if (!killed.includes(run.machine)) succeeded(run)
        expect(killed.length, `seed ${seed}: victims ${JSON.stringify([...victims])}`).toBeGreaterThanOrEqual(3)

        // what each killed sync committed before it died: its rerun must store the rest
        const storedBefore = await storedCounts(pool, schema)
        const reruns = await Promise.all(
          fleet.filter((machine) => killed.includes(machine.name)).map((machine) =>
            startSync(machine, spec, { timeoutMs: SYNC_TIMEOUT }).done
          )
        )
        for (const run of reruns) expect(succeeded(run).passes).toBe(1)
        await expectFleetStored(pool, schema, fleet, expected)

        const reported = new Map<string, number>()
        for (const run of [...runs, ...reruns]) {
          if (run.signal !== "SIGKILL") {
            reported.set(
              run.machine,
              (reported.get(run.machine) ?? 0) + succeeded(run).entries
            )
          }
        }
        for (const machine of fleet) {
          const keys = keysOf.get(machine.name)!
          const committed = killed.includes(machine.name)
            ? keys.reduce((n, key) => n + (storedBefore.get(key) ?? 0), 0)
            : 0
          expect(committed + (reported.get(machine.name) ?? 0), `${machine.name}: entries reported`).toBe(
            keys.reduce((n, key) => n + expected.get(key)!, 0)
          )
        }
        // the overlaps the fleet was built for are there: one remote and one path across all machines
        const { rows } = await pool.query<{ project: string; machines: number; paths: number }>(
          `SELECT project, count(DISTINCT machine)::int AS machines, count(DISTINCT project_key)::int AS paths
         FROM "${schema}".acx_session_origin GROUP BY project`
        )
        const byProject = Object.fromEntries(rows.map((row) => [row.project, row]))
        expect(byProject["github.com/org/app"]).toEqual({ project: "github.com/org/app", machines: 20, paths: 20 })
        expect(byProject["/home/dev/app"]).toEqual({ project: "/home/dev/app", machines: 20, paths: 1 })
        expect(byProject["github.com/org/tool-0"]).toMatchObject({ machines: 5, paths: 5 })
      } finally {
        await pool.end()
      }
    }
  )
})
