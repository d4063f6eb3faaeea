/**
 * `acx memory worker` as a real process under faults, with the observer on the REAL Claude Code
 * CLI against the model double:
 * - `kill -9` of the worker at random moments (while a model reply is pending, right after a
 *   batch was committed, during start-up), then a restart: every event done once, no
 *   observation stored twice, the dead worker's lock taken over, the lock free at the end;
 * - the API unreachable, or answering 500 or 529: the observer's turn fails within seconds (the
 *   CLI's own retries cut to one) with the cause, and the worker retries on its backoff;
 * - the model answering HTTP 400: attempts counted with the error and the reply, the backoff
 *   waited, `failed` after `maxAttempts`, listed by `acx memory status --json`, re-queued by
 *   `acx memory retry`; SIGTERM stops a worker whose observer is still warm;
 * - acx's hooks installed in the user's settings, a real Claude Code session recording through
 *   them and starting the worker: the observer's own Claude Code records nothing and writes
 *   nothing into the user's `~/.claude/projects`;
 * - a dead worker is dead: `kill -9` while a model call is held open, then at once a restart that
 *   takes over on its first start, with the dead worker kept as a zombie (its parent never waits
 *   for it) or its pid recorded for a live unrelated process; every event distilled once; and a
 *   worker started while another really runs names that one's pid and age.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as HookRunner from "@acx/memory/HookRunner"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { random } from "@acx/testing/SeededRandom"
import * as UnreapedProcess from "@acx/testing/UnreapedProcess"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { acx, BIN, parseJson } from "./utils/acx.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)
const claudePath = claude.available ? claude.path : ""

const isObserver = ModelDouble.systemMentions("acx's memory observer")

// -------------------------------------------------------------------------------------------------
// what every test cleans up: temporary directories, doubles, proxies, and the process groups of
// the workers this file started (a worker killed with SIGKILL leaves its Claude Code behind)
// -------------------------------------------------------------------------------------------------

type Cleanups = Array<() => Promise<void> | void>
const runCleanups = async (list: Cleanups) => {
  for (const cleanup of list.splice(0).reverse()) await cleanup()
}
// the tests that run one at a time; a concurrent test keeps its own list (`ownCleanups`)
const cleanups: Cleanups = []
const defaultCleanups = cleanups
afterEach(() => runCleanups(cleanups))

/** A list of cleanups run when this (concurrent) test finishes, whatever the other tests do. */
const ownCleanups = (onTestFinished: (fn: () => Promise<void>) => void): Cleanups => {
  const own: Cleanups = []
  onTestFinished(() => runCleanups(own))
  return own
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const waitFor = async (what: string, check: () => boolean, timeoutMs = 45_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** The live (not zombie) processes of a process group, from /proc (Linux); `[]` elsewhere. */
const groupMembers = (pgid: number): Array<number> => {
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return []
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return fields[0] !== "Z" && Number(fields[2]) === pgid ? [Number(entry)] : []
    } catch {
      return []
    }
  })
}

const killGroup = (pgid: number) => {
  try {
    process.kill(-pgid, "SIGKILL")
  } catch {
    // the group is gone
  }
}

interface World {
  readonly root: string
  /** `$ACX_HOME`. */
  readonly acxHome: string
  /** The user's HOME (`.claude` in it is the user's Claude Code config dir). */
  readonly home: string
  readonly project: string
  readonly double: ModelDouble.ModelDoubleHandle
  /** The worker's environment: the double as the API, a dummy key, ACX_HOME, the binary. */
  readonly env: Record<string, string>
  /** Where this world's cleanups go. */
  readonly cleanups: Cleanups
}

const makeWorld = async (
  memory: Record<string, unknown>,
  script: ModelDouble.Script,
  options: { readonly baseUrl?: (doubleUrl: string) => Promise<string>; readonly cleanups?: Cleanups } = {}
): Promise<World> => {
  const cleanups = options.cleanups ?? defaultCleanups
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-memory-faults-"))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  const acxHome = path.join(root, "acx")
  const home = path.join(root, "home")
  const project = path.join(root, "shop")
  for (const dir of [acxHome, path.join(home, ".claude"), project]) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(acxHome, "config.json"), JSON.stringify({ memory }))
  const double = await ModelDouble.startModelDouble({ script })
  cleanups.push(() => double.close())
  const baseUrl = options.baseUrl === undefined ? double.url : await options.baseUrl(double.url)
  const real = await realClaude({ baseUrl, path: claudePath })
  const env = { ...real.env(home), ACX_HOME: acxHome, ACX_CLAUDE_PATH: claudePath, NO_COLOR: "1" }
  return { root, acxHome, home, project, double, env, cleanups }
}

