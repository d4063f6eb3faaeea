/**
 * The agent's database opens right after a `stat` of a FIFO (issue 32, point 2): Node 20's
 * `realpathSync` reads the type of a cached path component from the stat buffer the last `stat`
 * filled, and a driver imported after a FIFO's `stat` loaded from its `node_modules` link, where
 * `bindings` (SQLite) and `pg-types` (Postgres) cannot be found. Spawned from a bundle made as
 * the CLI's is (the drivers by their bare names, from this package's `node_modules` links): the
 * failure is a fresh process's module loading, which this process cannot show; without vitest's
 * `NODE_PATH`, which names pnpm's hoisted modules and hid the failure.
 */
import { bundleWithDrivers, type WorkerBundle } from "@acx/fixtures/workerBundle"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const PG_URL = process.env["ACX_PG_URL"]

let dir = ""
let script: WorkerBundle | undefined
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-agent-fifo-"))
  execFileSync("mkfifo", [path.join(dir, "fifo")])
  script = await bundleWithDrivers(
    new URL("./scripts/fifoDatabase.ts", import.meta.url),
    fileURLToPath(new URL("..", import.meta.url))
  )
}, 120_000)
afterAll(() => {
  script?.remove()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Opens `database` in a fresh Node right after a `stat` of the FIFO. */
const open = (database: string) => {
  const { NODE_PATH: _hidden, ...env } = process.env
  const result = spawnSync(process.execPath, [script!.file, path.join(dir, "fifo"), database], {
    env,
    encoding: "utf8",
    timeout: 120_000
  })
  expect(result.stderr).not.toMatch(/Cannot find module/)
  expect(result.stdout.trim(), result.stderr).toBe("opened")
}

describe("the agent's database after a stat of a FIFO", () => {
  it("SQLite: the driver loads", { timeout: 150_000 }, () => {
    open(`sqlite:${path.join(dir, "agent.db")}`)
  })

  it.skipIf(PG_URL === undefined)("Postgres: the driver loads", { timeout: 150_000 }, () => {
    open(`${PG_URL}${PG_URL!.includes("?") ? "&" : "?"}schema=agent_fifo_${process.pid}`)
  })
})
