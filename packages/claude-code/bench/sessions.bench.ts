/**
 * `pnpm bench` for `ClaudeProjects.listSessions` (what `acx sessions` runs) on a generated big
 * config dir (`@acx/testing/BigConfigDir`; `ACX_BENCH_SESSIONS` sessions, default 200, of
 * `ACX_BENCH_BYTES` bytes in all, default 552 MB, kept in the OS temp dir and reused while the
 * options are the same): cold (no cache: head and tail of every transcript) and warm (the cache
 * under a temp `$ACX_HOME/cache` answers), against a baseline measured in the same run over the
 * same files: the directory walk plus one `stat` per transcript, the least any listing does.
 * One round of the full read the listing did before (every transcript parsed whole) is timed for
 * reference. Rounds alternate the order; medians are printed with the ratios.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { foldTranscript } from "../src/internal/transcriptFile.js"

const SESSIONS = Number(process.env["ACX_BENCH_SESSIONS"] ?? 200)
const BYTES = Number(process.env["ACX_BENCH_BYTES"] ?? 552_000_000)
const ROUNDS = 7

const bigDir = path.join(os.tmpdir(), `acx-bench-big-config-${SESSIONS}-${BYTES}`)
const started = performance.now()
const big = generateBigConfigDir({ dir: bigDir, sessions: SESSIONS, bytes: BYTES })
const generatedMs = performance.now() - started

const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sessions-bench-"))
process.on("exit", () => fs.rmSync(home, { recursive: true, force: true }))

let coldRound = 0
const listing = (cacheDir: string | undefined) =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.make({ configDir: big.configDir, cacheDir })
    return (yield* projects.listSessions()).length
  }).pipe(Effect.provide(NodeContext.layer))

const warmCache = path.join(home, "warm", "cache")
const cold = () => listing(path.join(home, `cold-${coldRound++}`, "cache"))
const warm = () => listing(warmCache)

const baseline = () =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const projects = yield* ClaudeProjects.make({ configDir: big.configDir })
    const files = yield* projects.listSessionFiles()
    yield* Effect.forEach(files, (file) => fs.stat(file.file), { concurrency: 16 })
    return files.length
  }).pipe(Effect.provide(NodeContext.layer))

const fullRead = () =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.make({ configDir: big.configDir })
    const files = yield* projects.listSessionFiles()
    let entries = 0
    const sink = { onEntry: () => entries++, onError: () => {} }
    yield* Effect.forEach(files, (file) => foldTranscript(file.file, sink), {
      concurrency: 8
    })
    return files.length
  }).pipe(Effect.provide(NodeContext.layer))

const timed = async (effect: Effect.Effect<number, unknown>) => {
  const start = performance.now()
  const n = await Effect.runPromise(effect)
  return { n, ms: performance.now() - start }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(1)} ms`

const main = async () => {
  // warm-up (module loading, JIT) and the warm cache's first fill
  const counts = [await timed(baseline()), await timed(cold()), await timed(warm())].map((r) => r.n)
  if (new Set(counts).size !== 1) throw new Error(`session counts differ: ${counts.join(", ")}`)
  const samples: Record<"baseline" | "cold" | "warm", Array<number>> = { baseline: [], cold: [], warm: [] }
  for (let i = 0; i < ROUNDS; i++) {
    const steps: Array<[keyof typeof samples, () => Effect.Effect<number, unknown>]> = [
      ["baseline", baseline],
      ["cold", cold],
      ["warm", warm]
    ]
    if (i % 2 === 1) steps.reverse()
    for (const [name, make] of steps) samples[name].push((await timed(make())).ms)
  }
  const full = await timed(fullRead())
  const base = median(samples.baseline)
  console.log(
    `sessions: ${big.sessions} sessions (${big.subagents} with a subagent), ${
      (big.bytes / 1e6).toFixed(0)
    } MB, ${big.lines} lines${
      generatedMs > 1000 ? ` (generated in ${(generatedMs / 1000).toFixed(1)} s)` : " (reused)"
    }, ${ROUNDS} rounds`
  )
  console.log(`  baseline (walk + stat of every transcript): ${ms(base)} (median)`)
  for (const name of ["cold", "warm"] as const) {
    const m = median(samples[name])
    console.log(
      `  listSessions ${name === "cold" ? "cold (no cache: head + tail)" : "warm (cache)"}: ${ms(m)} (median; min ${
        ms(Math.min(...samples[name]))
      }, max ${ms(Math.max(...samples[name]))}), ${(m / base).toFixed(2)}× the baseline`
    )
  }
  console.log(
    `  full read of every transcript (the listing before, one round): ${ms(full.ms)}, ${
      (full.ms / base).toFixed(0)
    }× the baseline`
  )
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
