/**
 * Two pool processes on one Postgres (the registry and the session store on it), each running
 * the real Claude Code CLI against the model double:
 * - competing for the same 8 conversations, never two owners at once: every conversation's two
 *   turns see one another (the second sees the first's prompt — no process ran it from a stale copy);
 * - an owner paused (SIGSTOP) past its lease while a turn runs: another takes the conversation
 *   over once the lease expires, not before; when it wakes it appends nothing and records no turn
 *   (`LeaseLost`);
 * - an owner killed with SIGKILL: its lease expires, the other process resumes the conversation.
 *
 * The two processes serve every case (each start loads Effect, the SDK and the drivers), in this
 * order: the killed one comes last. Their leases are long (20 s),
 * so a process starved for seconds on a loaded 2-core machine (CI's two cores under a load of 20
 * missed 5 s renewals) keeps them. The expiry tests do not wait those 20 s out: once the owner is
 * paused or dead — it renews nothing any more — the test moves its lease's expiry to one second
 * ahead on the database's clock (what a short lease last renewed just now would hold), then
 * watches the registry: the other process takes the conversation only after that second.
 */
import { bundleWorker, type WorkerBundle } from "@acx/fixtures/workerBundle"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as readline from "node:readline"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { claude, echoScript, makeGate, makeWorld, MODEL, type World } from "./utils/world.js"

const pgUrl = process.env["ACX_PG_URL"]
const run = randomBytes(4).toString("hex")

const gate = makeGate()
const echo = echoScript(gate)

// no lease is meant to expire on its own: long ones, so a starved machine tests exclusion, not
// the scheduler
const LEASE_TTL_MS = 20_000
// what is left of a paused or killed owner's lease when the test cuts it short
const LEFT_MS = 1_500

interface Answer {
  readonly id: string
  readonly key: string
  readonly text?: string
  readonly error?: string
}

interface Worker {
  readonly child: ChildProcessWithoutNullStreams
  readonly owner: string
  readonly ask: (key: string, prompt: string) => Promise<Answer>
  /** `AgentPool.close`: the conversation's process ends and its lease is released. */
  readonly close: (key: string) => Promise<Answer>
  readonly stop: () => Promise<void>
}

const workers: Array<Worker> = []
// the pool processes run on plain Node from a bundle of utils/poolWorker.ts: through tsx's hooks,
// loading Effect, the SDK and the drivers cost each start seconds of CPU
let bundle: Promise<WorkerBundle> | undefined

