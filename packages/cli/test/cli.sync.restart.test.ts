/**
 * A Postgres restart under running syncs, on an embedded server of this file's own
 * (`startEmbeddedPostgres().restart`: the same port and data, every connection ended):
 * - the fixture's restart keeps what was committed and the URL, and ends open connections;
 * - a restart (a fast shutdown, and an immediate one, like a crash) while machines sync: each
 *   sync ends with exit 0, or exit 1 and one line naming the server and what to do (no stack, no
 *   password); a rerun stores every entry exactly once;
 * - `acx sync --watch` says so in one line while the server is down and syncs the change once it
 *   is back; the hook's `acx sync --background` retries until the server answers.
 */
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@acx/fixtures/postgres"
import { type FleetMachine, generateFleet } from "@acx/testing/FleetConfigDirs"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "./utils/acx.js"
import { expectedCounts, expectFleetStored, pgPool, startSync, storedCounts, withSchema } from "./utils/fleet.js"
import { showsPassword } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const TIMEOUT = 240_000
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const schemaName = (what: string) => `acx_restart_${what}_${randomUUID().slice(0, 8)}`

/** Appends a prompt and an answer to the machine's first session; the key and the lines added. */
const appendTurn = (machine: FleetMachine) => {
  const projects = path.join(machine.configDir, "projects")
  const projectKey = fs.readdirSync(projects).sort()[0]!
  const file = fs.readdirSync(path.join(projects, projectKey)).filter((name) => name.endsWith(".jsonl")).sort()[0]!
  const sessionId = file.slice(0, -".jsonl".length)
  const prompt = randomUUID()
  const base = { sessionId, cwd: "/home/dev/app", timestamp: new Date().toISOString(), isSidechain: false }
  fs.appendFileSync(
    path.join(projects, projectKey, file),
    [
      { ...base, type: "user", uuid: prompt, parentUuid: null, message: { role: "user", content: "once more" } },
      {
        ...base,
        type: "assistant",
        uuid: randomUUID(),
        parentUuid: prompt,
        message: { id: `msg_${prompt.slice(0, 8)}`, role: "assistant", content: [{ type: "text", text: "done" }] }
      }
    ].map((entry) => JSON.stringify(entry)).join("\n") + "\n"
  )
  return `${projectKey}/${sessionId}`
}

/** One line, naming the server and the loss, without a stack or the password. */
const expectOneClearLine = (stderr: string, url: string, pattern: RegExp) => {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "")
  for (const line of lines) expect(line, stderr).toMatch(pattern)
  expect(stderr).not.toMatch(/^\s+at /m)
  expect(showsPassword(stderr, url)).toBe(false)
  return lines
}

