/**
 * `pnpm --filter @acx/cli bench:scale` (part of `pnpm bench`): every row of issue 34's table at a
 * heavy user's scale, side by side with ccusage 20's native binary and `node -e 0`, with each
 * process's peak RSS (`/usr/bin/time -f %M`).
 *
 * The config dir: `@acx/testing`'s `generateBigConfigDir` with 40 projects and one subagent
 * transcript per 8 sessions, `ACX_BENCH_SCALE_BYTES` bytes asked for (default 1.13 GB: 1.14 GB
 * are written at 2 000 sessions, 1.26 GB at 20 000, where each session's fixed lines add to the
 * size), once per count of `ACX_BENCH_SCALE_SESSIONS` (default `2000,20000`); each is generated
 * once into the OS temp dir under a name holding its parameters and reused. At both counts the same rows run, so the table
 * ends with the growth 2 000 → 20 000: a read that grows ~10× is O(sessions), one that stays flat
 * is O(changes).
 *
 * Rows (`ACX_BENCH_SCALE_ONLY=row,…` runs a subset; names as printed): `node`, `ccusage`,
 * `stats-cold`, `stats-warm`, `sessions-warm`, `new-transcript`, `sync-full`, `sync-unchanged`,
 * `sessions-from`, `search`, `pg-sync-full`, `pg-sessions-from`, `pg-search`, `page`. Timed rows run
 * `ACX_BENCH_ROUNDS` rounds (default 3) and print the median; a full sync runs once. The SQLite
 * store of a count is kept in the temp dir beside its config dir and reused (`ACX_BENCH_SCALE_FRESH_STORE=1`
 * syncs it again); Postgres is `ACX_PG_URL` or the embedded server of `@acx/fixtures/postgres`
 * (`ACX_BENCH_PG=0` leaves it out). The page row starts `acx ui` on the dir and times, in the
 * machine's Chromium driven by playwright-core, a reload up to the first session row.
 *
 * Before any timing, acx's and ccusage's totals are compared (tokens, dollars to the cent).
 */
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { execFileSync, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { dropSchema } from "./benchProcess.js"
import { CCUSAGE_VERSION, ccusageBinary, checkAgreement } from "./ccusageBinary.js"
import { median } from "./rounds.js"
import { pageFirstRow } from "./scalePage.js"

const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 3)
const BYTES = Number(process.env["ACX_BENCH_SCALE_BYTES"] ?? 1_130_000_000)
const COUNTS = (process.env["ACX_BENCH_SCALE_SESSIONS"] ?? "2000,20000").split(",").map(Number)
const ONLY = process.env["ACX_BENCH_SCALE_ONLY"]?.split(",")
const SEARCH_WORDS = ["cache", "token", "session", "error", "worker"]

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "acx-scale-bench-"))
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }))
const emptyHome = path.join(work, "user-home")
fs.mkdirSync(emptyHome)

// the environment of a user's shell: not tsx's loader, which this script runs under
const { NODE_OPTIONS: _loader, ...userEnv } = process.env

/** One run of a process: wall time, peak RSS, stdout. */
interface Run {
  readonly ms: number
  readonly rssMB: number
  readonly stdout: string
}

/** Runs `command args…` under `/usr/bin/time -f %M`: its wall time, peak RSS and stdout. */
const measured = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Run => {
  const rssFile = path.join(work, "rss")
  const started = performance.now()
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", rssFile, command, ...args], {
    env,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
  const ms = performance.now() - started
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  const rssMB = Number(fs.readFileSync(rssFile, "utf8").trim().split("\n").at(-1)) / 1024
  return { ms, rssMB, stdout: result.stdout }
}

/** A row's result: the median of its rounds, the largest peak RSS, what it is compared with. */
interface Row {
  readonly name: string
  readonly ms: number
  readonly rssMB: number
  readonly note?: string
}

