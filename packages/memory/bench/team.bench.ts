/**
 * `tsx bench/team.bench.ts`: what the team memory adds to SessionStart, which reads teammates'
 * entries from the local cache the worker keeps (never the network). Three interleaved process
 * timings, the order alternating, p50 and p95: `node -e 0` (the baseline), the SessionStart hook
 * as `acx memory install` writes it (this Node and the CLI's `dist/hook.cjs`) on a memory of
 * 20 000 own observations and 2 000 summaries, and the same hook on a memory of 10 000 own and
 * 10 000 teammates' observations (1 000 + 1 000 summaries) with the project mapped to its remote.
 * Also `HookRunner.contextFor` in process on both. A worker row naming this process stands for a
 * live worker, so no hook starts one. Goal: the team memory's hook within the hook's budget
 * (the same p50 as without a team, ≤ 1.5× `node -e 0` on a quiet machine, docs/benchmarks.md).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as HookRunner from "../src/HookRunner.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"

const WARMUP = 5
const SAMPLES = 40
const CONTEXT_ROUNDS = 30
const REMOTE = "github.com/acme/shop"

const here = path.dirname(fileURLToPath(import.meta.url))
const HOOK = path.resolve(here, "../../cli/dist/hook.cjs")
if (!fs.existsSync(HOOK)) throw new Error(`${HOOK} is missing: build the CLI first (pnpm --filter @acx/cli build)`)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-bench-team-"))
process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }))
const project = path.join(root, "shop")
fs.mkdirSync(project)

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
const p50 = (xs: ReadonlyArray<number>) => sorted(xs)[Math.floor(xs.length / 2)]!
const p95 = (xs: ReadonlyArray<number>) => sorted(xs)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)]!
const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`

/** A memory home: `own` and `team` observations (and a tenth as many summaries), a live worker row. */
const makeHome = (name: string, own: number, team: number) => {
  const home = path.join(root, name)
  const db = Sqlite.open(MemoryConfig.paths(home).database)
  const observation = db.prepare(
    `INSERT INTO memory_observations (session_id, project, type, title, subtitle, narrative, source, created_at, uid, author, machine)
     VALUES (?, ?, 'decision', ?, 'a subtitle of some length', 'a narrative', 'local', ?, ?, ?, ?)`
  )
  const summary = db.prepare(
    `INSERT INTO memory_summaries (session_id, project, request, investigated, learned, completed, next_steps, notes, source, created_at, uid, author, machine)
     VALUES (?, ?, 'the request of the session', '', 'what was learned', 'what was done', 'next', '', 'local', ?, ?, ?, ?)`
  )
  db.transaction(() => {
    for (let i = 0; i < own + team; i++) {
      const mine = i < own
      const at = Date.UTC(2026, 0, 1) + i * 60_000
      const args = mine ? [null, null, null] : [`uid-${i}`, "bo", "bo-desktop"]
      observation.run(`s-${i % 500}`, mine ? project : REMOTE, `observation ${i} about the cart`, at, ...args)
      if (i % 10 === 0) summary.run(`s-${i % 500}`, mine ? project : REMOTE, at, ...args)
    }
    if (team > 0) db.prepare("INSERT INTO memory_team_projects (path, identity) VALUES (?, ?)").run(project, REMOTE)
    db.prepare("INSERT INTO memory_meta (key, value) VALUES ('team.syncDueAt', ?)").run(String(Date.now() + 86_400_000))
  })()
  const beat = () =>
    db.prepare("UPDATE memory_worker SET pid = ?, started_at = ?, heartbeat_at = ? WHERE id = 1")
      .run(process.pid, Date.now(), Date.now())
  beat()
  setInterval(beat, 5_000).unref()
  return home
}

const timeProcess = (args: ReadonlyArray<string>, stdin: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ readonly ms: number; readonly stdout: string }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => {
      const elapsed = performance.now() - started
      if (code === 0 && stderr === "") resolve({ ms: elapsed, stdout })
      else reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr.trim()}`))
    })
    child.stdin.end(stdin)
  })

const sessionStart = (sessionId: string) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: "",
    cwd: project,
    hook_event_name: "SessionStart",
    source: "startup"
  })

const main = async () => {
  const solo = makeHome("solo", 20_000, 0)
  const team = makeHome("team", 10_000, 10_000)
  const env = (home: string) => ({ ...process.env, ACX_HOME: home })
  const kinds = [
    { name: "node -e 0", run: () => timeProcess(["-e", "0"], "", process.env) },
    {
      name: "SessionStart, own memory",
      run: (i: number) => timeProcess([HOOK, "SessionStart"], sessionStart(`solo-${i}`), env(solo))
    },
    {
      name: "SessionStart, team memory",
      run: (i: number) => timeProcess([HOOK, "SessionStart"], sessionStart(`team-${i}`), env(team))
    }
  ]
  const teamOutput = (await kinds[2]!.run(-1)).stdout
  if (!teamOutput.includes("(by bo on bo-desktop)")) {
    throw new Error(`the team context is missing: ${teamOutput.slice(0, 300)}`)
  }
  const samples = kinds.map(() => [] as Array<number>)
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const order = i % 2 === 0 ? [0, 1, 2] : [2, 1, 0]
    for (const k of order) {
      const { ms: elapsed } = await kinds[k]!.run(i)
      if (i >= WARMUP) samples[k]!.push(elapsed)
    }
  }
  const base = p50(samples[0]!)
  console.log(
    `load average ${
      os.loadavg().map((x) => x.toFixed(1)).join(" ")
    }; ${SAMPLES} samples each after ${WARMUP} warm-ups, interleaved`
  )
  kinds.forEach((kind, k) =>
    console.log(
      `  ${kind.name.padEnd(28)} p50 ${ms(p50(samples[k]!))}  p95 ${ms(p95(samples[k]!))}  ${
        (p50(samples[k]!) / base).toFixed(2)
      }×`
    )
  )
  const context = (home: string) => {
    const times: Array<number> = []
    let chars = 0
    for (let i = 0; i < CONTEXT_ROUNDS; i++) {
      const started = performance.now()
      chars = HookRunner.contextFor(home, project).length
      times.push(performance.now() - started)
    }
    return { p50: p50(times), chars }
  }
  const own = context(solo)
  const mixed = context(team)
  console.log(`HookRunner.contextFor, ${CONTEXT_ROUNDS} rounds:`)
  console.log(`  own memory   p50 ${ms(own.p50)} (${own.chars} characters)`)
  console.log(`  team memory  p50 ${ms(mixed.p50)} (${mixed.chars} characters)  ${(mixed.p50 / own.p50).toFixed(2)}×`)
  process.exit(0)
}

void main()
