/**
 * The worker when the observer's model misbehaves, on real SQLite files with the observer on the
 * REAL Claude Code CLI against the model double:
 * - the per-query budget exceeded by the first turn (`error_max_budget_usd`): the session is
 *   recorded locally from then on, every event done;
 * - empty replies, prose, half an XML block: asked again once with the reminder, then recorded
 *   locally with the reply logged; a reminder answered well, fences and prose around the XML, and
 *   XML cut after its title are read (the worker asks `ObserverReply` which replies are readable:
 *   an empty reply and half an XML block go through real observers, prose and the cut XML are
 *   read by the same function in-process, since each observer is a Claude Code start);
 * - config.json changed under a running worker: the next batches use it, and status reports the
 *   mode and model in force in the worker;
 * - a model whose replies never parse: a hard ceiling on what a session costs, whatever the
 *   number of events, every event recorded (locally);
 * - no credentials: local observations without starting Claude Code; a credentials file in the
 *   user's config dir (HOME's or `CLAUDE_CONFIG_DIR`) copied owner-only into the observer's, and
 *   the observer signed in with it;
 * - a worker whose observer is still warm (its session goes on) exits when idle and when
 *   interrupted, its observer's process ended.
 *
 * (`kill -9`, HTTP errors and the CLI's status / retry: `packages/cli/test/cli.memory.faults.test.ts`.)
 */
import * as ObserverReply from "@acx/convert/ObserverReply"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as MemoryAdmin from "../src/MemoryAdmin.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryWorker from "../src/MemoryWorker.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)
const claudePath = claude.available ? claude.path : undefined

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

// the observer offers no tools: the double tells its requests from the CLI's side calls by the
// system prompt
const isObserver = ModelDouble.systemMentions("acx's memory observer")
const sideCall: ModelDouble.ModelAnswer = { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
const REMINDER = "Your last answer could not be read"

const world = async (script: ModelDouble.Script) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-faults-"))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  const acxHome = path.join(root, "acx")
  const home = path.join(root, "home")
  const project = path.join(root, "project")
  for (const dir of [acxHome, path.join(home, ".claude"), project]) fs.mkdirSync(dir, { recursive: true })
  const double = await ModelDouble.startModelDouble({ script })
  cleanups.push(() => double.close())
  const real = await realClaude({ baseUrl: double.url, path: claudePath })
  return { root, acxHome, home, project, double, real, env: real.env(home) as Record<string, string | undefined> }
}

/** Hook inputs through the real hook function: a prompt, tool calls, and optionally the end. */
const session = (
  acxHome: string,
  project: string,
  sessionId: string,
  tools: number,
  options: { readonly ended: boolean } = { ended: true }
) => {
  const at = hooksOf(acxHome, project, sessionId)
  at("UserPromptSubmit", { prompt: `Fix the cart in ${sessionId}` })
  for (let i = 0; i < tools; i++) {
    at("PostToolUse", {
      tool_name: "Edit",
      tool_use_id: `${sessionId}-t${i}`,
      tool_input: { file_path: path.join(project, `src/cart${i}.ts`) },
      tool_response: { ok: true }
    })
  }
  if (options.ended) {
    at("Stop", { stop_hook_active: false })
    at("SessionEnd", { reason: "other" })
  }
}

const provide = provideDatabase

/** Runs a worker to its end; a worker that does not end fails the test instead of hanging it. */
const runWorker = async (
  acxHome: string,
  options: Omit<MemoryWorker.WorkerOptions, "home">,
  config: Partial<MemoryConfig.MemoryConfig> = {}
) => {
  const lines: Array<string> = []
  const run = MemoryWorker.run({
    home: acxHome,
    config: { ...MemoryConfig.defaults, batchWaitSeconds: 0, ...config },
    idleTimeout: 0,
    pathToClaudeCodeExecutable: claudePath,
    log: (line) => lines.push(line),
    ...options
  })
  let timer: NodeJS.Timeout | undefined
  const exit = await Promise.race([
    Effect.runPromise(provide(acxHome, run)),
    new Promise<never>((_, reject) => {
      // a guard against a hang, not a timing (observers start one after the other on a loaded machine)
      timer = setTimeout(() => reject(new Error(`the worker did not end:\n${lines.join("\n")}`)), 100_000)
    })
  ]).finally(() => clearTimeout(timer))
  return { exit, lines }
}

