/**
 * `pnpm bench`: what `@acx/memory` costs, every ratio against a baseline measured in the same run.
 * Hook inputs are the real Read / Edit / Bash calls of the transcripts in packages/fixtures/data
 * (each tool_use with its `toolUseResult`, as Claude Code hands them to a PostToolUse hook).
 * 1. hook latency: the PostToolUse hook as `acx memory install` writes it (this Node and the
 *    CLI's `dist/hook.cjs`), and `acx hook PostToolUse` through the bin, against `node -e 0`,
 *    interleaved, p50 and p95 (goal: the installed command's p50 ≤ 1.5×); a worker row with this
 *    process's pid and a fresh heartbeat stands for a live worker, so no hook starts one;
 * 2. 8 parallel writers, 50 hook processes each plus 5 re-deliveries of a neighbour's calls:
 *    every event stored once, events/s against the same schedule of `node -e 0`;
 * 3. search over 100 000 observations (plus summaries and prompts), terms of every frequency,
 *    with and without a project: `MemorySearch.search` against an unranked FTS5 match of the
 *    same terms (goal: p50 ≤ 10 ms); the SessionStart context (`HookRunner.contextFor`) against
 *    opening the database (goal: p50 ≤ 50 ms);
 * 4. model calls and input tokens per 100 tool events: `MemoryWorker.run` on the real Claude
 *    Code CLI against the model double, batched (the defaults) against unbatched (batchSize 1)
 *    on the same session (goal: ≤ 20 calls per 100 tool events).
 *
 * `tsx bench/memory.bench.ts [latency|writers|search|model]…` runs only those.
 */
import * as Fixtures from "@acx/fixtures"
import { detectClaude, ModelDouble, realClaude, startModelDouble } from "@acx/testing"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as HookRunner from "../src/HookRunner.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryDatabase from "../src/MemoryDatabase.js"
import * as MemorySearch from "../src/MemorySearch.js"
import * as MemoryWorker from "../src/MemoryWorker.js"

const LATENCY_WARMUP = 5
const LATENCY_SAMPLES = 60
const WRITERS = 8
const PER_WRITER = 50
const REDELIVERED_PER_WRITER = 5
const OBSERVATIONS = 100_000
const OBSERVATIONS_PER_SESSION = 50
const PROMPTS_PER_SESSION = 3
const SEARCH_ROUNDS = 15
const CONTEXT_ROUNDS = 30
const TOOL_EVENTS = 100

const only = process.argv.slice(2)
const runs = (name: string) => only.length === 0 || only.includes(name)

const here = path.dirname(fileURLToPath(import.meta.url))
const BIN = path.resolve(here, "../../cli/bin/acx.mjs")
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-bench-memory-"))
process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }))
const project = path.join(root, "project")
fs.mkdirSync(project)

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
const p50 = (xs: ReadonlyArray<number>) => sorted(xs)[Math.floor(xs.length / 2)]!
const p95 = (xs: ReadonlyArray<number>) => sorted(xs)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)]!
const ms = (value: number, digits = 1) => `${value.toFixed(digits).padStart(7)} ms`
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`

// --- inputs: the fixtures' real tool calls -------------------------------------------------------

interface ToolCall {
  readonly tool_name: string
  readonly tool_input: unknown
  readonly tool_response: unknown
}

const toolCalls: ReadonlyArray<ToolCall> = (() => {
  const uses = new Map<string, { readonly name: string; readonly input: unknown }>()
  const calls: Array<ToolCall> = []
  for (const { value } of Fixtures.transcriptEntries()) {
    const entry = value as {
      type?: string
      message?: { content?: unknown }
      toolUseResult?: unknown
    }
    const content = Array.isArray(entry.message?.content) ? entry.message.content as Array<Record<string, any>> : []
    for (const block of content) {
      if (entry.type === "assistant" && block["type"] === "tool_use") {
        uses.set(block["id"], { name: block["name"], input: block["input"] })
      }
      if (entry.type === "user" && block["type"] === "tool_result" && entry.toolUseResult !== undefined) {
        const use = uses.get(block["tool_use_id"])
        if (use !== undefined && ["Read", "Edit", "Bash"].includes(use.name)) {
          calls.push({ tool_name: use.name, tool_input: use.input, tool_response: entry.toolUseResult })
        }
      }
    }
  }
  return calls
})()

const hookInput = (sessionId: string, toolUseId: string, call: ToolCall): string =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: path.join(root, "claude", "projects", "bench", `${sessionId}.jsonl`),
    cwd: project,
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: call.tool_name,
    tool_input: call.tool_input,
    tool_response: call.tool_response,
    tool_use_id: toolUseId
  })

// --- processes ------------------------------------------------------------------------------------

/** Runs `node <args>` with `stdin`; resolves to its wall time (ms); rejects on a failure or a warning. */
const timeProcess = (args: ReadonlyArray<string>, stdin: string, env: NodeJS.ProcessEnv) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    child.stdout.resume()
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.on("error", () => {})
    child.on("error", reject)
    child.on("close", (code) => {
      const elapsed = performance.now() - started
      if (code === 0 && stderr === "") resolve(elapsed)
      else reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr.trim()}`))
    })
    child.stdin.end(stdin)
  })

