/**
 * `pnpm bench` for sessions kept in a store (issue 23), on a generated big config dir
 * (`@acx/testing/BigConfigDir`; `ACX_BENCH_SESSIONS` sessions, default 200, of `ACX_BENCH_BYTES`
 * bytes in all, default 552 MB, kept in the OS temp dir and reused while the options are the
 * same). Alone: `pnpm --filter @acx/cli bench:store`.
 *
 * 1. **First sync against first import**, the built binary run as a user runs it (process start
 *    included), each into a fresh SQLite file and a fresh Postgres schema (`ACX_PG_URL`, else an
 *    embedded server; `ACX_BENCH_PG=0` leaves Postgres out); rounds alternate the order
 *    (`ACX_BENCH_ROUNDS`, default 1); then a re-sync of the unchanged dir against a re-import,
 *    and against `node -e 0` and `acx --version` in `ACX_BENCH_START_ROUNDS` interleaved rounds
 *    (alone on a synced store: `ACX_BENCH_FROM=SPEC ACX_BENCH_RESYNC_ONLY=1`; part 1 alone:
 *    `ACX_BENCH_SYNC_ONLY=1`).
 * 2. **The first catalog read** of the synced store (it derives every entry: metadata, usage, the
 *    full-text index), in process.
 * 3. **Search**, in process: `catalog.search` for 10 varied queries (rare word, common words,
 *    phrases, exclusion, filters) on each synced store, `ACX_BENCH_SEARCH_ROUNDS` rounds (default
 *    5), p50 / p95; on SQLite beside an unranked FTS5 `MATCH … LIMIT 20` of the same words
 *    (better-sqlite3), the least a search does. `acx search` end to end when the tree has it.
 * 4. **Reading commands over the store, end to end** against `node -e 0` (the baseline) and
 *    `acx --version` (the CLI's start-up), `ACX_BENCH_START_ROUNDS` interleaved rounds (default
 *    10): `acx sessions --from sqlite:` and `acx stats --from sqlite:` as the bin runs them
 *    (`stats` with its statistics cache warm), and `bench/storeRead.ts` bundled like the CLI (the same listing and rendering
 *    through Effect, without the command line) in any tree. Stats totals are checked against
 *    `acx stats` on the dir.
 * 5. `GET /api/search` when the web page has it (else said so).
 *
 * `ACX_BENCH_KEEP_STORE=FILE` copies the synced SQLite store to FILE at the end;
 * `ACX_BENCH_FROM=sqlite:FILE` (a store synced from the same dir) runs parts 3 and 4 alone on it,
 * `ACX_BENCH_FROM=postgres://…?schema=S` part 3; `ACX_BENCH_SEARCH_ONLY=1` times `catalog.search`
 * alone (no `acx search` processes, no part 4).
 */
import { benchConfigDir } from "@acx/testing/BigConfigDir"
import * as esbuild from "esbuild"
import { execFileSync, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { dropSchema, nodeRunner, timed } from "./benchProcess.js"
import { type Candidate, interleaved, percentile, searchStore, type StoreUnderTest } from "./storeSearch.js"

const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 1)
const START_ROUNDS = Number(process.env["ACX_BENCH_START_ROUNDS"] ?? 10)

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")

const big = benchConfigDir()
const work = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-bench-"))
const home = path.join(work, "home")
// the equivalent script is bundled beside the CLI's node_modules (its external packages resolve from there)
const bundleDir = fs.mkdtempSync(path.join(here, "../build/bench-store-"))
const cleanups: Array<() => Promise<void>> = []
process.on("exit", () => {
  fs.rmSync(work, { recursive: true, force: true })
  fs.rmSync(bundleDir, { recursive: true, force: true })
})

// the environment of a user's shell: not tsx's loader, which this script runs under
const { NODE_OPTIONS: _loader, ...userEnv } = process.env
const env = { ...userEnv, ACX_HOME: home, NO_COLOR: "1" }

const load = () => `load average ${os.loadavg().map((x) => x.toFixed(1)).join(" / ")}`
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const median = (values: ReadonlyArray<number>) => percentile(values, 0.5)

/** Runs `node args…` to completion; its stdout, or a failure with its stderr. */
const node = nodeRunner(env)

const pgUrl = async (): Promise<string | undefined> => {
  if (process.env["ACX_BENCH_PG"] === "0") return undefined
  if (process.env["ACX_PG_URL"] !== undefined) return process.env["ACX_PG_URL"]
  const { startEmbeddedPostgres } = await import("@acx/fixtures/postgres")
  const server = await startEmbeddedPostgres()
  cleanups.push(server.stop)
  return server.url
}

interface Target {
  readonly name: "SQLite" | "Postgres"
  readonly fresh: () => { readonly spec: string; readonly drop: () => Promise<void> }
}