const observerPrompts = (double: ModelDouble.ModelDoubleHandle, sessionId: string) =>
  double.requests().filter((request) =>
    isObserver(request) && JSON.stringify(request.body["messages"]).includes(`Claude Code session: ${sessionId}.`)
  ).map((request) => ModelDouble.lastUserText(request) ?? "")

const observation = (title: string) =>
  `<observation><type>bugfix</type><title>${title}</title><facts><fact>tax is rounded last</fact></facts><narrative>The cart rounded before adding tax.</narrative></observation>`

/** The observer's answers: `text` to a batch, a summary at a checkpoint. */
const observer = (text: string) => (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer =>
  !isObserver(request)
    ? sideCall
    : ModelDouble.lastUserText(request)?.includes("SESSION CHECKPOINT") === true
    ? { content: "<summary><request>Fix the cart</request><completed>Fixed it</completed></summary>" }
    : { content: text }

describe.skipIf(!claude.available)("MemoryWorker faults (real Claude Code CLI as the observer)", () => {
  it("the first turn over maxBudgetUsdPerQuery: the session is recorded locally from then on", async () => {
    const w = await world((request) =>
      isObserver(request)
        // $0.0025 at haiku's prices: far over the budget
        ? { content: observation("Never stored"), usage: { inputTokens: 2_000, outputTokens: 100 } }
        : sideCall
    )
    session(w.acxHome, w.project, "s-budget", 4)
    const { exit, lines } = await runWorker(
      w.acxHome,
      { env: { ...w.env } },
      { batchSize: 3, maxBudgetUsdPerQuery: 0.000001 }
    )
    expect(exit).toMatchObject({ _tag: "Idle", events: 7 })
    expect(lines.join("\n")).toContain("error_max_budget_usd")
    // one model call, then none: the batches and the summary are local
    expect(w.double.requests().filter(isObserver)).toHaveLength(1)
    expect(query(w.acxHome, "SELECT DISTINCT state FROM memory_events")).toEqual([{ state: "done" }])
    expect(query(w.acxHome, "SELECT sum(attempts) AS n FROM memory_events")).toEqual([{ n: 0 }])
    const [row] = query(w.acxHome, "SELECT observer_local_reason, status, last_error FROM memory_sessions")
    expect(row).toEqual({
      observer_local_reason: "the observer's query budget (maxBudgetUsdPerQuery $0.000001) is spent",
      status: "completed",
      last_error: null
    })
    const observations = query(w.acxHome, "SELECT title, source FROM memory_observations ORDER BY id")
    expect(observations.length).toBeGreaterThan(0)
    expect(observations.every((observation) => observation.source === "local")).toBe(true)
    expect(observations.map((observation) => observation.title)).not.toContain("Never stored")
    expect(query(w.acxHome, "SELECT source, notes FROM memory_summaries")).toEqual([{
      source: "local",
      notes: "Recorded without a model (the observer's query budget (maxBudgetUsdPerQuery $0.000001) is spent)."
    }])
    // what the call cost is in the ledger all the same
    const ledger = query(w.acxHome, "SELECT input_tokens, output_tokens, cost_usd FROM memory_usage")
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ input_tokens: 2_000, output_tokens: 100 })
    expect(ledger[0]!["cost_usd"]).toBeCloseTo(0.0025, 6)
  }, 60_000)

  it(
    "empty, prose and half-XML replies are asked again once, then recorded locally with the reply logged; readable ones are stored",
    async () => {
      const half = "<observation>\n  <type>bugfix</type>\n  <ti"
      const fenced = `Here is what I noted:\n\n\`\`\`xml\n${
        observation("Cart tax is rounded last")
      }\n\`\`\`\n\nLet me know if you need more.`
      const cut =
        "<observation><type>bugfix</type><title>Cart rounding fixed</title><narrative>The total was rounded bef"
      // what the worker asks of a reply (MemoryWorker: ObserverReply.parse, then isEmpty): prose
      // reads as half an XML block does, the cut XML as the fenced one does
      const readable = (text: string) => !ObserverReply.isEmpty(ObserverReply.parse(text))
      expect([readable("Sure! I will keep that in mind."), readable("Noted, thanks."), readable(half)]).toEqual([
        false,
        false,
        false
      ])
      expect(ObserverReply.parse(cut).observations.map((o) => o.title)).toEqual(["Cart rounding fixed"])
      expect(readable(fenced)).toBe(true)
      // per Claude Code session (each a real observer): the first answer, and the answer to the reminder
      const answers: Record<string, readonly [string, string]> = {
        "s-empty": ["", ""],
        "s-half": [half, half],
        "s-reminded": [half, observation("Found after the reminder")],
        "s-fenced": [fenced, "unused"]
      }
      const w = await world((request) => {
        if (!isObserver(request)) return sideCall
        const messages = JSON.stringify(request.body["messages"])
        const id = Object.keys(answers).find((id) => messages.includes(`Claude Code session: ${id}.`))
        if (id === undefined) return { content: "<no_observations/>" }
        const reminded = ModelDouble.lastUserText(request)?.includes(REMINDER) === true
        return { content: answers[id]![reminded ? 1 : 0], usage: { inputTokens: 100, outputTokens: 10 } }
      })
      for (const id of Object.keys(answers)) session(w.acxHome, w.project, id, 1, { ended: false })
      const { lines } = await runWorker(w.acxHome, { env: { ...w.env } })

      const events = (id: string) =>
        query(w.acxHome, `SELECT state, attempts, last_error FROM memory_events WHERE session_id = '${id}'`)
      // one ledger row per question the worker asked
      const asked = (id: string) =>
        query(w.acxHome, `SELECT count(*) AS n FROM memory_usage WHERE session_id = '${id}'`)[0]!["n"] as number
      const titles = (id: string) =>
        query(w.acxHome, `SELECT title, source FROM memory_observations WHERE session_id = '${id}'`)
      for (const [id, reply] of [["s-empty", ""], ["s-half", half]] as const) {
        // asked twice: the batch, then the reminder (an empty reply is nudged once more by the CLI
        // itself, inside the same turn)
        const prompts = observerPrompts(w.double, id)
        expect(prompts[0], id).toContain("EVENTS ")
        expect(prompts.filter((prompt) => prompt.includes(REMINDER)).length, id).toBeGreaterThan(0)
        expect(asked(id), id).toBe(2)
        // not asked a third time: the batch is recorded locally at once, nothing lost, the reply logged
        expect(events(id).map((event) => [event.state, event.attempts]), id).toEqual([["done", 0], ["done", 0]])
        expect(titles(id).length, id).toBeGreaterThan(0)
        expect(titles(id).every((row) => row["source"] === "local"), id).toBe(true)
        expect(lines.join("\n"), id).toContain(
          `session ${id}: the observer's reply had no readable XML, twice (${JSON.stringify(reply)})`
        )
      }
      // the reminder worked
      expect(asked("s-reminded")).toBe(2)
      expect(titles("s-reminded")).toEqual([{ title: "Found after the reminder", source: "model" }])
      // fences and prose around the XML: read at once
      for (const [id, title] of [["s-fenced", "Cart tax is rounded last"]] as const) {
        expect(asked(id), id).toBe(1)
        expect(observerPrompts(w.double, id).some((prompt) => prompt.includes(REMINDER)), id).toBe(false)
        expect(titles(id), id).toEqual([{ title, source: "model" }])
      }
      for (const id of ["s-reminded", "s-fenced"]) {
        expect(events(id).map((event) => [event.state, event.attempts, event.last_error]), id).toEqual([
          ["done", 0, null],
          ["done", 0, null]
        ])
      }
      const [fencedRow] = query(
        w.acxHome,
        "SELECT facts, narrative FROM memory_observations WHERE session_id = 's-fenced'"
      )
      expect(fencedRow).toEqual({
        facts: JSON.stringify(["tax is rounded last"]),
        narrative: "The cart rounded before adding tax."
      })
    },
    150_000
  )

  it("a model that always answers garbage: two sessions of 15 events cost at most 4 observer calls each", async () => {
    const w = await world((request) =>
      isObserver(request)
        ? { content: "I am not sure what you want from me.", usage: { inputTokens: 100, outputTokens: 10 } }
        : sideCall
    )
    const sessions = ["s-garbage-1", "s-garbage-2"]
    // a prompt, 12 tools, Stop, SessionEnd: 5 batches of 3 and a checkpoint each
    for (const id of sessions) session(w.acxHome, w.project, id, 12)
    // the worker runs until the queue is empty, the backoff of any retry taken as passed
    for (let round = 0; round < 4; round++) {
      await runWorker(w.acxHome, { env: { ...w.env } }, { batchSize: 3 })
      query(w.acxHome, "UPDATE memory_events SET next_attempt_at = 0 WHERE state = 'pending' RETURNING id")
    }
    const ceiling = MemoryWorker.UNREADABLE_BATCHES_BEFORE_LOCAL * MemoryWorker.MAX_TURNS_PER_BATCH
    for (const id of sessions) {
      const calls = w.double.requests().filter((request) =>
        isObserver(request) && JSON.stringify(request.body["messages"]).includes(`Claude Code session: ${id}.`)
      )
      expect(calls.length, id).toBeLessThanOrEqual(ceiling)
      // the ledger holds every call it paid for
      expect(query(w.acxHome, `SELECT count(*) AS n FROM memory_usage WHERE session_id = '${id}'`)[0]!["n"], id)
        .toBe(calls.length)
      expect(query(w.acxHome, `SELECT DISTINCT state FROM memory_events WHERE session_id = '${id}'`), id).toEqual([
        { state: "done" }
      ])
      expect(query(w.acxHome, `SELECT observer_local_reason FROM memory_sessions WHERE id = '${id}'`), id).toEqual([
        { observer_local_reason: "the observer's replies had no readable XML for 2 batches in a row" }
      ])
      expect(query(w.acxHome, `SELECT source FROM memory_summaries WHERE session_id = '${id}'`), id).toEqual([
        { source: "local" }
      ])
    }
    console.log(`garbage replies: ${w.double.requests().filter(isObserver).length} observer calls for 30 events`)
  }, 120_000)

  it("config.json changed under a running worker: the next batches use it, status shows what is in force", async () => {
    const w = await world(observer(observation("From the model")))
    const config = (memory: Record<string, unknown>) =>
      fs.writeFileSync(
        MemoryConfig.paths(w.acxHome).config,
        JSON.stringify({ memory: { batchWaitSeconds: 0, ...memory } })
      )
    config({})
    const status = () =>
      Effect.runPromise(provide(
        w.acxHome,
        MemoryAdmin.status(MemoryConfig.paths(w.acxHome), MemoryConfig.load(w.acxHome))
      ))
    const settled = async (id: string) => {
      const deadline = Date.now() + 30_000
      const pending = () =>
        query(w.acxHome, `SELECT count(*) AS n FROM memory_events WHERE session_id = '${id}' AND state = 'pending'`)[0]!
      while (pending()["n"] > 0) {
        if (Date.now() > deadline) throw new Error(`${id} was not recorded`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    session(w.acxHome, w.project, "s-before", 1, { ended: false })
    const lines: Array<string> = []
    const fiber = Effect.runFork(provide(
      w.acxHome,
      MemoryWorker.run({
        home: w.acxHome,
        env: { ...w.env },
        idleTimeout: "1 minute",
        pathToClaudeCodeExecutable: claudePath,
        log: (line) => lines.push(line)
      })
    ))
    try {
      await settled("s-before")
      const before = await status()
      expect(before.worker).toMatchObject({
        running: true,
        localReason: null,
        inForce: { mode: "model", model: "claude-haiku-4-5" }
      })
      expect(MemoryAdmin.modelLine(before, MemoryConfig.load(w.acxHome).config)).toBe(
        "claude-haiku-4-5 (the observer, in the running worker)"
      )

      // the user turns the model off while the worker runs
      config({ mode: "local" })
      const calls = w.double.requests().filter(isObserver).length
      session(w.acxHome, w.project, "s-after", 2, { ended: false })
      await settled("s-after")
      expect(w.double.requests().filter(isObserver)).toHaveLength(calls)
      const sources = query(w.acxHome, "SELECT DISTINCT source FROM memory_observations WHERE session_id = 's-after'")
      expect(sources).toEqual([{ source: "local" }])
      const after = await status()
      expect(after.worker).toMatchObject({
        running: true,
        localReason: "mode is local",
        inForce: { mode: "local", model: "claude-haiku-4-5" }
      })
      expect(MemoryAdmin.modelLine(after, MemoryConfig.load(w.acxHome).config)).toBe(
        "none, observations are recorded locally (mode is local)"
      )
      expect(lines.join("\n")).toContain("settings re-read from")
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
    }
  }, 90_000)

  it("no credentials: local observations, no Claude Code started", async () => {
    const w = await world(observer(observation("Never asked")))
    session(w.acxHome, w.project, "s-nokey", 2)
    // what a user without a key, a token or a login has: HOME, PATH, the API's address
    const { ANTHROPIC_API_KEY: _key, CLAUDE_CONFIG_DIR: _dir, ...env } = w.env
    const { exit } = await runWorker(w.acxHome, {
      env: { ...env, ANTHROPIC_AUTH_TOKEN: "", CLAUDE_CODE_OAUTH_TOKEN: "" }
    })
    expect(exit).toMatchObject({ _tag: "Idle", events: 5 })
    expect(w.double.requests()).toEqual([])
    const files = MemoryConfig.paths(w.acxHome)
    expect(fs.existsSync(path.join(files.observerConfigDir, ".credentials.json"))).toBe(false)
    expect(fs.existsSync(path.join(files.observerConfigDir, "projects"))).toBe(false)
    expect(query(w.acxHome, "SELECT DISTINCT state FROM memory_events")).toEqual([{ state: "done" }])
    const sources = query(w.acxHome, "SELECT DISTINCT source FROM memory_observations")
    expect(sources).toEqual([{ source: "local" }])
    const [summary] = query(w.acxHome, "SELECT source, notes FROM memory_summaries")
    expect(summary!["source"]).toBe("local")
    expect(summary!["notes"]).toContain("Recorded without a model (no credentials (no ANTHROPIC_API_KEY")
    expect(summary!["notes"]).toContain(path.join(w.home, ".claude", ".credentials.json"))
  }, 60_000)

  it(
    "a credentials file in the user's config dir is copied owner-only, and the observer signs in with it",
    async () => {
      const w = await world(observer(observation("Observed with the login")))
      const login = (token: string) =>
        JSON.stringify({
          claudeAiOauth: {
            accessToken: token,
            refreshToken: `${token}-refresh`,
            expiresAt: Date.now() + 365 * 24 * 3_600_000,
            scopes: ["user:inference", "user:profile"],
            subscriptionType: "max"
          }
        })
      const { ANTHROPIC_API_KEY: _key, CLAUDE_CONFIG_DIR: _dir, ...env } = w.env
      // HOME's .claude (the file readable by others, as a careless copy leaves it), then a
      // CLAUDE_CONFIG_DIR elsewhere
      const cases = [
        { token: "sk-ant-oat01-home", configDir: path.join(w.home, ".claude"), env },
        {
          token: "sk-ant-oat01-configdir",
          configDir: path.join(w.root, "claude-config"),
          env: { ...env, CLAUDE_CONFIG_DIR: path.join(w.root, "claude-config") }
        }
      ]
      for (const [i, item] of cases.entries()) {
        const acxHome = path.join(w.root, `acx-${i}`)
        fs.mkdirSync(item.configDir, { recursive: true })
        const credentials = login(item.token)
        fs.writeFileSync(path.join(item.configDir, ".credentials.json"), credentials, { mode: 0o644 })
        session(acxHome, w.project, `s-login-${i}`, 1)
        const { exit } = await runWorker(acxHome, { env: item.env })
        expect(exit).toMatchObject({ _tag: "Idle", events: 4 })
        const copy = path.join(MemoryConfig.paths(acxHome).observerConfigDir, ".credentials.json")
        expect(fs.readFileSync(copy, "utf8")).toBe(credentials)
        expect(fs.statSync(copy).mode & 0o777).toBe(0o600)
        expect(fs.statSync(path.dirname(copy)).mode & 0o077).toBe(0)
        // the observer's Claude Code used the login: the double saw its token
        const calls = w.double.requests().filter((request) =>
          isObserver(request) && request.headers["authorization"] === `Bearer ${item.token}`
        )
        expect(calls.length, item.token).toBeGreaterThan(0)
        expect(query(acxHome, "SELECT title, source FROM memory_observations")).toEqual([
          { title: "Observed with the login", source: "model" }
        ])
        expect(query(acxHome, "SELECT DISTINCT state FROM memory_events")).toEqual([{ state: "done" }])
      }
      expect(w.double.requests().filter(isObserver).every((request) => request.headers["x-api-key"] === undefined))
        .toBe(true)
    },
    60_000
  )

  it("a worker whose observer is still warm exits when idle, and when interrupted", async () => {
    const w = await world(observer(observation("Still going")))
    // sessions that go on: their observers stay warm until the worker ends
    session(w.acxHome, w.project, "s-warm", 1, { ended: false })
    const { exit, lines } = await runWorker(w.acxHome, { env: { ...w.env } })
    expect(exit).toMatchObject({ _tag: "Idle", events: 2 })
    expect(lines.at(-1)).toMatch(/^worker \d+: stopped$/)
    expect(query(w.acxHome, "SELECT pid FROM memory_worker")).toEqual([{ pid: null }])

    // interrupted (what SIGTERM does in `acx memory worker`) once its first batch is stored
    session(w.acxHome, w.project, "s-warm-2", 1, { ended: false })
    const fiber = Effect.runFork(provide(
      w.acxHome,
      MemoryWorker.run({
        home: w.acxHome,
        env: { ...w.env },
        config: { ...MemoryConfig.defaults, batchWaitSeconds: 0 },
        idleTimeout: "1 minute",
        pathToClaudeCodeExecutable: claudePath,
        log: () => {}
      })
    ))
    const deadline = Date.now() + 30_000
    while (query(w.acxHome, "SELECT count(*) AS n FROM memory_events WHERE state = 'pending'")[0]!["n"] > 0) {
      if (Date.now() > deadline) throw new Error("the batch was not stored")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    let timer: NodeJS.Timeout | undefined
    const stopped = await Promise.race([
      Effect.runPromise(Fiber.interrupt(fiber)).then(() => "stopped"),
      new Promise((resolve) => (timer = setTimeout(() => resolve("still running"), 30_000)))
    ]).finally(() => clearTimeout(timer))
    expect(stopped).toBe("stopped")
    expect(query(w.acxHome, "SELECT pid, stopped_at IS NOT NULL AS stopped FROM memory_worker")).toEqual([
      { pid: null, stopped: 1 }
    ])
    expect(query(w.acxHome, "SELECT title FROM memory_observations")).toEqual([
      { title: "Still going" },
      { title: "Still going" }
    ])
  }, 90_000)
})