/** A memory home whose worker row says a worker lives (this process, heartbeat kept fresh). */
const homeWithLiveWorker = (name: string) => {
  const home = path.join(root, name)
  const db = Sqlite.open(MemoryConfig.paths(home).database)
  const beat = () =>
    db.prepare("UPDATE memory_worker SET pid = ?, started_at = coalesce(started_at, ?), heartbeat_at = ? WHERE id = 1")
      .run(process.pid, Date.now(), Date.now())
  beat()
  const timer = setInterval(beat, 5_000)
  const noWorker = path.join(root, "no-worker.mjs")
  fs.writeFileSync(noWorker, "process.exit(0)\n")
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: process.env["HOME"],
    ACX_HOME: home,
    // belt and braces: were a hook to start a worker anyway, it exits at once (and is counted)
    ACX_MEMORY_WORKER_BIN: noWorker
  }
  return {
    home,
    env,
    db,
    count: (sql: string) => (db.prepare(sql).get() as { n: number }).n,
    workerStarted: () => fs.existsSync(MemoryConfig.paths(home).workerLog),
    close: () => {
      clearInterval(timer)
      db.close()
    }
  }
}

/** The command `acx memory install` writes: the hook bundle, run directly. */
const HOOK = [path.resolve(here, "../../cli/dist/hook.cjs"), "PostToolUse"]
/** `acx hook PostToolUse`: the bin hands over to the same bundle. */
const HOOK_VIA_BIN = [BIN, "hook", "PostToolUse"]
const NODE = ["-e", "0"]

if (runs("latency") || runs("writers")) {
  execFileSync(process.execPath, [path.resolve(here, "../../cli/build.mjs")], { stdio: "inherit" })
  const bundle = path.resolve(here, "../../cli/dist/hook.cjs")
  console.log(
    `acx hook bundle: ${(fs.statSync(bundle).size / 1024).toFixed(0)} KB; ${toolCalls.length} Read/Edit/Bash calls ` +
      `from the fixtures (median stdin ${
        p50(toolCalls.map((call, i) => hookInput("s", `t${i}`, call).length)).toFixed(0)
      } bytes)`
  )
}

