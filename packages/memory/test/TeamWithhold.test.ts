/**
 * What the team push withholds, on a real memory database and a real Postgres (a fresh schema per
 * test): no prompt and no tool input of a session leaves in any text of its entries, nor a run of
 * 20 characters of one, whoever wrote the entry. The model observer is the REAL Claude Code CLI
 * against the model double, scripted to quote the prompt and the command everywhere it can (title,
 * subtitle, narrative, facts, concepts, files, every summary field, changed case and line
 * breaks): the push enforces, it does not trust the model. The files the session's tools named
 * go as they are; the local observer's observations of prompts and commands stay on the machine.
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { leaks, stringsOf } from "@acx/testing/VerbatimLeaks"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as Withhold from "../src/internal/teamWithhold.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryWorker from "../src/MemoryWorker.js"
import * as TeamConfig from "../src/TeamConfig.js"
import * as TeamSync from "../src/TeamSync.js"
import { dropSchema, freshSchema, pgQuery, pgUrl } from "./utils/teamPostgres.js"
import { hooksOf, provideDatabase, query } from "./utils/world.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const REMOTE = "github.com/acme/shop"
const PROMPT = "Totals are off by one cent on invoices with three or more lines; find the rounding bug"
const COMMAND = "node scripts/reconcile.mjs --invoices fixtures/march.json --verbose | tail -n 25"
const FILE = "src/invoice/rounding.ts"

const roots: Array<string> = []
const schemas: Array<string> = []
afterEach(async () => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
  for (const schema of schemas.splice(0)) await dropSchema(schema)
})

const world = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-team-withhold-"))
  roots.push(root)
  const schema = freshSchema()
  schemas.push(schema)
  const home = path.join(root, "acx")
  const project = path.join(root, "src", "shop")
  for (const dir of [home, project, path.join(root, "home", ".claude")]) fs.mkdirSync(dir, { recursive: true })
  const settings = Either.getOrThrow(
    TeamConfig.fromUrl(`${pgUrl()}${pgUrl().includes("?") ? "&" : "?"}schema=${schema}`, {
      user: "ana",
      machine: "ana-laptop"
    })
  )
  return { root, schema, home, project, settings }
}

/** One session through the real hook: the prompt, the command (failing), the edit. */
const work = (home: string, project: string, sessionId: string) => {
  const at = hooksOf(home, project, sessionId)
  at("UserPromptSubmit", { prompt: PROMPT })
  at("PostToolUseFailure", {
    tool_name: "Bash",
    tool_use_id: `${sessionId}-bash`,
    tool_input: { command: COMMAND },
    error: "Exit code 1"
  })
  at("PostToolUse", {
    tool_name: "Edit",
    tool_use_id: `${sessionId}-edit`,
    tool_input: { file_path: path.join(project, FILE), old_string: "Math.round(x)", new_string: "roundHalfEven(x)" },
    tool_response: {}
  })
  at("Stop", { stop_hook_active: false })
}

/** Every string in the schema's team tables: each text column, each item of each list. */
const sharedStrings = async (schema: string): Promise<Array<string>> => {
  const out: Array<string> = []
  for (const table of ["memory_observations", "memory_summaries"]) {
    stringsOf(
      (await pgQuery(`SELECT to_jsonb(t) - 'search' AS row FROM "${schema}".${table} t`)).map((r) => r["row"]),
      out
    )
  }
  return out
}

const sync = (home: string, settings: TeamConfig.TeamSettings, project: string) =>
  Effect.runPromise(
    provideDatabase(home, TeamSync.syncOnce({ settings, identify: (cwd) => cwd === project ? REMOTE : cwd }))
  )

