/**
 * `acx stats --by project|machine|user` through the built binary, on a team's data: two laptops'
 * config dirs (their sessions in clones of one repository, at different paths, its remote spelt
 * once in ssh and once in https form, and one session outside any repository) synced with
 * `--machine`/`--user` into one SQLite store and one Postgres store.
 *
 * - over a config dir, every session is this machine's and OS user's, and the two clones are one
 *   project (`github.com/org/app`), its rows naming the path keys it gathers;
 * - over each store, the rows are the recorded origins: a machine and a user per laptop, the same
 *   projects with the costs of both laptops summed;
 * - the store synced from one dir on this machine gives the dir's own rows.
 *
 * The first report of each kind goes through the BUILT binary; the others run `run` of
 * `src/Cli.ts` in this process (`acxInProcess`), a process start each saved; the dir's reports
 * are run once for both stores.
 */
import { randomUUID } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { laptop, projectKeyOf } from "./utils/team.js"

const PG_URL = process.env["ACX_PG_URL"]

type Row = { key: string; sessions: number; projectKeys?: Array<string>; tokens: { output: number }; costUSD: number }
type StatsJson = { by: string; rows: Array<Row>; total: Row }

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

const root = tempDir("stats-origins")
const home = path.join(root, "acx-home")
const env = { ACX_HOME: home, TZ: "UTC" }
afterAll(() => removeTreeWhenIdle(root), 70_000)

const ana = laptop(root, "ana", "src/app", "git@github.com:org/app.git", 1)
const bo = laptop(root, "bo", "work/app-clone", "https://bo:secret@GitHub.com/org/app/", 11)

// in process; `spawnedStats` through the binary
const stats = async (...args: Array<string>) =>
  parseJson<StatsJson>(ok(await acxInProcess(["stats", "--json", ...args], { env })))
const spawnedStats = async (...args: Array<string>) =>
  parseJson<StatsJson>(ok(await acx(["stats", "--json", ...args], { env })))
// the dir's reports, the same for both stores
const dirReports = new Map<string, Promise<StatsJson>>()
const dirStats = (by: string) => {
  if (!dirReports.has(by)) dirReports.set(by, stats("--by", by, "--config-dir", ana.configDir))
  return dirReports.get(by)!
}
const keyed = (out: StatsJson) => out.rows.map((row) => [row.key, row.sessions, row.tokens.output])

const schema = `acx_origins_test_${process.pid}_${randomUUID().slice(0, 8)}`
const pgSpec = (name: string) => {
  const url = new URL(PG_URL!)
  url.searchParams.set("schema", `${schema}_${name}`)
  return url.href
}
const backends = [
  { name: "SQLite", skip: false, spec: (name: string) => `sqlite:${path.join(root, `${name}.db`)}` },
  { name: "Postgres", skip: PG_URL === undefined, spec: pgSpec }
]
afterAll(async () => {
  if (PG_URL === undefined) return
  for (const name of ["team", "one"]) await dropSchema(PG_URL, `${schema}_${name}`)
})

describe("acx stats by project, machine and user", () => {
  it("over a config dir: this machine and user, one project for the clone and the scratch dir's path", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const dir = ["--config-dir", ana.configDir]
    const projects = await spawnedStats("--by", "project", ...dir)
    expect(projects.rows.map((row) => [row.key, row.projectKeys, row.tokens.output])).toEqual([
      [ana.scratch, [projectKeyOf(ana.scratch)], 7],
      ["github.com/org/app", [projectKeyOf(ana.app)], 100]
    ])
    const machines = await stats("--by", "machine", ...dir)
    expect(machines.rows).toHaveLength(1)
    expect(machines.rows[0]!.key).toBe(
      os.hostname().replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 64)
    )
    expect(machines.rows[0]!.sessions).toBe(2)
    const users = await stats("--by", "user", ...dir)
    expect(keyed(users)).toEqual([[os.userInfo().username, 2, 107]])
    // the table names the grouping
    const table = ok(await acxInProcess(["stats", "--by", "machine", ...dir], { env })).stdout
    expect(table).toMatch(/^MACHINE\s/m)
  })

  describe.each(backends)("over a $name store", (backend) => {
    beforeAll(async () => {
      if (backend.skip) return
      for (const [who, machine] of [[ana, "ana-laptop"], [bo, "bo-desktop"]] as const) {
        ok(
          await acx([
            "sync",
            "--to",
            backend.spec("team"),
            "--config-dir",
            who.configDir,
            "--machine",
            machine,
            "--user",
            machine.split("-")[0]!
          ], { env })
        )
      }
      ok(await acx(["sync", "--to", backend.spec("one"), "--config-dir", ana.configDir], { env }))
    }, TEST_TIMEOUT_MS)

    it.skipIf(backend.skip)("groups two laptops' sessions by their recorded origins", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const from = ["--from", backend.spec("team")]
      expect(keyed(await spawnedStats("--by", "machine", ...from))).toEqual([
        ["ana-laptop", 2, 107],
        ["bo-desktop", 2, 107]
      ])
      expect(keyed(await stats("--by", "user", ...from))).toEqual([["ana", 2, 107], ["bo", 2, 107]])
      const projects = await stats("--by", "project", ...from)
      expect(keyed(projects)).toEqual([[ana.scratch, 1, 7], [bo.scratch, 1, 7], ["github.com/org/app", 2, 200]])
      const app = projects.rows.find((row) => row.key === "github.com/org/app")!
      expect(app.projectKeys).toEqual([ana.app, bo.app].map((cwd) => projectKeyOf(cwd)).sort())
      // the remote's credentials never name a project
      expect(JSON.stringify(projects)).not.toContain("secret")
      // one project's sessions
      const key = projectKeyOf(ana.app)
      expect(keyed(await stats("--by", "machine", "--project", key, ...from))).toEqual([["ana-laptop", 1, 100]])
    })

    it.skipIf(backend.skip)("a store synced from a dir on this machine gives the dir's rows", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      for (const by of ["project", "machine", "user"]) {
        const fromDir = await dirStats(by)
        const fromStore = await stats("--by", by, "--from", backend.spec("one"))
        expect(fromStore.rows, by).toEqual(fromDir.rows)
        expect(fromStore.total, by).toEqual(fromDir.total)
      }
    })
  })
})
