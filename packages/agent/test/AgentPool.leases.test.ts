/**
 * Two pool processes on one Postgres (the registry and the session store on it), each running
 * the real Claude Code CLI against the model double:
 * - competing for the same 20 conversations, never two owners at once: every conversation's two
 *   turns see one another (the second sees the first's prompt — no process ran it from a stale copy);
 * - an owner killed with SIGKILL: its lease expires, the other process resumes the conversation;
 * - an owner paused (SIGSTOP) past its lease while a turn runs: another takes the conversation
 *   over; when it wakes it appends nothing and records no turn (`LeaseLost`).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import * as readline from "node:readline"
import pg from "pg"
import { afterEach, describe, expect, it } from "vitest"
import { claude, echoScript, makeWorld, MODEL, userTexts, type World } from "./utils/world.js"

const pgUrl = process.env["ACX_PG_URL"]
const run = randomBytes(4).toString("hex")

const echo = echoScript(4)

// the leases the expiry tests wait out: renewed every third (2 s), so a process starved for
// seconds on a loaded 2-core machine keeps its lease, yet one killed or paused loses it in 6 s
const LEASE_TTL_MS = 6_000

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
  readonly stop: () => Promise<void>
}

const workers: Array<Worker> = []
let world: World | undefined
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop()
  await world?.close()
  world = undefined
})

const startWorker = async (w: World, name: string, options: { leaseTtlMs: number; maxWarm: number }) => {
  const child = spawn(process.execPath, [
    "--conditions=@acx/source",
    "--import",
    "tsx",
    path.join(import.meta.dirname, "utils", "poolWorker.ts")
  ], {
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
        idleTimeoutMs: 500
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
  const worker: Worker = {
    child,
    owner: await Promise.race([
      owner,
      new Promise<string>((_, reject) => child.on("exit", () => reject(new Error(`worker exited: ${stderr}`))))
    ]),
    ask: (key, prompt) =>
      new Promise((resolve) => {
        const id = randomBytes(6).toString("hex")
        waiting.set(id, resolve)
        child.stdin.write(`${JSON.stringify({ id, key, prompt })}\n`)
      }),
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

const skip = !claude.available || pgUrl === undefined
const maybe = skip ? it.skip : it

describe(`Two AgentPool processes on one Postgres${pgUrl === undefined ? " — skipped: ACX_PG_URL is not set" : ""}`, () => {
  maybe("compete for 20 conversations: never two owners, every second turn sees the first", async () => {
    world = await makeWorld(echo)
    const [a, b] = await Promise.all([
      // no lease is meant to expire here: a long one, so a starved machine (CI's two cores under
      // a load of 20 missed 5 s renewals) tests exclusion, not the scheduler
      startWorker(world, "a", { leaseTtlMs: 20_000, maxWarm: 3 }),
      startWorker(world, "b", { leaseTtlMs: 20_000, maxWarm: 3 })
    ])
    const keys = Array.from({ length: 20 }, (_, i) => `conv-${run}-${i}`)
    const answers = await Promise.all(keys.flatMap((key) => [a.ask(key, `${key} from a`), b.ask(key, `${key} from b`)]))
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

  maybe("an owner killed: its lease expires and the other process resumes the conversation", async () => {
    world = await makeWorld(echo)
    // leases of a few seconds: long enough for renewals on a loaded machine, short enough to wait out
    const a = await startWorker(world, "a", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 2 })
    const key = `conv-${run}-killed`
    expect((await a.ask(key, `${key} first`)).text).toBe(`ack ${key} first (seen 1)`)
    expect((await registryRow(key))?.owner).toBe(a.owner)
    a.child.kill("SIGKILL")
    const b = await startWorker(world, "b", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 2 })
    const started = Date.now()
    expect((await b.ask(key, `${key} second`)).text).toBe(`ack ${key} second (seen 2)`)
    expect(Date.now() - started).toBeGreaterThan(300)
    expect((await registryRow(key))?.owner).toBe(b.owner)
  }, 120_000)

  maybe("an owner paused past its lease appends nothing and records no turn when it wakes", async () => {
    world = await makeWorld(echo)
    const a = await startWorker(world, "a", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 2 })
    const b = await startWorker(world, "b", { leaseTtlMs: LEASE_TTL_MS, maxWarm: 2 })
    const key = `conv-${run}-paused`
    expect((await a.ask(key, `${key} first`)).text).toBe(`ack ${key} first (seen 1)`)
    const slow = a.ask(key, `${key} slow`)
    // the slow turn's tool call is running: pause the owner past its lease
    while (!world.double.agentRequests().some((request) => userTexts(request).includes(`${key} slow`))) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    a.child.kill("SIGSTOP")
    const taken = await b.ask(key, `${key} from b`)
    expect(taken.text).toBe(`ack ${key} from b (seen 2)`)
    a.child.kill("SIGCONT")
    const late = await slow
    expect(late.error).toBe("LeaseLost")
    const row = await registryRow(key)
    expect(row?.owner).toBe(b.owner)
    expect(Number(row?.turns)).toBe(2)
    // the woken owner's late turn never reached the store
    const stored = await storedTexts(row!.session_id)
    expect(stored).toContain(`${key} from b`)
    expect(stored).not.toContain("late answer")
  }, 120_000)
})
