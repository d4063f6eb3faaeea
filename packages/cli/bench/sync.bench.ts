/**
 * `pnpm bench` for `acx sync` against `acx import` on a generated big config dir
 * (`@acx/testing/BigConfigDir`; `ACX_BENCH_SESSIONS` sessions, default 200, of `ACX_BENCH_BYTES`
 * bytes in all, default 552 MB, kept in the OS temp dir and reused while the options are the
 * same). The built binary is run as a user runs it (`node packages/cli/bin/acx.mjs …`, process
 * start included), each into a fresh SQLite file (and a fresh Postgres schema when `ACX_PG_URL`
 * is set): the first `acx sync` against the first `acx import` into the same kind of target (the
 * baseline, measured in the same run; rounds alternate the order), then a re-sync of the
 * unchanged dir against a re-import of it. Medians are printed with the ratios.
 */
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const SESSIONS = Number(process.env["ACX_BENCH_SESSIONS"] ?? 200)
const BYTES = Number(process.env["ACX_BENCH_BYTES"] ?? 552_000_000)
const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 3)
const PG_URL = process.env["ACX_PG_URL"]

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")

const big = generateBigConfigDir({
  dir: path.join(os.tmpdir(), `acx-bench-big-config-${SESSIONS}-${BYTES}`),
  sessions: SESSIONS,
  bytes: BYTES
})
const work = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sync-bench-"))
const home = path.join(work, "home")
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }))

const timed = (args: ReadonlyArray<string>): number => {
  const started = performance.now()
  execFileSync(process.execPath, [bin, ...args, "--json"], {
    env: { ...process.env, ACX_HOME: home },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024
  })
  return performance.now() - started
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const dropSchema = async (schema: string) => {
  const pg = (await import("pg" as string)) as {
    default: {
      Client: new(
        options: object
      ) => { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> }
    }
  }
  const client = new pg.default.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end())
}

interface Target {
  readonly name: string
  readonly fresh: () => { readonly spec: string; readonly drop: () => Promise<void> }
}

const targets: Array<Target> = [{
  name: "SQLite",
  fresh: () => {
    const file = path.join(work, `${randomUUID()}.db`)
    return {
      spec: `sqlite:${file}`,
      drop: async () => {
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true })
      }
    }
  }
}]
if (PG_URL !== undefined) {
  targets.push({
    name: "Postgres",
    fresh: () => {
      const schema = `acx_sync_bench_${randomUUID().slice(0, 8)}`
      const url = new URL(PG_URL)
      url.searchParams.set("schema", schema)
      return { spec: url.href, drop: () => dropSchema(schema) }
    }
  })
}

console.log(
  `acx sync vs acx import: ${big.sessions} sessions, ${big.subagents} subagents, ${big.lines} lines, ${
    (big.bytes / 1e6).toFixed(0)
  } MB; ${ROUNDS} rounds`
)
for (const target of targets) {
  const imports: Array<number> = []
  const syncs: Array<number> = []
  const resyncs: Array<number> = []
  const reimports: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ["import", "sync"] : ["sync", "import"]
    for (const command of order) {
      const into = target.fresh()
      try {
        if (command === "import") {
          imports.push(timed(["import", "--from", big.configDir, "--to", into.spec]))
          reimports.push(timed(["import", "--from", big.configDir, "--to", into.spec]))
        } else {
          syncs.push(timed(["sync", "--config-dir", big.configDir, "--to", into.spec]))
          resyncs.push(timed(["sync", "--config-dir", big.configDir, "--to", into.spec]))
        }
      } finally {
        await into.drop()
      }
    }
  }
  const mb = big.bytes / 1e6
  const importMs = median(imports)
  const syncMs = median(syncs)
  console.log(
    `${target.name}: first import ${(importMs / 1000).toFixed(2)} s (${(mb / (importMs / 1000)).toFixed(0)} MB/s), ` +
      `first sync ${(syncMs / 1000).toFixed(2)} s (${(mb / (syncMs / 1000)).toFixed(0)} MB/s): ` +
      `sync throughput ${(importMs / syncMs).toFixed(2)}× import's; ` +
      `re-sync of the unchanged dir ${(median(resyncs) / 1000).toFixed(2)} s ` +
      `(re-import ${(median(reimports) / 1000).toFixed(2)} s)`
  )
}