describe("the team push withholds prompts and tool inputs", () => {
  it("finds a quote with its case and line breaks changed; keeps what is not a quote", () => {
    const verbatim = Withhold.index([PROMPT, COMMAND], ["/p/src/a.ts"])
    const changed = `The user: "${PROMPT.toUpperCase().replace(/ /g, "\n  ")}" — so we looked.`
    const withheld = Withhold.withhold(changed, verbatim)
    expect(withheld.runs).toBe(1)
    expect(withheld.text).toBe(`The user: "${Withhold.WITHHELD}" — so we looked.`)
    // two quotes, one text: both go
    const twice = Withhold.withhold(`ran ${COMMAND}; asked ${PROMPT}`, verbatim)
    expect(twice).toEqual({ text: `ran ${Withhold.WITHHELD}; asked ${Withhold.WITHHELD}`, runs: 2 })
    // 19 characters of it stay: shorter runs are ordinary words
    expect(Withhold.withhold(`about ${PROMPT.slice(0, 19)}!`, verbatim).runs).toBe(0)
    expect(Withhold.withhold("Rounding is half-even since the fix in rounding.ts", verbatim).runs).toBe(0)
    // a file path of the tools is not a text: the tool input's other values are
    expect(Withhold.index([], ["/p/src/a.ts"]).windows.size).toBe(0)
    const texts: Array<string> = []
    const files: Array<string> = []
    Withhold.inputTexts({ file_path: "/p/src/a.ts", edits: [{ old_string: "x", new_string: "yy" }] }, texts, files)
    expect({ texts, files }).toEqual({ texts: ["x", "yy"], files: ["/p/src/a.ts"] })
  })

  it("a local session: the prompt's and the command's observations stay here, nothing quoted leaves", async () => {
    const { home, project, schema, settings } = world()
    work(home, project, "s-local")
    await Effect.runPromise(
      provideDatabase(
        home,
        MemoryWorker.run({
          home,
          env: {},
          config: { ...MemoryConfig.defaults, batchWaitSeconds: 0, mode: "local" },
          idleTimeout: 0,
          log: () => {}
        })
      )
    )
    const local = query(home, "SELECT title, concepts FROM memory_observations ORDER BY id")
    expect(local.map((row) => row["title"])).toContain(`User asked: ${PROMPT}`)
    const report = await sync(home, settings, project)
    expect(report.kept).toBe(2)
    expect(report.pushed).toBeGreaterThan(0)
    const shared = await sharedStrings(schema)
    expect(shared).toContain(FILE)
    for (const text of [PROMPT, COMMAND]) expect(leaks(text, shared), text).toEqual([])
    // and a rerun sends nothing more: the kept ones are never pushed later
    expect(await sync(home, settings, project)).toMatchObject({ pushed: 0, kept: 0 })
  }, 60_000)

  describe.skipIf(!claude.available)("with the real Claude Code CLI as the observer", () => {
    const isObserver = ModelDouble.systemMentions("acx's memory observer")
    const quoting = `<observation><type>bugfix</type><title>Asked: ${PROMPT}</title>` +
      `<subtitle>${COMMAND.toUpperCase()}</subtitle>` +
      `<facts><fact>ran ${COMMAND}</fact><fact>Rounding is half-even now</fact></facts>` +
      `<narrative>The user wrote "${PROMPT.replace(/ /g, "\n")}". We ran ${COMMAND} and fixed it.</narrative>` +
      `<concepts><concept>${PROMPT}</concept><concept>rounding</concept></concepts>` +
      `<files_read><file>${COMMAND}</file></files_read>` +
      `<files_modified><file>${FILE}</file><file>${PROMPT}</file></files_modified></observation>`
    const summary = `<summary><request>${PROMPT}</request><investigated>${COMMAND}</investigated>` +
      `<learned>Rounding per line; ${PROMPT}</learned><completed>ran ${COMMAND}</completed>` +
      `<next_steps>none</next_steps><files_read><file>${FILE}</file></files_read>` +
      `<files_edited><file>${FILE}</file></files_edited><notes>${PROMPT}</notes></summary>`

    it("a model reply that quotes the prompt and the command everywhere: none of it leaves", async () => {
      const { home, project, root, schema, settings } = world()
      const double = await ModelDouble.startModelDouble({
        script: (request) => {
          if (!isObserver(request)) return { content: "title", usage: { inputTokens: 0, outputTokens: 0 } }
          const text = ModelDouble.lastUserText(request) ?? ""
          return { content: text.includes("SESSION CHECKPOINT") ? summary : quoting }
        }
      })
      try {
        const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
        work(home, project, "s-model")
        await Effect.runPromise(provideDatabase(
          home,
          MemoryWorker.run({
            home,
            env: { ...process.env, ...real.env(path.join(root, "home")) },
            config: { ...MemoryConfig.defaults, batchWaitSeconds: 0, mode: "model" },
            idleTimeout: 0,
            pathToClaudeCodeExecutable: claude.available ? claude.path : undefined,
            log: () => {}
          })
        ))
        // the model's entries are stored here as it wrote them
        expect(query(home, "SELECT title, source FROM memory_observations")).toEqual([
          { title: `Asked: ${PROMPT}`, source: "model" }
        ])
        expect(query(home, "SELECT request FROM memory_summaries")).toEqual([{ request: PROMPT }])
        const report = await sync(home, settings, project)
        expect(report).toMatchObject({ pushed: 2, kept: 0 })
        expect(report.withheld).toBeGreaterThanOrEqual(10)
        const shared = await sharedStrings(schema)
        for (const text of [PROMPT, COMMAND]) expect(leaks(text, shared), text).toEqual([])
        // what is not a quote goes: the fact, the concept, the file the tools edited
        expect(shared).toEqual(expect.arrayContaining(["Rounding is half-even now", "rounding", FILE]))
        expect(shared).toContain(`Asked: ${Withhold.WITHHELD}`)
      } finally {
        await double.close()
      }
    }, 120_000)
  })
})