describe("a Postgres restart under running syncs", () => {
  let pg: EmbeddedPostgres
  let root = ""
  let fleet: ReadonlyArray<FleetMachine> = []

  beforeAll(async () => {
    pg = await startEmbeddedPostgres()
    root = tempDir("sync-restart")
    // big enough that a sync is still running when the restart comes
    fleet = generateFleet({ root: path.join(root, "fleet"), machines: 4, sessions: 12, bytes: 2_500_000 })
  }, TIMEOUT)
  afterAll(async () => {
    await pg?.stop()
    if (root !== "") await removeTreeWhenIdle(root)
  }, 70_000)

  it("the fixture: a restart ends open connections and keeps the data, the port and the URL", {
    timeout: TIMEOUT
  }, async () => {
    const pool = await pgPool(pg.url)
    try {
      await pool.query("CREATE TABLE kept (n INT)")
      await pool.query("INSERT INTO kept VALUES (1)")
      const open = pool.query("SELECT pg_sleep(30)").then(() => "answered", (error: Error) => error.message)
      // the restart comes once the server runs the query (seen from another connection), not
      // after a pause that a loaded machine may outlast
      const running =
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'"
      await expect.poll(async () => (await pool.query<{ n: number }>(running)).rows[0]?.n).toBe(1)
      await pg.restart()
      expect(await open).toMatch(/terminating connection due to administrator command/)
      // like a crash, an immediate stop may lose the last moment's commits (synchronous_commit is
      // off): this one is flushed before it is acknowledged
      await pool.query("BEGIN; SET LOCAL synchronous_commit = on; INSERT INTO kept VALUES (2); COMMIT")
      await pg.restart({ immediate: true, downMillis: 300 })
      const { rows } = await pool.query<{ n: number }>("SELECT n FROM kept ORDER BY n")
      expect(rows.map((row) => row.n)).toEqual([1, 2])
      expect(new URL(pg.url).port).toBe(String(pg.port))
    } finally {
      await pool.end()
    }
  })

  it.each([["a fast", false], ["an immediate", true]] as const)(
    "%s restart while three machines sync: exit 0 or one clear line; a rerun stores every entry once",
    { timeout: TIMEOUT },
    async (_, immediate) => {
      const machines = fleet.slice(0, 3)
      const schema = schemaName(immediate ? "immediate" : "fast")
      const spec = withSchema(pg.url, schema)
      const pool = await pgPool(pg.url)
      try {
        const runs = machines.map((machine) => startSync(machine, spec).done)
        // once the syncs are writing (some ledger records), not before
        for (let tries = 0; tries < 6000; tries++) {
          const rows = await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM "${schema}".acx_import_ledger`
          ).then((result) => result.rows[0]!.n, () => 0)
          if (rows >= 2) break
          await sleep(20)
        }
        await pg.restart({ immediate, downMillis: 500 })
        const ended = await Promise.all(runs)
        for (const run of ended) {
          if (run.code === 0) continue
          expect(run.code, run.stderr).toBe(1)
          const lines = expectOneClearLine(
            run.stderr,
            pg.url,
            /^acx: lost the connection to Postgres at 127\.0\.0\.1:\d+: .+; what was synced is kept: run acx sync again for the rest$/
          )
          expect(lines).toHaveLength(1)
        }
        expect(ended.filter((run) => run.code === 1).length, "syncs the restart cut").toBeGreaterThanOrEqual(1)

        const reruns = await Promise.all(machines.map((machine) => startSync(machine, spec).done))
        for (const run of reruns) expect(run.code, run.stderr).toBe(0)
        await expectFleetStored(pool, schema, machines, expectedCounts(machines))
      } finally {
        await pool.end()
      }
    }
  )

  it("--watch: one line while the server is down, then the change is synced; --background retries", {
    timeout: TIMEOUT
  }, async () => {
    const machine = fleet[3]!
    const schema = schemaName("watch")
    const spec = withSchema(pg.url, schema)
    const watch = startSync(machine, spec, { extra: ["--watch"], timeoutMs: 200_000 })
    let stdout = ""
    let stderr = ""
    watch.child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    watch.child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const syncs = () => stdout.split("\n").filter((line) => line.startsWith("{"))
    const until = async (what: string, done: () => boolean) => {
      for (let tries = 0; tries < 3000 && !done(); tries++) await sleep(50)
      expect(done(), `${what}: stdout ${stdout}; stderr ${stderr}`).toBe(true)
    }
    const pool = await pgPool(pg.url)
    try {
      await until("the first sync", () => syncs().length >= 1)
      // down until the watch has met the closed server and said so (not a guessed while)
      await pg.stopServer()
      const key = appendTurn(machine)
      await until("the line while the server is down", () => /trying again/.test(stderr))
      await pg.startServer()
      await until("the sync after the restart", () => syncs().some((line) => JSON.parse(line).entries === 2))
      watch.child.kill("SIGINT")
      const run = await watch.done
      expect(run.code, run.stderr).toBe(0)
      expectOneClearLine(
        run.stderr,
        pg.url,
        /^acx: (lost the connection to|cannot connect to) Postgres at 127\.0\.0\.1:\d+: .+; trying again in 5s$/
      )
      expect(run.stderr).toMatch(/trying again/)
      const expected = expectedCounts([machine])
      expect((await storedCounts(pool, schema)).get(key)).toBe(expected.get(key))

      // the hook's sync, started while the server is down, waits for it
      await pg.stopServer()
      const key2 = appendTurn(machine)
      const started = startSync(machine, spec, { extra: ["--background"] })
      let waiting = ""
      started.child.stderr!.on("data", (chunk: Buffer) => (waiting += chunk.toString()))
      for (let tries = 0; tries < 3000 && !/trying again/.test(waiting); tries++) await sleep(50)
      await pg.startServer()
      const background = await started.done
      expect(background.code, background.stderr).toBe(0)
      expectOneClearLine(
        background.stderr,
        pg.url,
        /^acx: (lost the connection to|cannot connect to) Postgres .+; trying again in 5s$/
      )
      expect(JSON.parse(background.stdout).entries).toBe(2)
      await expectFleetStored(pool, schema, [machine], expectedCounts([machine]))
      expect((await storedCounts(pool, schema)).get(key2)).toBe(expectedCounts([machine]).get(key2))
    } finally {
      await pool.end()
    }
  })
})