const targets = (url: string | undefined): Array<Target> => [
  {
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
  },
  ...(url === undefined ? [] : [{
    name: "Postgres" as const,
    fresh: () => {
      const schema = `acx_store_bench_${randomUUID().slice(0, 8)}`
      const spec = new URL(url)
      spec.searchParams.set("schema", schema)
      return { spec: spec.href, drop: () => dropSchema(url, schema) }
    }
  }])
]

/** Part 1: first sync against first import, re-sync against re-import; the last synced target is kept. */
const syncAgainstImport = async (target: Target): Promise<StoreUnderTest> => {
  const runs: Record<"import" | "sync" | "reimport" | "resync", Array<number>> = {
    import: [],
    sync: [],
    reimport: [],
    resync: []
  }
  let kept: { spec: string; drop: () => Promise<void> } | undefined
  for (let round = 0; round < ROUNDS; round++) {
    for (const command of round % 2 === 0 ? ["import", "sync"] as const : ["sync", "import"] as const) {
      const into = target.fresh()
      const args = command === "import"
        ? ["import", "--from", big.configDir, "--to", into.spec, "--json"]
        : ["sync", "--config-dir", big.configDir, "--to", into.spec, "--json"]
      runs[command].push(timed(() => node([bin, ...args])))
      runs[command === "import" ? "reimport" : "resync"].push(timed(() => node([bin, ...args])))
      // the last round's synced store is what the later parts read
      if (command === "sync" && round === ROUNDS - 1) kept = into
      else await into.drop()
    }
  }
  const mb = big.bytes / 1e6
  const [importMs, syncMs] = [median(runs.import), median(runs.sync)]
  console.log(
    `  ${target.name}: first import ${seconds(importMs)} (${(mb / (importMs / 1000)).toFixed(1)} MB/s), ` +
      `first sync ${seconds(syncMs)} (${(mb / (syncMs / 1000)).toFixed(1)} MB/s): sync throughput ${
        (importMs / syncMs).toFixed(2)
      }× import's; re-sync unchanged ${seconds(median(runs.resync))} (re-import ${
        seconds(median(runs.reimport))
      }); ${load()}`
  )
  cleanups.push(kept!.drop)
  return { name: target.name, spec: kept!.spec }
}

/** Each candidate's median (and p95) in ms, and as a multiple of the baseline's median. */
const printAgainst = (
  base: number,
  candidates: ReadonlyArray<Candidate>,
  samples: ReadonlyArray<ReadonlyArray<number>>
) =>
  candidates.forEach(({ name }, i) => {
    const m = median(samples[i]!)
    console.log(
      `  ${name.padEnd(32)} ${m.toFixed(1).padStart(7)} ms (p95 ${percentile(samples[i]!, 0.95).toFixed(1)}), ${
        (m / base).toFixed(2)
      }× node -e 0`
    )
  })

/**
 * Part 1b: the re-sync of the unchanged dir into a synced store as a user runs it (the sync's first
 * step finds it unchanged), against `node -e 0` and `acx --version`, `START_ROUNDS` interleaved
 * rounds, medians.
 */
const resyncCommands = (store: StoreUnderTest) => {
  const args = ["sync", "--config-dir", big.configDir, "--to", store.spec]
  // warm-up: the file cache, and the sync's lock directory the first sync of this home makes
  node([bin, ...args])
  const candidates: Array<Candidate> = [
    { name: "node -e 0 (baseline)", run: () => node(["-e", "0"]) },
    { name: "acx --version", run: () => node([bin, "--version"]) },
    { name: "acx sync, unchanged", run: () => node([bin, ...args]) }
  ]
  const samples = interleaved(candidates, START_ROUNDS)
  const base = median(samples[0]!)
  console.log(`re-sync of the unchanged dir into ${store.name} (${START_ROUNDS} rounds, medians; ${load()})`)
  printAgainst(base, candidates, samples)
}

/** `bench/storeRead.ts` bundled as the CLI is (build.mjs's options), beside the CLI's node_modules. */
const bundleEquivalent = async (): Promise<string> => {
  const outfile = path.join(bundleDir, "store-read.mjs")
  await esbuild.build({
    entryPoints: [path.join(here, "storeRead.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    external: ["better-sqlite3", "pg", "pg-native", "msgpackr-extract", "bufferutil", "utf-8-validate"],
    conditions: ["@acx/source"],
    banner: {
      js: "import { createRequire as __acxCreateRequire } from \"node:module\"\n" +
        "const require = __acxCreateRequire(import.meta.url)"
    }
  })
  return outfile
}

/** Whether the bin runs `args` successfully (a command or option this tree may not have yet). */
const works = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], { env: { ...env, ...extra }, stdio: "ignore" }).status === 0