/** A row from its runs, printed as it is measured (a long run shows its rows before the table). */
const rowOf = (name: string, runs: ReadonlyArray<Run>, note?: string): Row => {
  const row = {
    name,
    ms: median(runs.map((r) => r.ms)),
    rssMB: Math.max(...runs.map((r) => r.rssMB)),
    ...(note === undefined ? {} : { note })
  }
  console.log(`  ${name}: ${fmt(row.ms)}, peak ${row.rssMB.toFixed(0)} MB (${load()})`)
  return row
}

const wanted = (name: string) => ONLY === undefined || ONLY.includes(name)

const repeat = (run: () => Run): Array<Run> => Array.from({ length: ROUNDS }, run)

/** The generated config dir of `sessions` sessions (40 projects, a subagent per 8 sessions). */
const scaleDir = (sessions: number) =>
  generateBigConfigDir({
    dir: path.join(os.tmpdir(), `acx-bench-scale-${sessions}-${BYTES}-p40-a8`),
    sessions,
    bytes: BYTES,
    projects: 40,
    subagentEvery: 8
  })

/** What every row of one count shares. */
interface Scale {
  readonly configDir: string
  readonly acx: (args: ReadonlyArray<string>, acxHome: string) => Run
  readonly warmHome: string
  readonly storeFile: string
}

/** A new transcript (a copy of one with a fresh session id) in the first project, gone afterwards. */
const withNewTranscript = <A>(configDir: string, f: (sessionId: string) => A): A => {
  const projects = path.join(configDir, "projects")
  const project = path.join(projects, fs.readdirSync(projects).sort()[0]!)
  const source = fs.readdirSync(project).find((name) => name.endsWith(".jsonl"))!
  const sessionId = randomUUID()
  const target = path.join(project, `${sessionId}.jsonl`)
  const oldId = source.slice(0, -".jsonl".length)
  fs.writeFileSync(target, fs.readFileSync(path.join(project, source), "utf8").replaceAll(oldId, sessionId))
  const remove = () => fs.rmSync(target, { force: true })
  process.once("exit", remove)
  try {
    return f(sessionId)
  } finally {
    remove()
  }
}

/** The rows read straight from the config dir: stats cold and warm, sessions warm, a new transcript. */
const dirRows = (scale: Scale, ccusage: string | undefined): Array<Row> => {
  const rows: Array<Row> = []
  let homes = 0
  const cold = () => scale.acx(["stats", "--json"], path.join(work, `cold-${homes++}`))
  if (wanted("node")) rows.push(rowOf("node", repeat(() => measured(process.execPath, ["-e", "0"], userEnv))))
  if (wanted("ccusage") && ccusage !== undefined) {
    const env = { ...userEnv, CLAUDE_CONFIG_DIR: scale.configDir, HOME: emptyHome }
    rows.push(rowOf("ccusage", repeat(() => measured(ccusage, ["claude", "session", "--json", "--offline"], env))))
  }
  if (wanted("stats-cold")) rows.push(rowOf("stats-cold", repeat(cold), "× ccusage"))
  if (wanted("stats-warm")) rows.push(rowOf("stats-warm", repeat(() => scale.acx(["stats", "--json"], scale.warmHome))))
  if (wanted("sessions-warm")) rows.push(rowOf("sessions-warm", repeat(() => scale.acx(["sessions"], scale.warmHome))))
  if (wanted("new-transcript")) {
    const runs = repeat(() =>
      withNewTranscript(scale.configDir, (sessionId) => {
        const run = scale.acx(["sessions"], scale.warmHome)
        if (!run.stdout.includes(sessionId)) throw new Error(`the new transcript ${sessionId} is not listed`)
        return run
      })
    )
    rows.push(rowOf("new-transcript", runs))
  }
  return rows
}

/** `acx search` p50 over the five common words, `ROUNDS` rounds each. */
const searchRow = (scale: Scale, name: string, spec: string): Row => {
  const runs = SEARCH_WORDS.flatMap((word) => repeat(() => scale.acx(["search", word, "--from", spec], scale.warmHome)))
  return rowOf(name, runs)
}