// 1. hook latency ----------------------------------------------------------------------------------
if (runs("latency")) {
  const world = homeWithLiveWorker("latency")
  const hook: Array<number> = []
  const viaBin: Array<number> = []
  const node: Array<number> = []
  let n = 0
  const oneHook = (command: ReadonlyArray<string>) => {
    const call = toolCalls[n % toolCalls.length]!
    return timeProcess(command, hookInput("s-latency", `toolu_latency_${n++}`, call), world.env)
  }
  const round = async (i: number) => {
    // the order rotates: whatever one process leaves behind falls on each alike
    const steps = [
      async () => hook.push(await oneHook(HOOK)),
      async () => viaBin.push(await oneHook(HOOK_VIA_BIN)),
      async () => node.push(await timeProcess(NODE, "", world.env))
    ]
    for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!()
  }
  for (let i = 0; i < LATENCY_WARMUP; i++) await round(i)
  hook.length = viaBin.length = node.length = 0
  for (let i = 0; i < LATENCY_SAMPLES; i++) await round(i)
  const stored = world.count("SELECT count(*) AS n FROM memory_events")
  const started = world.workerStarted()
  world.close()
  if (stored !== n) throw new Error(`latency: ${stored} events stored of ${n}`)
  if (started) throw new Error("latency: a hook started a worker")
  console.log(
    `hook latency, ${LATENCY_SAMPLES} interleaved samples each (a process per call, ${os.cpus().length} cores):`
  )
  console.log(`                                   p50          p95`)
  console.log(`  node -e 0                     ${ms(p50(node))}   ${ms(p95(node))}   1.00×`)
  const row = (label: string, xs: ReadonlyArray<number>, goal: string) =>
    console.log(
      `  ${label.padEnd(28)}${ms(p50(xs))}   ${ms(p95(xs))}   ${ratio(p50(xs), p50(node))} (p95 ${
        ratio(p95(xs), p95(node))
      })${goal}`
    )
  row("installed: node hook.cjs", hook, "  (goal p50 ≤ 1.50×)")
  row("acx hook PostToolUse (bin)", viaBin, "")
}

// 2. parallel writers ------------------------------------------------------------------------------
if (runs("writers")) {
  /** Writer w's schedule: its own calls, and every 10th of its neighbour's delivered again. */
  const schedule = (writer: number) => {
    const neighbour = (writer + 1) % WRITERS
    const items: Array<{ readonly owner: number; readonly i: number }> = []
    for (let i = 0; i < PER_WRITER; i++) {
      items.push({ owner: writer, i })
      if (i % 10 === 5) items.push({ owner: neighbour, i: i - 5 })
    }
    return items
  }
  const session = (owner: number) => `s-writer-${owner}`
  const toolUseId = (owner: number, i: number) => `toolu_w${owner}_${i}`
  const perWriter = schedule(0).length
  const total = perWriter * WRITERS
  const drive = async (
    args: ReadonlyArray<string>,
    env: NodeJS.ProcessEnv,
    withInput: boolean,
    from: number,
    to: number
  ) => {
    const started = performance.now()
    await Promise.all(Array.from({ length: WRITERS }, async (_, writer) => {
      for (const { i, owner } of schedule(writer).slice(from, to)) {
        const call = toolCalls[(i * WRITERS + owner) % toolCalls.length]!
        await timeProcess(args, withInput ? hookInput(session(owner), toolUseId(owner, i), call) : "", env)
      }
    }))
    return (performance.now() - started) / 1000
  }
  const world = homeWithLiveWorker("writers")
  // the baseline runs the same schedule, its first half before the hooks and its second after
  const half = Math.ceil(perWriter / 2)
  const before = await drive(NODE, world.env, false, 0, half)
  const hooks = await drive(HOOK, world.env, true, 0, perWriter)
  const after = await drive(NODE, world.env, false, half, perWriter)
  const rows = world.count("SELECT count(*) AS n FROM memory_events")
  const keys = world.count("SELECT count(DISTINCT idempotency_key) AS n FROM memory_events")
  const redeliveredKeys = Array.from(
    { length: WRITERS },
    (_, writer) =>
      schedule(writer).filter(({ owner }) => owner !== writer).map(({ i, owner }) =>
        `tool:${session(owner)}:${toolUseId(owner, i)}`
      )
  ).flat()
  const redelivered = (world.db.prepare(
    `SELECT count(*) AS n FROM memory_events WHERE idempotency_key IN (${redeliveredKeys.map(() => "?").join(", ")})`
  ).get(...redeliveredKeys) as { n: number }).n
  const started = world.workerStarted()
  world.close()
  const distinct = WRITERS * PER_WRITER
  if (rows !== distinct || keys !== distinct) throw new Error(`writers: ${rows} rows, ${keys} keys, not ${distinct}`)
  if (started) throw new Error("writers: a hook started a worker")
  const baseline = before + after
  console.log(
    `${WRITERS} parallel writers, ${total} hook processes (${distinct} tool calls + ${
      WRITERS * REDELIVERED_PER_WRITER
    } re-delivered):`
  )
  console.log(`  stored ${rows} events, ${keys} distinct keys (the ${redelivered} re-delivered calls once each)`)
  console.log(
    `  node -e 0            ${(total / baseline).toFixed(1).padStart(6)} processes/s (${baseline.toFixed(1)} s)  1.00×`
  )
  console.log(
    `  acx hook PostToolUse ${(total / hooks).toFixed(1).padStart(6)} processes/s (${hooks.toFixed(1)} s)  ${
      ratio(baseline, hooks)
    }; ${(distinct / hooks).toFixed(1)} events stored/s`
  )
}