const startWorker = async (w: World, name: string, options: { leaseTtlMs: number; maxWarm: number }) => {
  bundle ??= bundleWorker(new URL("./utils/poolWorker.ts", import.meta.url))
  const child = spawn(process.execPath, [(await bundle).file], {
    env: {
      ...process.env,
      ACX_TEST_POOL: JSON.stringify({
        database: pgUrl,
        owner: `${name}-${run}`,
        cwd: w.cwd,
        binary: w.binary,
        model: MODEL,
        env: w.env,
        maxWarm: options.maxWarm,
        leaseTtlMs: options.leaseTtlMs,
        // an idle conversation is closed and its lease released: not while a test still reads who
        // owns it (at 500 ms a loaded machine released b's lease before the check, and a's
        // before the kill the takeover waits on)
        idleTimeoutMs: 60_000
      })
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const waiting = new Map<string, (answer: Answer) => void>()
  let ready: (owner: string) => void = () => {}
  const owner = new Promise<string>((resolve) => (ready = resolve))
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as Answer & { ready?: string }
    if (message.ready !== undefined) return ready(message.ready)
    waiting.get(message.id)?.(message)
  })
  child.on("exit", (code, signal) => {
    for (const resolve of waiting.values()) resolve({ id: "", key: "", error: `exited ${code ?? signal}: ${stderr}` })
  })
  const request = (message: { key: string; prompt?: string; close?: boolean }) =>
    new Promise<Answer>((resolve) => {
      const id = randomBytes(6).toString("hex")
      waiting.set(id, resolve)
      child.stdin.write(`${JSON.stringify({ id, ...message })}\n`)
    })
  const worker: Worker = {
    child,
    owner: await Promise.race([
      owner,
      new Promise<string>((_, reject) => child.on("exit", () => reject(new Error(`worker exited: ${stderr}`))))
    ]),
    ask: (key, prompt) => request({ key, prompt }),
    close: (key) => request({ key, close: true }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGCONT")
      child.stdin.end()
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
        child.on("exit", () => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }
  workers.push(worker)
  return worker
}

const registryRow = async (key: string) => {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  try {
    const { rows } = await client.query("SELECT * FROM acx_agent_conversations WHERE key = $1", [key])
    return rows[0] as { owner: string | null; turns: string; session_id: string } | undefined
  } finally {
    await client.end()
  }
}

const storedTexts = async (sessionId: string) => {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  try {
    const { rows } = await client.query(
      "SELECT entry FROM claude_session_entries WHERE session_id = $1 AND subpath = '' ORDER BY id",
      [sessionId]
    )
    return JSON.stringify(rows.map((row: { entry: unknown }) => row.entry))
  } finally {
    await client.end()
  }
}

const NOW = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

/**
 * Cuts the lease of `holder` (paused or dead: it renews nothing) to expire `LEFT_MS` from now on
 * the database's clock, then lets `other` ask for the conversation at once, and samples the
 * registry until that expiry passed: every sample before it must still name `holder` — a live
 * lease is never taken. A paused holder may hold the row's lock (an append's transaction): then
 * it runs on for a moment and is paused again. Returns the answer and how many samples were taken.
 */
const takeOver = async (key: string, holder: Worker, state: "paused" | "dead", other: Worker, prompt: string) => {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  try {
    let expiry: number | undefined
    while (expiry === undefined) {
      const { rows } = await client.query(
        `UPDATE acx_agent_conversations SET lease_expires_at = ${NOW} + $3
        WHERE key IN (SELECT key FROM acx_agent_conversations WHERE key = $1 AND owner = $2 FOR UPDATE SKIP LOCKED)
        RETURNING lease_expires_at`,
        [key, holder.owner, LEFT_MS]
      )
      if (rows.length === 1) expiry = Number((rows[0] as { lease_expires_at: string }).lease_expires_at)
      else if (state === "paused") {
        holder.child.kill("SIGCONT")
        await new Promise((resolve) => setTimeout(resolve, 50))
        holder.child.kill("SIGSTOP")
      } else await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const answer = other.ask(key, prompt)
    let samples = 0
    while (true) {
      const { rows } = await client.query(`SELECT owner, ${NOW} AS now FROM acx_agent_conversations WHERE key = $1`, [
        key
      ])
      const row = rows[0] as { owner: string; now: string }
      if (Number(row.now) > expiry) break
      expect(row.owner).toBe(holder.owner)
      samples += 1
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return { answer: await answer, samples }
  } finally {
    await client.end()
  }
}

const skip = !claude.available || pgUrl === undefined
const maybe = skip ? it.skip : it

describe(`Two AgentPool processes on one Postgres${pgUrl === undefined ? " — skipped: ACX_PG_URL is not set" : ""}`, () => {
  let world: World
  let a: Worker
  let b: Worker
  beforeAll(async () => {
    if (skip) return
    world = await makeWorld(echo)
    ;[a, b] = await Promise.all([
      startWorker(world, "a", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 3 }),
      startWorker(world, "b", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 3 })
    ])
  }, 120_000)
  afterAll(async () => {
    for (const worker of workers.splice(0)) await worker.stop()
    await world?.close()
    ;(await bundle)?.remove()
    gate.close()
  }, 60_000)

  maybe("compete for 8 conversations: never two owners, every second turn sees the first", async () => {
    // 8 conversations, 16 asks at once, 6 slots (maxWarm 3 each): every ask contends for its
    // conversation's lease and most wait for a slot too; more conversations repeat the same
    // contention at a Claude Code start each
    const keys = Array.from({ length: 8 }, (_, i) => `conv-${run}-${i}`)
    // whoever answers a conversation first closes it at once, handing its lease to the other
    // process waiting for it: left warm, it would keep the lease until its pool evicted it for a
    // newcomer (while asks were queued) or until the idle timeout — a minute (the later tests need
    // conversations that stay warm) spent waiting for the last contested ones
    const answered = new Set<string>()
    const askThenClose = async (worker: Worker, key: string) => {
      const answer = await worker.ask(key, `${key} from ${worker === a ? "a" : "b"}`)
      if (!answered.has(key)) {
        answered.add(key)
        expect((await worker.close(key)).error).toBeUndefined()
      }
      return answer
    }
    const answers = await Promise.all(keys.flatMap((key) => [askThenClose(a, key), askThenClose(b, key)]))
    for (const answer of answers) expect(answer.error).toBeUndefined()
    for (const key of keys) {
      const seen = answers.filter((answer) => answer.key === key).map((answer) =>
        /\(seen (\d)\)/.exec(answer.text ?? "")?.[1]
      )
      // one ran first (it saw its own prompt), the other after it (it saw both): never 1 and 1
      expect(seen.sort()).toEqual(["1", "2"])
      expect(Number((await registryRow(key))?.turns)).toBe(2)
    }
  }, 240_000)

  maybe(
    "an owner paused past its lease: taken over once it expired; it appends nothing and records no turn when it wakes",
    async () => {
      const key = `conv-${run}-paused`
      expect((await a.ask(key, `${key} first`)).text).toBe(`ack ${key} first (seen 1)`)
      const slow = a.ask(key, `${key} slow`)
      // the slow turn's tool call runs (until the gate opens): pause the owner, cut its lease short
      await gate.entered()
      a.child.kill("SIGSTOP")
      try {
        const taken = await takeOver(key, a, "paused", b, `${key} from b`)
        expect(taken.samples).toBeGreaterThan(0)
        expect(taken.answer.text).toBe(`ack ${key} from b (seen 2)`)
        gate.open()
      } finally {
        a.child.kill("SIGCONT")
      }
      const late = await slow
      expect(late.error).toBe("LeaseLost")
      const row = await registryRow(key)
      expect(row?.owner).toBe(b.owner)
      expect(Number(row?.turns)).toBe(2)
      // the woken owner's late turn never reached the store
      const stored = await storedTexts(row!.session_id)
      expect(stored).toContain(`${key} from b`)
      expect(stored).not.toContain("late answer")
    },
    120_000
  )

  // last: it ends process a
  maybe("an owner killed: its lease expires and the other process resumes the conversation", async () => {
    const key = `conv-${run}-killed`
    expect((await a.ask(key, `${key} first`)).text).toBe(`ack ${key} first (seen 1)`)
    expect((await registryRow(key))?.owner).toBe(a.owner)
    const exited = new Promise((resolve) => a.child.once("exit", resolve))
    a.child.kill("SIGKILL")
    await exited
    const resumed = await takeOver(key, a, "dead", b, `${key} second`)
    expect(resumed.samples).toBeGreaterThan(0)
    expect(resumed.answer.text).toBe(`ack ${key} second (seen 2)`)
    expect((await registryRow(key))?.owner).toBe(b.owner)
  }, 120_000)
})
