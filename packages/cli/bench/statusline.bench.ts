/**
 * `pnpm bench` for `acx statusline`, run as Claude Code runs it: a process started with the
 * statusline input (a subscriber's, with `rate_limits`) on stdin, over a config dir built from
 * the fixtures whose cached totals are fresh (the refresh runs once first). Measured: the command
 * `acx statusline install` writes (`node dist/statusline.cjs`), and `acx statusline` through the
 * bin. The baseline, measured in the same run with the same stdin: `node -e 0`. `ACX_BENCH_ROUNDS`
 * rounds (default 20) alternate the order; medians (p50) are printed with the ratios.
 */
import { buildClaudeConfigDir } from "@acx/fixtures"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { median, runRounds } from "./rounds.js"

const ROUNDS = Number(process.env["ACX_BENCH_ROUNDS"] ?? 20)

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "../bin/acx.mjs")
const bundle = path.join(here, "../dist/statusline.cjs")

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-statusline-bench-"))
process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }))
const { configDir, sessions } = buildClaudeConfigDir(path.join(root, "claude"))
const acxHome = path.join(root, "acx-home")

const { NODE_OPTIONS: _loader, ...userEnv } = process.env
const env = { ...userEnv, ACX_HOME: acxHome }

const nowS = Math.floor(Date.now() / 1000)
const input = JSON.stringify({
  session_id: sessions[0]!.sessionId,
  transcript_path: sessions[0]!.file,
  cwd: root,
  model: { id: "claude-opus-5-5", display_name: "Opus 5.5" },
  workspace: { current_dir: root, project_dir: root },
  version: "2.1.332",
  cost: { total_cost_usd: 1.2345, total_duration_ms: 60_000 },
  context_window: { context_window_size: 200_000, used_percentage: 42, current_usage: null },
  rate_limits: {
    five_hour: { used_percentage: 37, resets_at: nowS + 7200 },
    seven_day: { used_percentage: 12, resets_at: nowS + 3 * 86400 }
  }
})

const run = (args: ReadonlyArray<string>) => {
  const result = spawnSync(process.execPath, args, { env, input, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  return result.stdout
}

const candidates: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["node dist/statusline.cjs", [bundle]],
  ["acx statusline (bin)", [bin, "statusline"]]
]

const ms = (x: number) => `${x.toFixed(1)} ms`

const main = () => {
  execFileSync(process.execPath, [path.join(here, "../build.mjs")], { stdio: "inherit" })
  // the cached totals, fresh: the runs below read them and start no refresh (within 30 s)
  execFileSync(process.execPath, [bin, "statusline", "refresh", "--config-dir", configDir], { env, stdio: "ignore" })
  for (const [, args] of candidates) run(args)
  console.log(`line: ${run([bundle]).trim()}`)
  const samples = runRounds(candidates, ROUNDS, (candidate) => run(candidate[1]))
  const base = median(samples[0]!)
  console.log(
    `statusline: ${ROUNDS} rounds, ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}`
  )
  candidates.forEach(([name], i) => {
    const m = median(samples[i]!)
    console.log(
      `  ${name.padEnd(26)} ${ms(m).padStart(9)} p50 (min ${ms(Math.min(...samples[i]!))}), ${
        (m / base).toFixed(2)
      }× the baseline`
    )
  })
}

main()