// 3. search and context over 100 000 observations -------------------------------------------------
if (runs("search")) {
  /** mulberry32: the same database on every run. */
  const random = (() => {
    let state = 0x5eed
    return () => {
      state = (state + 0x6d2b79f5) | 0
      let t = Math.imul(state ^ (state >>> 15), 1 | state)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  })()
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1))
  // words with their natural frequencies: the prose of the fixtures' prompts and answers
  const counts = new Map<string, number>()
  const files = new Set<string>()
  for (const { value } of Fixtures.transcriptEntries()) {
    const entry = value as { type?: string; message?: { content?: unknown } }
    if (entry.type !== "user" && entry.type !== "assistant") continue
    const content = entry.message?.content
    const blocks = typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
      ? content as Array<Record<string, any>>
      : []
    for (const block of blocks) {
      if (block["type"] === "text" && typeof block["text"] === "string") {
        for (const word of (block["text"] as string).toLowerCase().match(/[a-z][a-z0-9_]{1,24}/g) ?? []) {
          counts.set(word, (counts.get(word) ?? 0) + 1)
        }
      }
      const file = block["type"] === "tool_use" ? block["input"]?.["file_path"] : undefined
      if (typeof file === "string") files.add(file.split("/").slice(-3).join("/"))
    }
  }
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1])
  const totalWords = words.reduce((sum, [, count]) => sum + count, 0)
  const cumulative: Array<number> = []
  let running = 0
  for (const [, count] of words) cumulative.push(running += count)
  const word = () => {
    const target = random() * totalWords
    let low = 0
    let high = cumulative.length - 1
    while (low < high) {
      const middle = (low + high) >> 1
      if (cumulative[middle]! <= target) low = middle + 1
      else high = middle
    }
    return words[low]![0]
  }
  const phrase = (low: number, high: number) => {
    const text = Array.from({ length: between(low, high) }, word).join(" ")
    return text.charAt(0).toUpperCase() + text.slice(1)
  }
  // identifiers (function names and the like: two words run together) give the long tail of
  // rare terms that real observations have; how many observations hold each is counted here
  const identifierCounts = new Map<string, number>()
  const identifier = () => {
    const second = word()
    const name = `${word()}${second.charAt(0).toUpperCase()}${second.slice(1)}`
    identifierCounts.set(name, (identifierCounts.get(name) ?? 0) + 1)
    return name
  }
  const sentences = (low: number, high: number) =>
    Array.from({ length: between(low, high) }, (_, i) => `${phrase(8, 18)}${i === 0 ? ` in ${identifier()}` : ""}.`)
      .join(" ")
  const fileList = [...files]
  const someFiles = (high: number) =>
    JSON.stringify(Array.from({ length: between(0, high) }, () => fileList[between(0, fileList.length - 1)]))
  const list = (low: number, high: number, item: () => string) =>
    JSON.stringify(Array.from({ length: between(low, high) }, item))
  const TYPES = ["discovery", "discovery", "change", "change", "feature", "bugfix", "refactor", "decision"]
  // 20 projects, the k-th with weight 1/k: the largest holds about 28 % of everything
  const PROJECTS = Array.from({ length: 20 }, (_, k) => `/home/dev/projects/app-${k + 1}`)
  const weights = PROJECTS.map((_, k) => 1 / (k + 1))
  const weightSum = weights.reduce((a, b) => a + b, 0)
  const pickProject = () => {
    let target = random() * weightSum
    for (let k = 0; k < PROJECTS.length; k++) if ((target -= weights[k]!) <= 0) return PROJECTS[k]!
    return PROJECTS.at(-1)!
  }

  const home = path.join(root, "search")
  const file = MemoryConfig.paths(home).database
  const seedStarted = performance.now()
  const db = Sqlite.open(file)
  const sessions = OBSERVATIONS / OBSERVATIONS_PER_SESSION
  const start = Date.now() - OBSERVATIONS * 5 * 60_000
  const insertObservation = db.prepare(
    `INSERT INTO memory_observations (session_id, project, type, title, subtitle, narrative, facts, concepts,
       files_read, files_modified, event_ids, source, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'model', ?)`
  )
  const insertSummary = db.prepare(
    `INSERT INTO memory_summaries (session_id, project, request, investigated, learned, completed, next_steps,
       files_read, files_edited, notes, event_ids, source, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', 'model', ?)`
  )
  const insertPrompt = db.prepare(
    "INSERT INTO memory_prompts (session_id, project, prompt_number, text, created_at) VALUES (?, ?, ?, ?, ?)"
  )
  const bySize = new Map<string, number>()
  Sqlite.immediate(db, () => {
    let n = 0
    for (let s = 0; s < sessions; s++) {
      const sessionId = `seed-${s}`
      const sessionProject = pickProject()
      bySize.set(sessionProject, (bySize.get(sessionProject) ?? 0) + OBSERVATIONS_PER_SESSION)
      for (let p = 1; p <= PROMPTS_PER_SESSION; p++) {
        insertPrompt.run(sessionId, sessionProject, p, phrase(8, 30), start + (n + p * 10) * 5 * 60_000)
      }
      for (let o = 0; o < OBSERVATIONS_PER_SESSION; o++, n++) {
        insertObservation.run(
          sessionId,
          sessionProject,
          TYPES[between(0, TYPES.length - 1)]!,
          phrase(4, 9),
          random() < 0.2 ? null : phrase(6, 14),
          sentences(2, 4),
          list(1, 4, () => phrase(5, 12)),
          list(1, 3, word),
          someFiles(3),
          someFiles(2),
          JSON.stringify([n * 2, n * 2 + 1]),
          start + n * 5 * 60_000
        )
      }
      insertSummary.run(
        sessionId,
        sessionProject,
        phrase(8, 16),
        phrase(10, 25),
        phrase(10, 25),
        phrase(10, 25),
        phrase(10, 25),
        someFiles(5),
        someFiles(4),
        phrase(5, 20),
        start + n * 5 * 60_000
      )
    }
  })
  db.pragma("wal_checkpoint(TRUNCATE)")
  const seedSeconds = (performance.now() - seedStarted) / 1000
  const megabytes = fs.statSync(file).size / 1024 / 1024

  // terms by how many observations hold them: for each target share, of the words whose share
  // predicted from their frequency is nearest, the one whose real count is nearest
  const matches = db.prepare(
    "SELECT count(*) AS n FROM memory_observations_fts WHERE memory_observations_fts MATCH ?"
  )
  const countOf = (query: string) => (matches.get(MemorySearch.toMatchExpression(query)) as { n: number }).n
  const wordsPerObservation = 100
  const chosen = new Set<string>()
  const termNear = (share: number) => {
    const distance = (value: number) => Math.abs(Math.log(Math.max(value, 1e-9) / share))
    const nearest = words
      .filter(([candidate]) => candidate.length >= 4 && !chosen.has(candidate))
      .map(([candidate, count]) => ({
        candidate,
        d: distance(1 - Math.pow(1 - count / totalWords, wordsPerObservation))
      }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 30)
      .map(({ candidate }) => ({ candidate, d: distance(countOf(candidate) / OBSERVATIONS) }))
      .sort((a, b) => a.d - b.d)[0]!.candidate
    chosen.add(nearest)
    return nearest
  }
  const veryCommon = termNear(0.5)
  const common = termNear(0.1)
  const medium = termNear(0.01)
  const identifierNear = (observations: number) =>
    [...identifierCounts.entries()].sort((a, b) =>
      Math.abs(a[1] - observations) - Math.abs(b[1] - observations) || a[0].localeCompare(b[0])
    )[0]![0]
  const rare = identifierNear(50)
  const rarest = identifierNear(3)
  const queries = [veryCommon, common, medium, rare, rarest, `${common} ${medium}`]
  const [big, bigSize] = [...bySize.entries()].sort((a, b) => b[1] - a[1])[0]!
  const [small, smallSize] = [...bySize.entries()].sort((a, b) => a[1] - b[1])[0]!
  const scopes: ReadonlyArray<string | undefined> = [undefined, big, small]
  const unranked = db.prepare(
    "SELECT rowid FROM memory_observations_fts WHERE memory_observations_fts MATCH ? LIMIT 20"
  )

  const runtime = ManagedRuntime.make(MemoryDatabase.layer(file))
  const search = (query: string, scope: string | undefined) =>
    runtime.runPromise(MemorySearch.search(query, { project: scope }))
  const timeSearch = async (query: string, scope: string | undefined) => {
    const started = performance.now()
    const results = await search(query, scope)
    const elapsed = performance.now() - started
    if (results.length === 0 && scope === undefined) throw new Error(`search: nothing found for ${query}`)
    return elapsed
  }
  const timeUnranked = (query: string) => {
    const started = performance.now()
    unranked.all(MemorySearch.toMatchExpression(query))
    return performance.now() - started
  }
  await search(veryCommon, undefined) // warm: the layer, the statements
  const all = { search: [] as Array<number>, baseline: [] as Array<number> }
  const rows: Array<{ query: string; scope: string; hits: number; search: Array<number>; baseline: Array<number> }> = []
  for (const query of queries) {
    for (const scope of scopes) {
      const row = {
        query,
        scope: scope === undefined ? "all" : scope === big ? "largest" : "smallest",
        hits: countOf(query),
        search: [] as Array<number>,
        baseline: [] as Array<number>
      }
      for (let round = 0; round < SEARCH_ROUNDS; round++) {
        if (round % 2 === 0) {
          row.search.push(await timeSearch(query, scope))
          row.baseline.push(timeUnranked(query))
        } else {
          row.baseline.push(timeUnranked(query))
          row.search.push(await timeSearch(query, scope))
        }
      }
      all.search.push(...row.search)
      all.baseline.push(...row.baseline)
      rows.push(row)
    }
  }

  const context = { build: [] as Array<number>, open: [] as Array<number>, chars: 0 }
  const timeContext = (scope: string) => {
    const started = performance.now()
    const text = HookRunner.contextFor(home, scope)
    const elapsed = performance.now() - started
    if (text === "") throw new Error("context: empty")
    context.chars = text.length
    return elapsed
  }
  const timeOpen = () => {
    const started = performance.now()
    Sqlite.open(file).close()
    return performance.now() - started
  }
  timeContext(big)
  for (let round = 0; round < CONTEXT_ROUNDS; round++) {
    const scope = round % 4 < 2 ? big : small
    if (round % 2 === 0) {
      context.build.push(timeContext(scope))
      context.open.push(timeOpen())
    } else {
      context.open.push(timeOpen())
      context.build.push(timeContext(scope))
    }
  }
  await runtime.dispose()
  db.close()

  console.log(
    `search over ${OBSERVATIONS} observations, ${sessions} summaries, ${sessions * PROMPTS_PER_SESSION} prompts ` +
      `(${megabytes.toFixed(0)} MB, seeded in ${
        seedSeconds.toFixed(1)
      } s; largest project ${bigSize}, smallest ${smallSize} observations), ${SEARCH_ROUNDS} rounds each:`
  )
  console.log("  query                       project    matches   unranked FTS p50   search p50     p95")
  for (const row of rows) {
    console.log(
      `  ${row.query.padEnd(27)} ${row.scope.padEnd(9)} ${String(row.hits).padStart(8)}   ${
        ms(p50(row.baseline), 2)
      }   ${ms(p50(row.search), 2)} ${ms(p95(row.search), 2)}`
    )
  }
  console.log(
    `  all queries: unranked FTS p50 ${ms(p50(all.baseline), 2)}  1.00×; MemorySearch.search p50 ${
      ms(p50(all.search), 2)
    } p95 ${ms(p95(all.search), 2)}  ${ratio(p50(all.search), p50(all.baseline))}  (goal p50 ≤ 10 ms)`
  )
  const slowest = [...rows].sort((a, b) => p50(b.search) - p50(a.search))[0]!
  console.log(
    `  slowest query: "${slowest.query}" (${slowest.scope}, ${slowest.hits} matching observations) p50 ${
      ms(p50(slowest.search), 2)
    }`
  )
  console.log(`SessionStart context (${context.chars} characters), ${CONTEXT_ROUNDS} interleaved rounds:`)
  console.log(`  open the database     p50 ${ms(p50(context.open), 2)}  1.00×`)
  console.log(
    `  HookRunner.contextFor p50 ${ms(p50(context.build), 2)}  ${
      ratio(p50(context.build), p50(context.open))
    }  (goal p50 ≤ 50 ms)`
  )
}

