/**
 * `pnpm bench` for the sync hook (`dist/sync-hook.cjs` with a Stop input, as Claude Code runs
 * it) against `node -e 0` given the same stdin, `ACX_BENCH_HOOK_SAMPLES` each (default 30),
 * interleaved; the target's lock is held by this process, so each sync the hook starts defers at
 * once. The first `acx sync` against `acx import`, and the re-sync of an unchanged dir, are
 * measured by `store.bench.ts`.
 */
import { lockName } from "@acx/claude-code/ClaudeSync"
import { benchConfigDir } from "@acx/testing/BigConfigDir"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

const work = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sync-bench-"))
const home = path.join(work, "home")
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }))
const big = benchConfigDir()

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