/** Part 4: the reading commands over the synced SQLite store against `node -e 0`. */
const readingCommands = async (sqlite: StoreUnderTest) => {
  const equivalent = await bundleEquivalent()
  const spec = sqlite.spec
  const candidates: Array<Candidate> = [
    { name: "node -e 0 (baseline)", run: () => node(["-e", "0"]) },
    { name: "acx --version", run: () => node([bin, "--version"]) },
    { name: "equivalent: sessions", run: () => node([equivalent, "sessions", spec]) },
    { name: "equivalent: sessions --json", run: () => node([equivalent, "sessions", spec, "--json"]) },
    { name: "equivalent: stats", run: () => node([equivalent, "stats", spec]) }
  ]
  // the stats cache a first `stats --from` writes
  node([equivalent, "stats", spec])
  const hasFrom = works(["sessions", "--from", spec])
  const lines = [
    ["sessions", "--from", spec],
    ["sessions", "--from", spec, "--json"],
    ["stats", "--from", spec],
    ["stats", "--from", spec, "--json"]
  ]
  for (const args of lines) {
    if (!works(args)) continue
    const name = `acx ${args[0]} --from${args.includes("--json") ? " --json" : ""}`
    candidates.push({ name, run: () => node([bin, ...args]) })
  }
  // warm-up: the file cache, and the stats cache the first fold writes
  for (const candidate of candidates) candidate.run()
  const samples = interleaved(candidates, START_ROUNDS)
  const base = median(samples[0]!)
  console.log(
    `reading commands over ${spec} (${START_ROUNDS} rounds, medians; ${load()})${
      hasFrom ? "" : "; this tree's CLI has no --from: the full path is the bundled equivalent"
    }`
  )
  printAgainst(base, candidates, samples)
  // the totals a store gives must be the directory's
  type Totals = { total: { tokens: { total: number }; costUSD: number; sessions: number } }
  const ofDir = JSON.parse(node([bin, "stats", "--json", "--config-dir", big.configDir])) as Totals
  const ofStore = JSON.parse(node([equivalent, "stats", spec, "--json"])) as Totals
  const same = JSON.stringify(ofDir.total) === JSON.stringify(ofStore.total)
  console.log(
    `  stats totals: dir ${ofDir.total.sessions} sessions, ${ofDir.total.tokens.total} tokens, $${
      ofDir.total.costUSD.toFixed(2)
    }; store ${ofStore.total.sessions} sessions, ${ofStore.total.tokens.total} tokens, $${
      ofStore.total.costUSD.toFixed(2)
    }: ${same ? "equal" : "DIFFERENT"}`
  )
}

const main = async () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  const url = process.env["ACX_BENCH_FROM"] === undefined ? await pgUrl() : undefined
  console.log(
    `store bench: ${big.sessions} sessions, ${big.subagents} subagents, ${big.lines} lines, ${
      (big.bytes / 1e6).toFixed(0)
    } MB; ${os.availableParallelism()} cores; ${ROUNDS} sync round(s); Postgres ${
      url === undefined ? "left out" : process.env["ACX_PG_URL"] === undefined ? "embedded" : "ACX_PG_URL"
    }; ${load()}`
  )
  const reuse = process.env["ACX_BENCH_FROM"]
  if (reuse !== undefined) {
    const name = reuse.startsWith("sqlite:") ? "SQLite" : "Postgres"
    if (process.env["ACX_BENCH_RESYNC_ONLY"] === "1") return resyncCommands({ name, spec: reuse })
    await searchStore({ name, spec: reuse }, { bin, env, big })
    return name === "SQLite" && process.env["ACX_BENCH_SEARCH_ONLY"] !== "1"
      ? readingCommands({ name, spec: reuse })
      : undefined
  }
  console.log("first sync vs first import (built binary, process start included):")
  const stores: Array<StoreUnderTest> = []
  for (const target of targets(url)) stores.push(await syncAgainstImport(target))
  for (const store of stores) resyncCommands(store)
  if (process.env["ACX_BENCH_SYNC_ONLY"] === "1") return
  for (const store of stores) await searchStore(store, { bin, env, big })
  await readingCommands(stores[0]!)
  const keep = process.env["ACX_BENCH_KEEP_STORE"]
  if (keep !== undefined) fs.copyFileSync(stores[0]!.spec.slice("sqlite:".length), keep)
  const ui = path.join(here, "../../ui/src")
  const hasSearchRoute = fs.readdirSync(ui, { recursive: true }).some((file) =>
    String(file).endsWith(".ts") && fs.readFileSync(path.join(ui, String(file)), "utf8").includes("/api/search")
  )
  console.log(
    hasSearchRoute
      ? "GET /api/search: the route exists; not timed by this bench yet"
      : "GET /api/search: not in this tree (skipped)"
  )
}

try {
  await main()
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
}
