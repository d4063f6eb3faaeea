/**
 * `pnpm bench` for `acx sync` against `acx import` on a generated big config dir
 * (`@acx/testing/BigConfigDir`; `ACX_BENCH_SESSIONS` sessions, default 200, of `ACX_BENCH_BYTES`
 * bytes in all, default 552 MB, kept in the OS temp dir and reused while the options are the
 * same). The built binary is run as a user runs it (`node packages/cli/bin/acx.mjs …`, process
 * start included), each into a fresh SQLite file (and a fresh Postgres schema when `ACX_PG_URL`
 * is set): the first `acx sync` against the first `acx import` into the same kind of target (the
 * baseline, measured in the same run; rounds alternate the order), then a re-sync of the
 * unchanged dir against a re-import of it. Medians are printed with the ratios.
 *
 * Last, the sync hook (`dist/sync-hook.cjs` with a Stop input, as Claude Code runs it) against
 * `node -e 0` given the same stdin, `ACX_BENCH_HOOK_SAMPLES` each (default 30), interleaved; the
 * target's lock is held by this process, so each sync the hook starts defers at once.
 */
import { lockName } from "@acx/claude-code/ClaudeSync"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { execFileSync, spawnSync } from "node:child_process"
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

const SAMPLES = Number(process.env["ACX_BENCH_HOOK_SAMPLES"] ?? 30)
const hookTarget = `sqlite:${path.join(work, "hook.db")}`
const projects = fs.realpathSync(path.join(big.configDir, "projects"))
const lockDir = path.join(home, "sync", lockName(hookTarget, projects))
fs.mkdirSync(lockDir, { recursive: true })
fs.writeFileSync(path.join(lockDir, ".acx-lock"), `${process.pid}:${os.hostname()}:bench`)
const project = fs.readdirSync(projects)[0]!
const session = fs.readdirSync(path.join(projects, project)).find((name) => name.endsWith(".jsonl"))!
const input = JSON.stringify({
  hook_event_name: "Stop",
  session_id: session.slice(0, -".jsonl".length),
  transcript_path: path.join(projects, project, session),
  cwd: work
})
const spawnTimed = (args: ReadonlyArray<string>): number => {
  const started = performance.now()
  spawnSync(process.execPath, [...args], { input, env: { ...process.env, ACX_HOME: home }, stdio: "pipe" })
  return performance.now() - started
}
const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}
const hookBundle = path.join(here, "../dist/sync-hook.cjs")
const bare: Array<number> = []
const hooked: Array<number> = []
for (let i = 0; i < SAMPLES; i++) {
  bare.push(spawnTimed(["-e", "0"]))
  hooked.push(spawnTimed([hookBundle, "--to", hookTarget]))
}
console.log(
  `sync hook: node -e 0 p50 ${percentile(bare, 0.5).toFixed(1)} / p95 ${percentile(bare, 0.95).toFixed(1)} ms; ` +
    `sync-hook.cjs p50 ${percentile(hooked, 0.5).toFixed(1)} / p95 ${percentile(hooked, 0.95).toFixed(1)} ms: ` +
    `${(percentile(hooked, 0.5) / percentile(bare, 0.5)).toFixed(2)}× (p95 ${
      (percentile(hooked, 0.95) / percentile(bare, 0.95)).toFixed(2)
    }×)`
)
// the deferred syncs the hooks started end on their own; give them a moment before the exit removes their home
await new Promise((resolve) => setTimeout(resolve, 5000))
