/**
 * `pnpm bench` for the CLI's start-up: the built binary run as a user runs it
 * (`node packages/cli/bin/acx.mjs …`, process start included) for `--version`, `--help`,
 * `sessions`, `show` and warm `stats` on a config dir built from the fixtures (`@acx/fixtures`
 * `buildClaudeConfigDir`, a few small sessions: the time is start-up, not work), and
 * `memory status` on an empty `$ACX_HOME`. The baseline, measured in the same run: `node -e 0`, the least any Node process costs.
 * `ACX_BENCH_ROUNDS` rounds (default 10) alternate the order; medians are printed with the
 * ratios against the baseline.
 */
import { buildClaudeConfigDir } from "@acx/fixtures"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { median, runRounds } from "./rounds.js"

const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 10)

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-startup-bench-"))
process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }))
const { configDir, sessions } = buildClaudeConfigDir(path.join(root, "claude"))
const acxHome = path.join(root, "acx-home")

// the environment of a user's shell: not tsx's loader, which this script runs under
const { NODE_OPTIONS: _loader, ...userEnv } = process.env
const env = { ...userEnv, ACX_HOME: acxHome, NO_COLOR: "1" }

/** Runs `node args…` to completion; a failure stops the bench (a broken command is not fast). */
const node = (args: ReadonlyArray<string>) => {
  const result = spawnSync(process.execPath, args, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  return result.stdout
}

// the smallest session: `show`'s own work stays small beside the start-up
const smallest = [...sessions].sort((a, b) => fs.statSync(a.file).size - fs.statSync(b.file).size)[0]!

const candidates: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["acx --version", [bin, "--version"]],
  ["acx --help", [bin, "--help"]],
  ["acx sessions", [bin, "sessions", "--config-dir", configDir]],
  ["acx show", [bin, "show", smallest.sessionId, "--config-dir", configDir]],
  ["acx stats (warm)", [bin, "stats", "--config-dir", configDir]],
  ["acx memory status", [bin, "memory", "status"]]
]

const ms = (x: number) => `${x.toFixed(0)} ms`

const main = () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  // warm-up: the file cache, and the caches `sessions` and `stats` fill on their first run
  for (const [, args] of candidates) node(args)
  const samples = runRounds(candidates, ROUNDS, (candidate) => node(candidate[1]))
  const base = median(samples[0]!)
  console.log(
    `start-up: ${ROUNDS} rounds, ${os.availableParallelism()} cores, load average ${
      os.loadavg()[0]!.toFixed(1)
    }; ${sessions.length} fixture sessions, show of ${smallest.sessionId} (${fs.statSync(smallest.file).size} B)`
  )
  candidates.forEach(([name], i) => {
    const m = median(samples[i]!)
    console.log(
      `  ${name.padEnd(22)} ${ms(m).padStart(8)} (median; min ${ms(Math.min(...samples[i]!))}), ${
        (m / base).toFixed(2)
      }× the baseline`
    )
  })
}

main()