// 4. model calls and input tokens per 100 tool events ----------------------------------------------
if (runs("model")) {
  const detected = await detectClaude()
  if (!detected.available) {
    console.log(`model calls: skipped (${detected.reason})`)
  } else {
    const isObserver = ModelDouble.systemMentions("acx's memory observer")
    let batch = 0
    const model = await startModelDouble({
      script: (request) => {
        if (!isObserver(request)) return { content: "A title", usage: { inputTokens: 0, outputTokens: 0 } }
        // usage left to the double: input tokens are the request's messages, JSON length / 4
        if ((ModelDouble.lastUserText(request) ?? "").includes("SESSION CHECKPOINT")) {
          return {
            content: "<summary><request>Show highlights in the transcript view</request>" +
              "<investigated>the transcript renderer and its tests</investigated><learned>Highlights are " +
              "computed per message</learned><completed>Highlighting works; tests pass</completed>" +
              "<next_steps>Cover subagent transcripts</next_steps><files_read><file>lib/transcript.ex</file>" +
              "</files_read><files_edited><file>lib/highlight.ex</file></files_edited><notes>none</notes></summary>"
          }
        }
        batch += 1
        return {
          content: `<observation><type>change</type><title>Highlighting step ${batch}</title>` +
            "<subtitle>transcript view</subtitle><facts><fact>Highlights are computed per message</fact></facts>" +
            "<narrative>The transcript view now highlights the matched words; the renderer computes them per " +
            "message.</narrative><concepts><concept>highlight</concept></concepts><files_read>" +
            "<file>lib/transcript.ex</file></files_read><files_modified><file>lib/highlight.ex</file>" +
            "</files_modified></observation>"
        }
      }
    })
    const claude = await realClaude({ baseUrl: model.url, path: detected.path })
    const variant = async (name: string, config: MemoryConfig.MemoryConfig) => {
      const home = path.join(root, `model-${name}`)
      const userHome = path.join(root, `model-${name}-user`)
      fs.mkdirSync(path.join(userHome, ".claude"), { recursive: true })
      const sessionId = `s-model-${name}`
      const at = (event: string, extra: Record<string, unknown>) => {
        const outcome = HookRunner.runHook(
          event,
          JSON.stringify({
            session_id: sessionId,
            transcript_path: path.join(userHome, ".claude", "projects", "bench", `${sessionId}.jsonl`),
            cwd: project,
            permission_mode: "default",
            hook_event_name: event,
            ...extra
          }),
          { home, env: {} }
        )
        if (!outcome.recorded) throw new Error(`model: ${event} not recorded (${outcome.warning})`)
      }
      at("UserPromptSubmit", {
        prompt: "Highlight the search matches in the transcript view, and keep the tests green"
      })
      for (let i = 0; i < TOOL_EVENTS; i++) {
        at("PostToolUse", { ...toolCalls[i % toolCalls.length]!, tool_use_id: `toolu_model_${i}` })
      }
      at("Stop", { stop_hook_active: false, last_assistant_message: "The matches are highlighted; tests pass." })
      model.clearRequests()
      const file = MemoryConfig.paths(home).database
      const started = performance.now()
      const exit = await Effect.runPromise(
        MemoryWorker.run({
          home,
          env: { ...process.env, ...claude.env(userHome) },
          config,
          idleTimeout: 0,
          pathToClaudeCodeExecutable: claude.path,
          log: () => {}
        }).pipe(Effect.provide(MemoryDatabase.layer(file)))
      )
      const seconds = (performance.now() - started) / 1000
      const calls = model.requests().filter((request) => request.route === "messages" && isObserver(request))
      const tokens = calls.reduce((sum, request) => sum + (request.response?.usage.input_tokens ?? 0), 0)
      const db = Sqlite.open(file)
      try {
        const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n
        const left = count("SELECT count(*) AS n FROM memory_events WHERE state != 'done'")
        const observations = count("SELECT count(*) AS n FROM memory_observations WHERE source = 'model'")
        const summary = db.prepare("SELECT source FROM memory_summaries").get() as { source: string } | undefined
        const { reason } = db.prepare("SELECT observer_local_reason AS reason FROM memory_sessions").get() as {
          reason: string | null
        }
        const cost = (db.prepare("SELECT coalesce(sum(cost_usd), 0) AS n FROM memory_usage").get() as { n: number }).n
        if (exit._tag !== "Idle" || left > 0 || summary === undefined || observations === 0) {
          throw new Error(`model ${name}: ${JSON.stringify({ exit, left, observations, summary })}`)
        }
        return {
          calls: calls.length,
          tokens,
          cost,
          seconds,
          events: exit.events,
          observations,
          summary: summary.source === "model" ? "by the model" : `local: ${reason ?? "?"}`
        }
      } finally {
        db.close()
      }
    }
    const quick = { ...MemoryConfig.defaults, batchWaitSeconds: 0 }
    // the baseline: one model call per event; no budget, which the unbatched session would exceed
    const unbatched = await variant("unbatched", {
      ...quick,
      batchSize: 1,
      maxBudgetUsdPerQuery: 1_000,
      dailyBudgetUsd: null
    })
    const batched = await variant("batched", quick)
    await model.close()
    const per100 = (calls: number) => (calls * 100) / TOOL_EVENTS
    console.log(
      `observer model calls, one session (a prompt, ${TOOL_EVENTS} Read/Edit/Bash events, a Stop: ${batched.events} events), ` +
        `real Claude Code against the model double:`
    )
    for (
      const [label, result] of [
        [`unbatched (batchSize 1)`, unbatched],
        [`batched (batchSize ${quick.batchSize})`, batched]
      ] as const
    ) {
      console.log(
        `  ${label.padEnd(24)} ${per100(result.calls).toFixed(0).padStart(4)} calls per 100 tool events  ${
          ratio(result.calls, unbatched.calls)
        }  ${(result.tokens / TOOL_EVENTS).toFixed(0).padStart(6)} input tokens per tool event  ${
          ratio(result.tokens, unbatched.tokens)
        }  ($${result.cost.toFixed(2)} at list price, ${result.seconds.toFixed(1)} s)`
      )
      console.log(`  ${"".padEnd(24)} ${result.observations} observations; the summary ${result.summary}`)
    }
    console.log(`  goal: ≤ 20 calls per 100 tool events`)
  }
}