/** The rows over the SQLite store: the full sync (once, kept), unchanged re-sync, sessions and search from it. */
const sqliteRows = (scale: Scale): Array<Row> => {
  const rows: Array<Row> = []
  const spec = `sqlite:${scale.storeFile}`
  const syncHome = path.join(work, `sync-home-${path.basename(scale.storeFile)}`)
  const fresh = process.env["ACX_BENCH_SCALE_FRESH_STORE"] === "1" || !fs.existsSync(scale.storeFile)
  if (fresh && (wanted("sync-full") || wanted("sync-unchanged") || wanted("sessions-from") || wanted("search"))) {
    fs.rmSync(scale.storeFile, { force: true })
    const partial = `${scale.storeFile}.partial`
    fs.rmSync(partial, { force: true })
    const run = scale.acx(["sync", "--to", `sqlite:${partial}`], syncHome)
    fs.renameSync(partial, scale.storeFile)
    if (wanted("sync-full")) rows.push(rowOf("sync-full", [run], "× ccusage"))
  } else if (wanted("sync-full")) {
    console.log(`  sync-full: not run, ${scale.storeFile} is reused (ACX_BENCH_SCALE_FRESH_STORE=1 syncs it again)`)
  }
  if (wanted("sync-unchanged")) {
    scale.acx(["sync", "--to", spec], syncHome)
    rows.push(rowOf("sync-unchanged", repeat(() => scale.acx(["sync", "--to", spec], syncHome))))
  }
  if (wanted("sessions-from")) {
    rows.push(rowOf("sessions-from", repeat(() => scale.acx(["sessions", "--from", spec], scale.warmHome))))
  }
  if (wanted("search")) rows.push(searchRow(scale, "search", spec))
  return rows
}

/** The rows over Postgres: a full sync into a fresh schema, sessions and search from it. */
const pgRows = async (scale: Scale, pgUrl: string): Promise<Array<Row>> => {
  const schema = `acx_scale_${process.pid}_${path.basename(scale.configDir).replaceAll("-", "_")}`
  const spec = `${pgUrl}${pgUrl.includes("?") ? "&" : "?"}schema=${schema}`
  const rows: Array<Row> = []
  try {
    const run = scale.acx(["sync", "--to", spec], path.join(work, `pg-home-${schema}`))
    if (wanted("pg-sync-full")) rows.push(rowOf("pg-sync-full", [run], "× ccusage"))
    if (wanted("pg-sessions-from")) {
      rows.push(rowOf("pg-sessions-from", repeat(() => scale.acx(["sessions", "--from", spec], scale.warmHome))))
    }
    if (wanted("pg-search")) rows.push(searchRow(scale, "pg-search", spec))
  } finally {
    await dropSchema(pgUrl, schema)
  }
  return rows
}

const pgUrlOf = async (): Promise<{ readonly url: string; readonly stop: () => Promise<void> } | undefined> => {
  if (process.env["ACX_BENCH_PG"] === "0" || !["pg-sync-full", "pg-sessions-from", "pg-search"].some(wanted)) {
    return undefined
  }
  const given = process.env["ACX_PG_URL"]
  if (given !== undefined) return { url: given, stop: async () => {} }
  const { startEmbeddedPostgres } = await import("@acx/fixtures/postgres")
  const server = await startEmbeddedPostgres()
  return { url: server.url, stop: server.stop }
}