/**
 * A proxy in front of the double that holds each observer request for `delayMs` before passing
 * it on: a slow model, so that a worker can be killed while a reply is pending. `setDelay` changes
 * it for the requests that arrive next.
 */
const slowProxy = async (target: string, delayMs: number) => {
  let delay = delayMs
  // while set, observer requests wait for it too (a call held open until the test lets it go)
  let gate: Promise<void> | undefined
  let outstanding = 0
  let arrivals = 0
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      let observer = false
      try {
        observer = isObserver({ path: "", query: {}, headers: {}, body: JSON.parse(body.toString("utf8")) })
      } catch {
        // not JSON: passed on as it is
      }
      if (observer) {
        arrivals++
        outstanding++
      }
      const settle = () => {
        if (observer) outstanding--
        observer = false
      }
      response.on("close", settle)
      const pass = () => {
        const upstream = Http.request(
          new URL(request.url ?? "/", target),
          { method: request.method, headers: { ...request.headers, host: new URL(target).host } },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(response)
          }
        )
        upstream.on("error", () => response.destroy())
        upstream.end(body)
      }
      const held = observer ? gate : undefined
      setTimeout(() => held === undefined ? pass() : void held.then(pass), observer ? delay : 0)
    })
    response.on("error", () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as { port: number }
  cleanups.push(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Observer requests received so far. */
    arrivals: () => arrivals,
    /** Observer requests received and not answered yet. */
    outstanding: () => outstanding,
    setDelay: (ms: number) => {
      delay = ms
    },
    /** Holds the observer requests that arrive from now on; the function returned lets them go. */
    hold: (): () => void => {
      let open = () => {}
      gate = new Promise<void>((resolve) => (open = resolve))
      return () => {
        gate = undefined
        open()
      }
    }
  }
}

interface Worker {
  readonly child: ChildProcess
  readonly pid: number
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly hasExited: () => boolean
  readonly stderr: () => string
}

/** `acx memory worker` in a process group of its own (as a hook starts it), output collected. */
const startWorker = (env: Record<string, string>, cleanups: Cleanups = defaultCleanups): Worker => {
  const child = spawn(process.execPath, [BIN, "memory", "worker"], {
    env,
    cwd: env["ACX_HOME"],
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const pid = child.pid!
  // whatever happens to the test, nothing this worker started outlives it
  cleanups.push(() => killGroup(pid))
  let stderr = ""
  let done = false
  child.stdout!.resume()
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => {
      done = true
      resolve({ code, signal })
    })
  })
  return { child, pid, exited, hasExited: () => done, stderr: () => stderr }
}

const rows = (acxHome: string, sql: string): Array<Record<string, any>> => {
  const db = new Database(path.join(acxHome, "memory.db"), { readonly: true, fileMustExist: true })
  try {
    return db.prepare(sql).all() as Array<Record<string, any>>
  } finally {
    db.close()
  }
}

const value = (acxHome: string, sql: string): any => Object.values(rows(acxHome, sql)[0] ?? {})[0]

/** Records a hook event in-process, the way `acx hook` does (without starting a worker). */
const hookEvent = (acxHome: string, project: string, sessionId: string, event: string, extra: object) =>
  HookRunner.runHook(
    event,
    JSON.stringify({ session_id: sessionId, transcript_path: "", cwd: project, hook_event_name: event, ...extra }),
    { home: acxHome, env: {} }
  )

const recordSession = (
  acxHome: string,
  project: string,
  sessionId: string,
  tools: number,
  options: { readonly ended: boolean }
) => {
  hookEvent(acxHome, project, sessionId, "UserPromptSubmit", { prompt: `Work on ${sessionId}` })
  for (let i = 0; i < tools; i++) {
    hookEvent(acxHome, project, sessionId, "PostToolUse", {
      tool_name: i % 2 === 0 ? "Read" : "Edit",
      tool_use_id: `${sessionId}-t${i}`,
      tool_input: { file_path: path.join(project, `src/${sessionId}-${i}.ts`) },
      tool_response: { ok: true }
    })
  }
  if (options.ended) {
    hookEvent(acxHome, project, sessionId, "Stop", { stop_hook_active: false })
    hookEvent(acxHome, project, sessionId, "SessionEnd", { reason: "other" })
  }
}

/** A small seeded generator (mulberry32), so that a failing kill plan can be replayed. */

