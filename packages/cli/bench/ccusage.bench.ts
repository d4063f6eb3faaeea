/**
 * `pnpm --filter @acx/cli bench:ccusage` (part of `pnpm bench`): `acx stats` and `acx sessions`
 * against ccusage 20's native binary and `node -e 0`, on the generated big config dir
 * (`@acx/testing/BigConfigDir`; `ACX_BENCH_SESSIONS`, default 200, `ACX_BENCH_BYTES`, default
 * 552 MB; kept in the OS temp dir and reused). ccusage is the npm package
 * `@ccusage/ccusage-linux-x64` (`ACX_BENCH_CCUSAGE_VERSION`, default 20.0.24), installed by npm
 * into a directory of the OS temp dir at bench time: never a dependency of acx
 * (`ACX_BENCH_CCUSAGE=/path/to/ccusage` uses another binary; on another platform the bench says
 * so and measures acx alone).
 *
 * Measured, each a process as a user runs it, `ACX_BENCH_ROUNDS` rounds (default 7) in an order
 * that rotates every round (A B C D E, B C D E A, …), the page cache warm (every transcript read
 * once first):
 * - `node -e 0`: the baseline of the warm targets;
 * - `acx stats --json` cold (a fresh `$ACX_HOME` each round: every transcript folded) against
 *   `ccusage claude session --json --offline` (its `HOME` an empty directory, so it finds no other
 *   agent's logs): target ≤ 0.8×;
 * - `acx stats --json` warm (its cache filled): target ≤ 3× `node -e 0`;
 * - `acx sessions` warm (its listing cache filled): target ≤ 2.5× `node -e 0`.
 *
 * Before timing, the totals are compared: acx's and ccusage's tokens (input, output, cache read,
 * cache write) and dollars (to the cent) must be equal, else the bench stops. The table printed
 * gives medians, minima, the ratios and the load average before and after.
 */
import { benchConfigDir } from "@acx/testing/BigConfigDir"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { acxTotals, CCUSAGE_VERSION, ccusageBinary, ccusageTotals, sameTotals } from "./ccusageBinary.js"

const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 7)

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")

const big = benchConfigDir()

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ccusage-bench-"))
process.on("exit", () => fs.rmSync(scratch, { recursive: true, force: true }))

// the environment of a user's shell: not tsx's loader, which this script runs under
const { NODE_OPTIONS: _loader, ...userEnv } = process.env
const emptyHome = path.join(scratch, "user-home")
fs.mkdirSync(emptyHome)

const spawn = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): string => {
  const result = spawnSync(command, args, { env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  return result.stdout
}

let homes = 0
const acx = (args: ReadonlyArray<string>, acxHome: string) =>
  spawn(process.execPath, [bin, ...args], { ...userEnv, CLAUDE_CONFIG_DIR: big.configDir, ACX_HOME: acxHome })
const warmHome = path.join(scratch, "warm")

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`

const main = () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  const ccusage = ccusageBinary()
  const ccusageRun = () =>
    spawn(ccusage!, ["claude", "session", "--json", "--offline"], {
      ...userEnv,
      CLAUDE_CONFIG_DIR: big.configDir,
      HOME: emptyHome
    })
  // the page cache warm, the warm caches filled, and the figures both tools must agree on
  const acxFirst = acxTotals(acx(["stats", "--json"], path.join(scratch, `cold-${homes++}`)))
  acx(["stats", "--json"], warmHome)
  acx(["sessions"], warmHome)
  let agreement = "ccusage not run (no native binary for this platform)"
  if (ccusage !== undefined) {
    agreement = sameTotals(acxFirst, ccusageTotals(ccusageRun()))
  }
  const candidates: ReadonlyArray<readonly [string, () => unknown]> = [
    ["node -e 0", () => spawn(process.execPath, ["-e", "0"], userEnv)],
    ["acx stats cold", () => acx(["stats", "--json"], path.join(scratch, `cold-${homes++}`))],
    ...(ccusage === undefined ? [] : [[`ccusage ${CCUSAGE_VERSION} session`, ccusageRun] as const]),
    ["acx stats warm", () => {
      const read = (JSON.parse(acx(["stats", "--json"], warmHome)) as { read: { folded: number } }).read
      if (read.folded !== 0) throw new Error(`warm stats folded ${read.folded} files`)
    }],
    ["acx sessions warm", () => acx(["sessions"], warmHome)]
  ]
  const loadBefore = os.loadavg()[0]!
  const samples = candidates.map((): Array<number> => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < candidates.length; k++) {
      const i = (k + round) % candidates.length
      const start = performance.now()
      candidates[i]![1]()
      samples[i]!.push(performance.now() - start)
    }
  }
  const loadAfter = os.loadavg()[0]!
  const medianOf = (name: string) => median(samples[candidates.findIndex(([n]) => n === name)]!)
  const node = medianOf("node -e 0")
  const cc = ccusage === undefined ? undefined : medianOf(`ccusage ${CCUSAGE_VERSION} session`)
  const target: Record<string, string> = {
    "acx stats cold": cc === undefined
      ? ""
      : `${(medianOf("acx stats cold") / cc).toFixed(2)}× ccusage (target ≤ 0.8×)`,
    "acx stats warm": `${(medianOf("acx stats warm") / node).toFixed(2)}× node -e 0 (target ≤ 3×)`,
    "acx sessions warm": `${(medianOf("acx sessions warm") / node).toFixed(2)}× node -e 0 (target ≤ 2.5×)`
  }
  console.log(
    `ccusage bench: ${big.sessions} sessions (${big.subagents} subagent transcripts), ${
      (big.bytes / 1e6).toFixed(0)
    } MB; ${ROUNDS} rotating rounds; ${os.availableParallelism()} cores, Node ${process.version}; load average ${
      loadBefore.toFixed(1)
    } before, ${loadAfter.toFixed(1)} after\n${agreement}\n`
  )
  console.log(`| command | median | min | ratio |\n|---|---|---|---|`)
  candidates.forEach(([name], i) => {
    console.log(`| ${name} | ${ms(median(samples[i]!))} | ${ms(Math.min(...samples[i]!))} | ${target[name] ?? ""} |`)
  })
}

main()