/** Every row at one count of sessions. */
const measureScale = async (sessions: number, ccusage: string | undefined): Promise<Array<Row>> => {
  const big = scaleDir(sessions)
  const acx = (args: ReadonlyArray<string>, acxHome: string) =>
    measured(process.execPath, [bin, ...args], {
      ...userEnv,
      CLAUDE_CONFIG_DIR: big.configDir,
      ACX_HOME: acxHome,
      NO_COLOR: "1"
    })
  const scale: Scale = {
    configDir: big.configDir,
    acx,
    warmHome: path.join(work, `warm-${sessions}`),
    storeFile: path.join(os.tmpdir(), `acx-bench-scale-${sessions}-${BYTES}-p40-a8.db`)
  }
  console.log(
    `\n${sessions} sessions: ${big.subagents} subagent transcripts, ${(big.bytes / 1e6).toFixed(0)} MB, ${
      big.lines.toLocaleString("en-US")
    } lines; ${load()}`
  )
  // the page cache warm, the warm caches filled, the totals agreed
  const first = acx(["stats", "--json"], path.join(work, `first-${sessions}`))
  console.log(
    ccusage === undefined ? "ccusage not run" : checkAgreement(first.stdout, ccusage, big.configDir, emptyHome)
  )
  acx(["stats", "--json"], scale.warmHome)
  acx(["sessions"], scale.warmHome)
  acx(["sessions", "--json"], scale.warmHome)
  const rows = [...dirRows(scale, ccusage), ...sqliteRows(scale)]
  const pg = await pgUrlOf()
  if (pg !== undefined) rows.push(...(await pgRows(scale, pg.url).finally(pg.stop)))
  if (wanted("page")) rows.push({ name: "page", ...(await pageFirstRow(bin, big.configDir, scale.warmHome, ROUNDS)) })
  console.log(`${load()} after`)
  return rows
}

const load = () => `load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}`

/** The ratio a row is read by: against ccusage's cold read for the cold rows, else `node -e 0`. */
const ratio = (row: Row, rows: ReadonlyArray<Row>): string => {
  const base = rows.find((r) => r.name === (row.note === "× ccusage" ? "ccusage" : "node"))
  if (base === undefined || row.name === base.name || row.name === "page") return ""
  return `${(row.ms / base.ms).toFixed(2)}× ${base.name === "node" ? "node" : "ccusage"}`
}

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`)

/** The table: one column group per count, then the growth from the first count to the last. */
const printTable = (results: ReadonlyArray<{ readonly sessions: number; readonly rows: ReadonlyArray<Row> }>) => {
  const names = [...new Set(results.flatMap((r) => r.rows.map((row) => row.name)))]
  const head = results.map((r) => `${r.sessions}: time | ratio | peak RSS`).join(" | ")
  const growth = results.length > 1 ? ` | growth ${results[0]!.sessions} → ${results.at(-1)!.sessions}` : ""
  console.log(
    `\n| row | ${head}${growth} |\n|---|${results.map(() => "---|---|---|").join("")}${growth === "" ? "" : "---|"}`
  )
  for (const name of names) {
    const cells = results.map(({ rows }) => {
      const row = rows.find((r) => r.name === name)
      return row === undefined ? "| | " : `${fmt(row.ms)} | ${ratio(row, rows)} | ${row.rssMB.toFixed(0)} MB`
    })
    const [a, b] = [results[0]!.rows.find((r) => r.name === name), results.at(-1)!.rows.find((r) => r.name === name)]
    const grew = growth === "" ? "" : ` | ${a !== undefined && b !== undefined ? `${(b.ms / a.ms).toFixed(1)}×` : ""}`
    console.log(`| ${name} | ${cells.join(" | ")}${grew} |`)
  }
}

const main = async () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  const ccusage = ccusageBinary()
  console.log(
    `scale bench: ${COUNTS.join(", ")} sessions, ${
      (BYTES / 1e6).toFixed(0)
    } MB each; ${ROUNDS} rounds; ${os.availableParallelism()} cores, Node ${process.version}; ccusage ${
      ccusage === undefined ? "not available" : CCUSAGE_VERSION
    }`
  )
  const results: Array<{ sessions: number; rows: Array<Row> }> = []
  for (const sessions of COUNTS) results.push({ sessions, rows: await measureScale(sessions, ccusage) })
  printTable(results)
}

await main()