describe.skipIf(!claude.available)("acx memory worker under faults (real Claude Code CLI as the observer)", () => {
  it("kill -9 at random moments, then a restart: every event done once, no observation twice", async () => {
    const seed = Number(process.env["ACX_FAULT_SEED"] ?? Date.now() % 1_000_000)
    const rand = random(seed)
    const delayMs = 1_000
    // the double: a unique observation per batch (named after its events and the call that
    // answered it), <no_observations/> for batches starting at a multiple of 4, a summary
    let calls = 0
    const quiet: Array<readonly [number, number]> = []
    const script = (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
      if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
      const call = ++calls
      const text = ModelDouble.lastUserText(request) ?? ""
      const usage = { inputTokens: 1_000, outputTokens: 50 }
      if (text.includes("SESSION CHECKPOINT")) {
        return {
          content:
            `<summary><request>Summary ${call}</request><completed>work</completed><next_steps>more</next_steps></summary>`,
          usage
        }
      }
      const range = /EVENTS (\d+) TO (\d+)/.exec(text)
      if (range === null) return { content: "<no_observations/>", usage }
      const [first, last] = [Number(range[1]), Number(range[2])]
      if (first % 4 === 0) {
        quiet.push([first, last])
        return { content: "Nothing new.\n<no_observations/>", usage }
      }
      return {
        content: `<observation><type>change</type><title>Batch ${first}-${last} (call ${call})</title>` +
          `<narrative>Events ${first} to ${last}.</narrative></observation>`,
        usage
      }
    }
    let proxy: Awaited<ReturnType<typeof slowProxy>> | undefined
    const w = await makeWorld(
      { batchWaitSeconds: 0, workerIdleMinutes: 0.02, batchSize: 3 },
      script,
      { baseUrl: async (url) => (proxy = await slowProxy(url, delayMs)).url }
    )
    // an ended session (batches, then a summary) and one still running (its observer stays warm
    // until the worker exits)
    recordSession(w.acxHome, w.project, "s-ended", 11, { ended: true })
    recordSession(w.acxHome, w.project, "s-open", 5, { ended: false })
    const events = rows(w.acxHome, "SELECT id, session_id, kind FROM memory_events ORDER BY id")
    expect(events).toHaveLength(14 + 6)

    const done = () => Number(value(w.acxHome, "SELECT count(*) FROM memory_events WHERE state = 'done'"))
    const lockPid = () => value(w.acxHome, "SELECT pid FROM memory_worker WHERE id = 1") as number | null
    type Round = { readonly kind: "timer" | "mid-request" | "after-commit"; readonly ms: number }
    const plan: Array<Round> = [
      { kind: "mid-request", ms: Math.round(rand() * delayMs * 0.6) },
      { kind: "timer", ms: 200 + Math.round(rand() * 2_800) },
      { kind: "after-commit", ms: 0 },
      { kind: "mid-request", ms: Math.round(rand() * delayMs * 0.6) }
    ]
    const about = `seed ${seed} (ACX_FAULT_SEED=${seed} replays it), plan ${JSON.stringify(plan)}`
    const killed: Array<{ readonly round: Round; readonly pid: number; readonly pending: number }> = []
    let lastKilled: number | undefined
    let late = 0
    for (const round of plan) {
      const worker = startWorker(w.env)
      const before = { arrivals: proxy!.arrivals(), done: done() }
      const stopWaiting = () => worker.hasExited()
      if (round.kind === "timer") await sleep(round.ms)
      if (round.kind === "mid-request") {
        await waitFor("an observer request", () => stopWaiting() || proxy!.arrivals() > before.arrivals)
        await sleep(round.ms)
      }
      if (round.kind === "after-commit") await waitFor("a batch stored", () => stopWaiting() || done() > before.done)
      if (worker.hasExited()) {
        // it finished everything before the kill: no more rounds needed
        expect((await worker.exited).code, `${about}\n${worker.stderr()}`).toBe(0)
        break
      }
      // a dead predecessor's lock was taken over: a worker that did work holds it
      if (round.kind !== "timer" || (lastKilled !== undefined && lockPid() !== lastKilled)) {
        expect(lockPid(), about).toBe(worker.pid)
      }
      killed.push({ round, pid: worker.pid, pending: proxy!.outstanding() })
      process.kill(worker.pid, "SIGKILL")
      expect((await worker.exited).signal).toBe("SIGKILL")
      lastKilled = worker.pid
      // the worker's Claude Code, orphaned, ends when its stdin closes; whatever is left is ended
      // with the group, so that the next worker starts on a quiet observer directory
      await waitFor("the killed worker's Claude Code to end", () => groupMembers(worker.pid).length === 0, 5_000)
        .catch(() => killGroup(worker.pid))
      // the dead worker still holds the lock row: hooks take it for dead and would start another
      if (lockPid() === worker.pid) {
        late++
        expect(
          hookEvent(w.acxHome, w.project, "s-open", "PostToolUse", {
            tool_name: "Read",
            tool_use_id: `s-open-late-${late}`,
            tool_input: { file_path: path.join(w.project, "late.ts") },
            tool_response: "ok"
          }).startWorker
        ).toBe(true)
      }
    }
    // at least two kills landed while a model reply was pending
    expect(killed.filter((kill) => kill.pending > 0).length, about).toBeGreaterThanOrEqual(2)

    // the last worker: takes the lock over from the dead one, finishes, exits when idle; the kills
    // are over, so the model answers at once
    proxy!.setDelay(0)
    const final = startWorker(w.env)
    const exit = await Promise.race([final.exited, sleep(50_000).then(() => "timeout" as const)])
    expect(exit, `${about}\n${final.stderr()}`).toEqual({ code: 0, signal: null })
    expect(final.stderr()).toMatch(/acx memory worker: done \(\d+ batches, \d+ events\)/)
    expect(final.stderr()).not.toContain("another worker runs")

    const all = rows(w.acxHome, "SELECT id, session_id, kind, state, attempts FROM memory_events ORDER BY id")
    expect(all.length).toBe(20 + late)
    expect(all.filter((event) => event.state !== "done"), about).toEqual([])
    expect(all.every((event) => event.attempts === 0), about).toBe(true)
    // each event in exactly one observation, or in none when its batch had nothing to say
    const observations = rows(w.acxHome, "SELECT title, event_ids, source FROM memory_observations")
    expect(observations.every((row) => row.source === "model"), about).toBe(true)
    const seen = new Map<number, number>()
    for (const row of observations) {
      for (const id of JSON.parse(row.event_ids) as Array<number>) seen.set(id, (seen.get(id) ?? 0) + 1)
    }
    const inQuietBatch = (id: number) => quiet.some(([first, last]) => id >= first && id <= last)
    for (const event of all.filter((event) => event.kind !== "summarise")) {
      const count = seen.get(event.id) ?? 0
      expect(count, `event ${event.id}: ${about}`).toBeLessThanOrEqual(1)
      if (count === 0) expect(inQuietBatch(event.id), `event ${event.id} lost: ${about}`).toBe(true)
    }
    // one observation per batch: no two titles for the same events
    const batches = observations.map((row) => /^Batch (\d+-\d+) \(call \d+\)$/.exec(row.title)?.[1])
    expect(batches.every((batch) => batch !== undefined), about).toBe(true)
    expect(new Set(batches).size, about).toBe(batches.length)
    // one summary for the ended session, covering its checkpoints once
    const summaries = rows(w.acxHome, "SELECT session_id, event_ids, source FROM memory_summaries")
    expect(summaries.map((row) => [row.session_id, row.source]), about).toEqual([["s-ended", "model"]])
    const checkpoints = all.filter((event) => event.kind === "summarise").map((event) => event.id)
    expect(JSON.parse(summaries[0]!.event_ids), about).toEqual(checkpoints)
    // the lock is free, and nothing the workers started lives on
    expect(rows(w.acxHome, "SELECT pid, heartbeat_at FROM memory_worker"), about).toEqual([
      { pid: null, heartbeat_at: null }
    ])
    expect(rows(w.acxHome, "SELECT id, status FROM memory_sessions ORDER BY id"), about).toEqual([
      { id: "s-ended", status: "completed" },
      { id: "s-open", status: "active" }
    ])
    expect(groupMembers(final.pid)).toEqual([])
  }, 120_000)

  // The next four tests mostly wait (the worker's 5 s backoff, Claude Code starting): each has its
  // own world (home, double, worker), so they run at once.
  it.concurrent.for([
    { name: "unreachable (connection refused)", cause: /API Error: Connection refused.*ECONNREFUSED/, status: 0 },
    { name: "answering 500", cause: /API Error: 500/, status: 500 },
    { name: "answering 529 (overloaded)", cause: /API Error: (529|Repeated 529)/i, status: 529 }
  ])(
    "the API $name: the observer's turn fails fast with the cause, retried on the backoff",
    { timeout: 150_000 },
    async ({
      cause,
      status
    }, { expect, onTestFinished }) => {
      const observerRequests = () => w.double.requests().filter(isObserver).length
      const own = ownCleanups(onTestFinished)
      const w: World = await makeWorld(
        { batchWaitSeconds: 0, workerIdleMinutes: 0.1, maxAttempts: 3 },
        (request) =>
          !isObserver(request)
            ? { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
            : status === 529
            ? ModelDouble.overloaded
            : { error: { status: 500, type: "api_error", message: "the double is down" } },
        // nothing listens on port 1: every connection is refused
        { cleanups: own, ...(status === 0 ? { baseUrl: async () => "http://127.0.0.1:1" } : {}) }
      )
      recordSession(w.acxHome, w.project, "s-down", 1, { ended: false })
      const events = () => rows(w.acxHome, "SELECT state, attempts, last_error, next_attempt_at FROM memory_events")
      const started = Date.now()
      const worker = startWorker(w.env, own)
      // the CLI's own retries (10, over about 3 minutes) would outlast this wait many times over
      await waitFor("the first failure", () => events().every((event) => event.attempts >= 1), 60_000)
      const failedAfter = Date.now() - started
      const first = events()
      for (const event of first) {
        expect(event.state).toBe("pending")
        expect(event.last_error).toMatch(/^the observer's model call failed: /)
        expect(event.last_error).toMatch(cause)
        expect(event.last_error).not.toContain("success")
        // the worker's backoff, not the CLI's, decides when it is tried again
        expect(event.next_attempt_at).toBeGreaterThanOrEqual(started + 5_000)
      }
      // one request and one retry of the CLI per turn (its default: 1 and 10)
      if (status !== 0) expect(observerRequests()).toBeLessThanOrEqual(2)
      console.log(`API ${status === 0 ? "refused" : status}: first attempt failed after ${failedAfter} ms`)
      await waitFor("the second attempt", () => events().every((event) => event.attempts >= 2), 60_000)
      if (status !== 0) expect(observerRequests()).toBeLessThanOrEqual(4)
      process.kill(worker.pid, "SIGTERM")
      expect(await worker.exited).toEqual({ code: 0, signal: null })
    }
  )

  it.concurrent(
    "HTTP 400 from the model: attempts and the error kept, the backoff waited, failed, listed, retried",
    async ({
      expect,
      onTestFinished
    }) => {
      const asked: Array<number> = []
      const own = ownCleanups(onTestFinished)
      const w = await makeWorld(
        { batchWaitSeconds: 0, workerIdleMinutes: 0.5, maxAttempts: 2 },
        (request) => {
          if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
          asked.push(Date.now())
          return { error: { status: 400, type: "invalid_request_error", message: "the double refuses this request" } }
        },
        { cleanups: own }
      )
      const env = { ACX_HOME: w.acxHome }
      recordSession(w.acxHome, w.project, "s-400", 2, { ended: false })
      const ids = rows(w.acxHome, "SELECT id FROM memory_events ORDER BY id").map((row) => row.id as number)
      expect(ids).toHaveLength(3)
      const events = () =>
        rows(w.acxHome, "SELECT id, state, attempts, last_error, last_reply, next_attempt_at FROM memory_events")
      const worker = startWorker(w.env, own)
      // the first attempt: counted, the error and the reply kept, the next one after the backoff
      await waitFor("the first failure", () => events().every((event) => event.attempts >= 1), 60_000)
      const firstTry = asked.at(-1)!
      const first = events()
      for (const event of first) {
        expect(event).toMatchObject({ state: "pending", attempts: 1 })
        expect(event.last_error).toContain("the observer's model call failed: API Error: 400")
        expect(event.last_error).toContain("the double refuses this request")
        expect(event.last_reply).toContain("API Error: 400")
        expect(event.next_attempt_at).toBeGreaterThanOrEqual(firstTry + 5_000)
      }
      const retryAt = first[0]!.next_attempt_at as number
      // the second attempt, not before the backoff, is the last: the events are failed
      await waitFor("the events to fail", () => events().every((event) => event.state === "failed"), 60_000)
      const secondTries = asked.filter((at) => at > firstTry + 1_000)
      expect(secondTries.length).toBeGreaterThan(0)
      expect(secondTries[0]!).toBeGreaterThanOrEqual(retryAt)
      expect(events().map((event) => event.attempts)).toEqual([2, 2, 2])
      // the session's status is written right after the events' (not in their transaction)
      await waitFor("the session to fail", () => value(w.acxHome, "SELECT status FROM memory_sessions") === "failed")
      // SIGTERM stops the worker gracefully although its observer is still warm (the session goes
      // on): the observer closed, the lock released
      process.kill(worker.pid, "SIGTERM")
      const stopped = await Promise.race([worker.exited, sleep(30_000).then(() => "still running" as const)])
      expect(stopped, worker.stderr()).toEqual({ code: 0, signal: null })
      expect(worker.stderr()).toContain("acx memory worker: stopped by SIGTERM")
      expect(rows(w.acxHome, "SELECT pid FROM memory_worker")).toEqual([{ pid: null }])
      expect(groupMembers(worker.pid)).toEqual([])

      const status = parseJson(await acx(["memory", "status", "--json"], { env }))
      expect(status).toMatchObject({ queue: { pending: 0, done: 0, failed: 3 }, worker: { running: false } })
      expect(status.failed.map((event: { id: number }) => event.id).sort((a: number, b: number) => a - b)).toEqual(ids)
      for (const event of status.failed) {
        expect(event).toMatchObject({ sessionId: "s-400", attempts: 2 })
        expect(event.lastError).toContain("API Error: 400")
      }
      expect(status.lastError).toContain("API Error: 400")
      const human = await acx(["memory", "status"], { env })
      expect(human.stdout).toContain("failed events (acx memory retry re-queues them):")
      expect(human.stdout).toContain("(session s-400, 2 attempts)")

      const retry = await acx(["memory", "retry"], { env })
      expect([retry.code, retry.stdout.trim()]).toEqual([
        0,
        "3 failed events queued again; the next hook starts the worker"
      ])
      expect(events().map((event) => [event.state, event.attempts])).toEqual([["pending", 0], ["pending", 0], [
        "pending",
        0
      ]])
      expect(parseJson(await acx(["memory", "status", "--json"], { env }))).toMatchObject({
        queue: { pending: 3, done: 0, failed: 0 },
        failed: []
      })

      // the model is back: the re-queued events are observed
      w.double.setScript((request) =>
        isObserver(request)
          ? { content: "<observation><type>discovery</type><title>Back again</title></observation>" }
          : { content: "title" }
      )
      const again = startWorker(w.env, own)
      await waitFor("the events to be done", () => events().every((event) => event.state === "done"), 60_000)
      process.kill(again.pid, "SIGTERM")
      expect(await again.exited).toEqual({ code: 0, signal: null })
      expect(events().map((event) => [event.state, event.last_error])).toEqual([["done", null], ["done", null], [
        "done",
        null
      ]])
      expect(rows(w.acxHome, "SELECT title, event_ids FROM memory_observations")).toEqual([
        { title: "Back again", event_ids: JSON.stringify(ids) }
      ])
    },
    150_000
  )

  it(
    "hooks installed for the user: the observer's Claude Code records nothing and writes nothing of the user's",
    async () => {
      const reply = (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
        if (isObserver(request)) {
          return ModelDouble.lastUserText(request)?.includes("SESSION CHECKPOINT")
            ? { content: "<summary><request>Say hello</request><completed>Said hello</completed></summary>" }
            : { content: "<observation><type>discovery</type><title>The user says hello</title></observation>" }
        }
        if (ModelDouble.isSideCall(request)) return { content: "title" }
        // the user's session: one Bash call, then done
        return ModelDouble.lastMessageHasToolResult(request)
          ? { content: "It printed hello." }
          : { content: [{ type: "tool_use", name: "Bash", input: { command: "echo hello" } }] }
      }
      const w = await makeWorld({ batchWaitSeconds: 0, workerIdleMinutes: 0.05 }, reply)
      const files = {
        settings: path.join(w.home, ".claude", "settings.json"),
        userProjects: path.join(w.home, ".claude", "projects"),
        observerCwd: path.join(w.acxHome, "observer", "work"),
        observerProjects: path.join(w.acxHome, "observer", "claude", "projects"),
        witness: path.join(w.root, "witness.mjs"),
        witnessLog: path.join(w.root, "witness.log")
      }
      // acx's six hooks as `acx memory install` writes them, and a witness that notes every
      // SessionStart any Claude Code with these user settings runs
      fs.writeFileSync(
        files.witness,
        `import * as fs from "node:fs"\nfs.appendFileSync(${
          JSON.stringify(files.witnessLog)
        }, fs.readFileSync(0, "utf8").replace(/\\n/g, " ") + "\\n")\n`
      )
      const command = (args: string) => `"${process.execPath}" ${args}`
      const events = ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"]
      const hooks = Object.fromEntries(events.map((event) => [
        event,
        [{
          hooks: [
            { type: "command", command: command(`"${BIN}" hook ${event}`), timeout: 15 },
            ...(event === "SessionStart" ? [{ type: "command", command: command(`"${files.witness}"`) }] : [])
          ]
        }]
      ]))
      fs.writeFileSync(files.settings, JSON.stringify({ hooks }, null, 2))

      // the user's own Claude Code with these settings: its hooks record it and start the worker,
      // whose observer (a Claude Code with the same user settings) records nothing
      const user = spawn(
        claudePath,
        ["-p", "Say hello with echo", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"],
        { cwd: w.project, env: w.env, stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      user.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      user.stderr.resume()
      const code = await new Promise<number | null>((resolve) => user.on("close", resolve))
      expect(code, output.slice(-2_000)).toBe(0)
      const userSession = rows(w.acxHome, "SELECT id FROM memory_sessions")
      expect(userSession).toHaveLength(1)
      // the worker the hooks started: it observes the session, then exits when idle
      cleanups.push(() => {
        const pid = value(w.acxHome, "SELECT pid FROM memory_worker") as number | null
        if (pid !== null) killGroup(pid)
      })
      await waitFor(
        "the worker the hooks started to finish",
        () =>
          value(w.acxHome, "SELECT count(*) FROM memory_events WHERE state != 'done'") === 0 &&
          value(w.acxHome, "SELECT count(*) FROM memory_summaries") === 1 &&
          value(w.acxHome, "SELECT count(*) FROM memory_worker WHERE pid IS NOT NULL") === 0 &&
          // the process's last line comes after the lock is given up
          /acx memory worker: done/.test(fs.readFileSync(path.join(w.acxHome, "memory-worker.log"), "utf8"))
      )
      const kinds = rows(
        w.acxHome,
        `SELECT kind, tool_name FROM memory_events WHERE session_id = '${userSession[0]!.id}'`
      )
      expect(kinds).toContainEqual({ kind: "tool", tool_name: "Bash" })
      // the model observed it: the observer ran
      expect(w.double.requests().filter(isObserver).length).toBeGreaterThan(0)
      expect(rows(w.acxHome, "SELECT DISTINCT title, source FROM memory_observations")).toEqual([
        { title: "The user says hello", source: "model" }
      ])
      // no session, event or prompt of the observer's working directory; everything is the user's
      for (const table of ["memory_sessions", "memory_events", "memory_prompts", "memory_observations"]) {
        expect(rows(w.acxHome, `SELECT DISTINCT project FROM ${table}`), table).toEqual([{ project: w.project }])
      }
      expect(value(w.acxHome, `SELECT count(*) FROM memory_sessions WHERE project = '${files.observerCwd}'`)).toBe(0)
      // the witness saw the user's session start, never the observer's
      const started = fs.readFileSync(files.witnessLog, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      expect(started.map((input) => input.cwd)).toEqual([w.project])
      // the user's config dir holds the user's transcript only; the observer's are in its own
      expect(fs.readdirSync(files.userProjects)).toHaveLength(1)
      expect(fs.readdirSync(files.userProjects)[0]).not.toContain("observer")
      expect(fs.readdirSync(files.observerProjects)).toEqual([
        fs.readdirSync(files.observerProjects).find((dir) => dir.endsWith("observer-work"))
      ])
    },
    120_000
  )
})

// -------------------------------------------------------------------------------------------------
// a dead worker is dead (ProcessLiveness): killed with -9 while a model call is held open, its lock
// row left behind with its pid, the next worker takes over on its first start, whether the dead one
// is kept as a zombie (its parent never waits for it) or its pid now names a live unrelated process
// -------------------------------------------------------------------------------------------------

const linux = fs.existsSync("/proc/self/stat")

/** `acx memory worker` under a parent that never waits for it: killed, it stays a zombie. */
const startUnreapedWorker = async (env: Record<string, string>, log: string) => {
  const worker = await UnreapedProcess.start(process.execPath, [BIN, "memory", "worker"], {
    env,
    cwd: env["ACX_HOME"],
    stderrFile: log
  })
  cleanups.push(worker.stop)
  return worker
}

/** The observer's script: one observation per batch, named after its events. */
const batchObservations = (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
  if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
  const range = /EVENTS (\d+) TO (\d+)/.exec(ModelDouble.lastUserText(request) ?? "")
  if (range === null) return { content: "<no_observations/>", usage: { inputTokens: 100, outputTokens: 5 } }
  return {
    content: `<observation><type>change</type><title>Batch ${range[1]}-${range[2]}</title>` +
      `<narrative>Events ${range[1]} to ${range[2]}.</narrative></observation>`,
    usage: { inputTokens: 1_000, outputTokens: 50 }
  }
}

/** A world with a queue of 9 events and a proxy that can hold the observer's calls open. */
const takeoverWorld = async () => {
  let proxy: Awaited<ReturnType<typeof slowProxy>> | undefined
  const w = await makeWorld(
    { batchWaitSeconds: 0, workerIdleMinutes: 0.02, batchSize: 3 },
    batchObservations,
    { baseUrl: async (url) => (proxy = await slowProxy(url, 0)).url }
  )
  recordSession(w.acxHome, w.project, "s-crash", 8, { ended: false })
  expect(value(w.acxHome, "SELECT count(*) FROM memory_events WHERE state = 'pending'")).toBe(9)
  const lockPid = () => value(w.acxHome, "SELECT pid FROM memory_worker WHERE id = 1") as number | null
  return { w, proxy: proxy!, lockPid }
}

/** The next worker, started once: it says it took over from `dead`, distils everything once, exits idle. */
const expectTakeOver = async (w: World, dead: number, why: string) => {
  const next = startWorker(w.env)
  expect(await next.exited, next.stderr()).toEqual({ code: 0, signal: null })
  expect(next.stderr()).toContain(`worker ${next.pid}: worker pid ${dead} is gone (${why}); taking over`)
  expect(next.stderr()).not.toContain("another worker runs")
  expect(next.stderr()).toMatch(/acx memory worker: done \(\d+ batches, 9 events\)/)
  const events = rows(w.acxHome, "SELECT id, state FROM memory_events ORDER BY id")
  expect(events.filter((event) => event.state !== "done")).toEqual([])
  // every event in exactly one observation: the batch the dead worker held was not stored twice
  const seen = new Map<number, number>()
  for (const row of rows(w.acxHome, "SELECT event_ids FROM memory_observations")) {
    for (const id of JSON.parse(row.event_ids) as Array<number>) seen.set(id, (seen.get(id) ?? 0) + 1)
  }
  expect(events.map((event) => seen.get(event.id) ?? 0)).toEqual(events.map(() => 1))
  expect(rows(w.acxHome, "SELECT pid, heartbeat_at FROM memory_worker")).toEqual([{ pid: null, heartbeat_at: null }])
}

/** Kills what a killed worker left (its Claude Code) in process group `pgid`, but `keep`. */
const killLeftovers = (pgid: number, keep: number) => {
  for (const member of groupMembers(pgid)) {
    if (member !== keep) {
      try {
        process.kill(member, "SIGKILL")
      } catch {
        // gone
      }
    }
  }
}

describe.skipIf(!claude.available || !linux)(
  "a dead memory worker is dead (real Claude Code CLI as the observer)",
  () => {
    it(
      "kill -9 during a model call, the worker kept as a zombie: the next worker takes over on its first start",
      async () => {
        const { lockPid, proxy, w } = await takeoverWorld()
        const release = proxy.hold()
        const log = path.join(w.root, "unreaped-worker.log")
        const worker = await startUnreapedWorker(w.env, log)
        const pid = worker.pid
        await waitFor("a model call in flight", () => proxy.outstanding() > 0)
        expect(lockPid(), fs.readFileSync(log, "utf8")).toBe(pid)
        await worker.kill()
        // what the old check took for a live worker
        expect(() => process.kill(pid, 0)).not.toThrow()
        killLeftovers(worker.parent, worker.parent)
        release()
        await expectTakeOver(w, pid, "zombie")
        // it was a zombie all along: its parent never reaped it
        expect(worker.state()).toBe("Z")
      },
      120_000
    )

    it(
      "kill -9 during a model call, its pid recorded for a live unrelated process: the next worker takes over on its first start",
      async () => {
        const { lockPid, proxy, w } = await takeoverWorld()
        const release = proxy.hold()
        const worker = startWorker(w.env)
        await waitFor("a model call in flight", () => proxy.outstanding() > 0)
        expect(lockPid()).toBe(worker.pid)
        process.kill(worker.pid, "SIGKILL")
        expect((await worker.exited).signal).toBe("SIGKILL")
        killGroup(worker.pid)
        release()
        // the row names a live `sleep` (its pid reused, as far as the row can tell), with a fresh
        // heartbeat and a start time that is not the sleep's
        const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
        cleanups.push(() => killGroup(sleeper.pid!))
        const start = ProcessLiveness.startTime(sleeper.pid!)!
        const db = new Database(path.join(w.acxHome, "memory.db"))
        try {
          db.prepare("UPDATE memory_worker SET pid = ?, pid_start = ?, started_at = ?, heartbeat_at = ? WHERE id = 1")
            .run(sleeper.pid, start + 1, Date.now(), Date.now())
        } finally {
          db.close()
        }
        await expectTakeOver(w, sleeper.pid!, "pid reused")
        expect(ProcessLiveness.check(sleeper.pid!, start)).toEqual({ _tag: "Alive" })
      },
      120_000
    )
  }
)

describe.skipIf(!linux)("acx memory worker while another worker runs", () => {
  it("says so with the live worker's pid and how long it has run, and leaves its lock alone", async () => {
    const acxHome = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-memory-live-"))
    cleanups.push(() => fs.rmSync(acxHome, { recursive: true, force: true }))
    hookEvent(acxHome, "/work/shop", "s-live", "UserPromptSubmit", { prompt: "go" })
    // the worker that runs: a live process recorded with its own start time, up 3 minutes
    const live = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
    cleanups.push(() => killGroup(live.pid!))
    const startedAt = Date.now() - 185_000
    const db = new Database(path.join(acxHome, "memory.db"))
    try {
      db.prepare("UPDATE memory_worker SET pid = ?, pid_start = ?, started_at = ?, heartbeat_at = ? WHERE id = 1")
        .run(live.pid, ProcessLiveness.startTime(live.pid!), startedAt, Date.now())
    } finally {
      db.close()
    }
    const result = await acx(["memory", "worker"], { env: { ACX_HOME: acxHome } })
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(
      new RegExp(`^acx memory worker: another worker runs \\(pid ${live.pid}, up 3m \\d\\ds\\); nothing to do$`, "m")
    )
    expect(rows(acxHome, "SELECT pid, started_at FROM memory_worker")).toEqual([{
      pid: live.pid,
      started_at: startedAt
    }])
  })
})
