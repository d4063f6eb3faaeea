/**
 * `pnpm bench` for `acx stats` on a generated big config dir (`@acx/testing/BigConfigDir`;
 * `ACX_BENCH_SESSIONS` sessions, default 200, of `ACX_BENCH_BYTES` bytes in all, default 552 MB,
 * kept in the OS temp dir and reused while the options are the same). The built binary is run as
 * a user runs it (`node packages/cli/bin/acx.mjs stats --json`, process start included): cold
 * (an empty `$ACX_HOME`: every transcript folded, on every core) and warm (the cache of the run
 * before answers); `acx --version` is timed too (the start-up every command pays). The baseline, measured in the same run over the same files: reading every
 * transcript and `JSON.parse` of every line, on one core, in this process. Rounds alternate the
 * order; medians are printed with the ratios.
 */
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const SESSIONS = Number(process.env["ACX_BENCH_SESSIONS"] ?? 200)
const BYTES = Number(process.env["ACX_BENCH_BYTES"] ?? 552_000_000)
const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 5)

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")

const bigDir = path.join(os.tmpdir(), `acx-bench-big-config-${SESSIONS}-${BYTES}`)
const started = performance.now()
const big = generateBigConfigDir({ dir: bigDir, sessions: SESSIONS, bytes: BYTES })
const generatedMs = performance.now() - started

const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-stats-bench-"))
process.on("exit", () => fs.rmSync(home, { recursive: true, force: true }))

const transcripts = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return transcripts(full)
    return entry.isFile() && entry.name.endsWith(".jsonl") ? [full] : []
  })

/** Every line of every transcript read and parsed, one file after another. */
const baseline = (): number => {
  let lines = 0
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024)
  for (const file of transcripts(path.join(big.configDir, "projects"))) {
    const fd = fs.openSync(file, "r")
    let carry = ""
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null)
      if (read === 0) break
      const text = carry + buffer.toString("utf8", 0, read)
      const parts = text.split("\n")
      carry = parts.pop()!
      for (const line of parts) {
        if (line === "") continue
        JSON.parse(line)
        lines++
      }
    }
    if (carry !== "") {
      JSON.parse(carry)
      lines++
    }
    fs.closeSync(fd)
  }
  return lines
}

// the environment of a user's shell: not tsx's loader, which this script runs under
const { NODE_OPTIONS: _loader, ...userEnv } = process.env

/** `acx --version`: the start-up every command pays (loading the bundle). */
const startup = () => {
  const result = spawnSync(process.execPath, [bin, "--version"], { env: userEnv, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`acx --version failed: ${result.stderr}`)
}

let coldRound = 0
const stats = (acxHome: string) => {
  const result = spawnSync(process.execPath, [bin, "stats", "--json", "--by", "day"], {
    env: { ...userEnv, CLAUDE_CONFIG_DIR: big.configDir, ACX_HOME: acxHome },
    maxBuffer: 256 * 1024 * 1024,
    encoding: "utf8"
  })
  if (result.status !== 0) throw new Error(`acx stats failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as {
    total: { tokens: { total: number }; costUSD: number; sessions: number }
    read: { cached: number; folded: number; workers: number }
  }
}
const warmHome = path.join(home, "warm")
const cold = () => stats(path.join(home, `cold-${coldRound++}`))
const warm = () => stats(warmHome)

const timed = <A>(f: () => A) => {
  const start = performance.now()
  const value = f()
  return { value, ms: performance.now() - start }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`

const main = () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  // warm-up, the warm cache's first fill, and the figures both must agree on
  const first = cold().total
  timed(baseline)
  const filled = warm()
  if (filled.total.tokens.total !== first.tokens.total) throw new Error("cold and warm totals differ")
  const samples: Record<"baseline" | "startup" | "cold" | "warm", Array<number>> = {
    baseline: [],
    startup: [],
    cold: [],
    warm: []
  }
  let workers = 0
  for (let i = 0; i < ROUNDS; i++) {
    const steps: Array<[keyof typeof samples, () => unknown]> = [
      ["baseline", baseline],
      ["startup", startup],
      ["cold", () => workers = cold().read.workers],
      ["warm", () => {
        const read = warm().read
        if (read.folded !== 0) throw new Error(`warm run folded ${read.folded} files`)
      }]
    ]
    if (i % 2 === 1) steps.reverse()
    for (const [name, run] of steps) samples[name].push(timed(run).ms)
  }
  const base = median(samples.baseline)
  console.log(
    `stats: ${big.sessions} sessions (${big.subagents} subagent transcripts), ${
      (big.bytes / 1e6).toFixed(0)
    } MB, ${big.lines} lines${
      generatedMs > 1000 ? ` (generated in ${(generatedMs / 1000).toFixed(1)} s)` : " (reused)"
    }, ${ROUNDS} rounds, ${os.availableParallelism()} cores; ${first.sessions} sessions, ${
      (first.tokens.total / 1e9).toFixed(2)
    }B tokens, $${first.costUSD.toFixed(2)}`
  )
  console.log(`  baseline (read + JSON.parse of every line, one core, in-process): ${ms(base)} (median)`)
  console.log(`  acx --version (the start-up of every command): ${ms(median(samples.startup))} (median)`)
  for (const name of ["cold", "warm"] as const) {
    const m = median(samples[name])
    console.log(
      `  acx stats ${
        name === "cold" ? `cold (empty cache, ${workers} worker threads)` : "warm (cache)"
      }, process included: ${ms(m)} (median; min ${ms(Math.min(...samples[name]))}, max ${
        ms(Math.max(...samples[name]))
      }), ${(m / base).toFixed(2)}× the baseline`
    )
  }
}

main()
