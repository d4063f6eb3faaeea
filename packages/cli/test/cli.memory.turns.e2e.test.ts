/**
 * Every turn is remembered, on the REAL Claude Code CLI (offline, the model double scripted): a
 * three-turn session (`claude -p`, then `--resume` twice) whose prompts are all "yes, continue"
 * and whose Stop bodies are alike (every turn ends with "Done.") keeps three prompts, and every
 * turn's edited file reaches a summary. Only a re-delivery of the same hook call is a duplicate:
 * each real payload fed to `acx hook` a second time stores nothing new. Run twice: with the
 * payloads as this CLI sends them (every event of a turn carries its `prompt_id`), and with
 * `prompt_id` taken out, as a CLI that sends none would (the turn is the transcript's position).
 */
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN } from "./utils/acx.js"
import { query, removeTreeWhenIdle, waitFor } from "./utils/memory.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const PROMPT = "yes, continue"
const FILES = ["one.js", "two.js", "three.js"]

/** How many prompts the conversation has had (user messages with text and no tool result). */
const promptCount = (request: ModelDouble.ModelRequest): number => {
  const messages = request.body["messages"]
  if (!Array.isArray(messages)) return 0
  return messages.filter((message: { role?: unknown; content?: unknown }) => {
    if (message.role !== "user") return false
    if (typeof message.content === "string") return message.content.includes(PROMPT)
    return Array.isArray(message.content) &&
      message.content.some((block: { type?: unknown; text?: unknown }) =>
        block.type === "text" && typeof block.text === "string" && block.text.includes(PROMPT)
      ) &&
      !message.content.some((block: { type?: unknown }) => block.type === "tool_result")
  }).length
}

/** Turn n edits file n once, then says "Done." (every Stop body alike). */
const script = (project: string) => (request: ModelDouble.ModelRequest): ModelDouble.ModelAnswer => {
  if (ModelDouble.isSideCall(request)) return { content: "Continue" }
  const turn = promptCount(request)
  if (ModelDouble.toolResultCount(request) >= turn) return { content: "Done." }
  const file = path.join(project, FILES[(turn - 1) % FILES.length]!)
  return {
    content: [{
      type: "tool_use",
      name: "Edit",
      input: { file_path: file, old_string: "const step = 0", new_string: `const step = ${turn}` }
    }]
  }
}

/** `acx hook <event>` with `stdin`, as Claude Code runs it. */
const hook = (env: Record<string, string>, event: string, stdin: string) =>
  new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "hook", event], { env, stdio: ["pipe", "ignore", "ignore"] })
    child.on("error", reject)
    child.on("close", resolve)
    child.stdin.end(stdin)
  })

/**
 * A hook command that hands its stdin to `acx hook <event>` without `prompt_id`, as a Claude Code
 * that sends none would: the turn is then the transcript's position.
 */
const STRIP = `
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
const [bin, event] = process.argv.slice(2)
const input = JSON.parse(readFileSync(0, "utf8"))
delete input.prompt_id
spawnSync(process.execPath, [bin, "hook", event], { input: JSON.stringify(input), stdio: ["pipe", "inherit", "inherit"] })
`

const VARIANTS = [
  { name: "as Claude Code sends them (with prompt_id)", strip: false },
  { name: "without prompt_id (the transcript's position tells the turns apart)", strip: true }
] as const

describe.skipIf(!claude.available)("acx memory keeps every turn of a real Claude Code session", () => {
  let double: ModelDouble.ModelDoubleHandle
  const roots: Array<string> = []
  let project = ""

  beforeAll(async () => {
    double = await ModelDouble.startModelDouble({ script: (request) => script(project)(request) })
  }, 60_000)

  afterAll(async () => {
    await double?.close()
    await Promise.all(roots.map((root) => removeTreeWhenIdle(root)))
  }, 70_000)

  it.each(VARIANTS)(
    "three identical prompts and Stop bodies, $name: three prompts, every turn's files",
    async ({ strip }) => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-turns-"))
      roots.push(root)
      const home = path.join(root, "home")
      project = path.join(root, "app")
      fs.mkdirSync(path.join(home, ".acx"), { recursive: true })
      fs.mkdirSync(project)
      for (const file of FILES) fs.writeFileSync(path.join(project, file), "const step = 0\n")
      // local observations: deterministic summaries listing the files each covers
      fs.writeFileSync(
        path.join(home, ".acx", "config.json"),
        JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.05 } })
      )
      const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
      const env = { ...real.env(home), ACX_CLAUDE_PATH: real.path }

      const install = await acx(["memory", "install"], { env })
      expect(install.code, install.stderr).toBe(0)
      // a witness hook beside acx's: every payload Claude Code sent, to deliver again below
      const witness = path.join(root, "witness.mjs")
      const log = path.join(root, "payloads.jsonl")
      fs.writeFileSync(
        witness,
        `import { appendFileSync, readFileSync } from "node:fs"\n` +
          `appendFileSync(${JSON.stringify(log)}, JSON.stringify(readFileSync(0, "utf8")) + "\\n")\n`
      )
      const stripper = path.join(root, "strip.mjs")
      fs.writeFileSync(stripper, STRIP)
      const settingsFile = path.join(home, ".claude", "settings.json")
      const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"))
      for (const event of ["UserPromptSubmit", "Stop", "SessionEnd"]) {
        if (strip) {
          settings.hooks[event] = [{
            hooks: [{ type: "command", command: `"${process.execPath}" "${stripper}" "${BIN}" ${event}` }]
          }]
        }
        if (event !== "SessionEnd") {
          settings.hooks[event].push({ hooks: [{ type: "command", command: `"${process.execPath}" "${witness}"` }] })
        }
      }
      fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2))

      let sessionId: string | undefined
      for (let turn = 1; turn <= 3; turn++) {
        const run = await real.run({ prompt: PROMPT, cwd: project, home, allowedTools: ["Edit"], resume: sessionId })
        expect(run.exitCode, run.stderr).toBe(0)
        sessionId ??= run.sessionId
        expect(run.sessionId).toBe(sessionId)
      }
      for (const [i, file] of FILES.entries()) {
        expect(fs.readFileSync(path.join(project, file), "utf8")).toBe(`const step = ${i + 1}\n`)
      }

      const database = path.join(home, ".acx", "memory.db")
      const settled = () =>
        query(database, "SELECT count(*) AS n FROM memory_events WHERE state != 'done'")[0]!["n"] === 0 &&
        query(database, "SELECT count(*) AS n FROM memory_worker WHERE pid IS NOT NULL")[0]!["n"] === 0
      await waitFor("the worker to finish", () => fs.existsSync(database) && settled())
      expect(query(database, "SELECT prompt_number, text FROM memory_prompts ORDER BY id")).toEqual([
        { prompt_number: 1, text: PROMPT },
        { prompt_number: 2, text: PROMPT },
        { prompt_number: 3, text: PROMPT }
      ])
      const kinds = query(database, "SELECT kind, tool_name FROM memory_events ORDER BY id")
        .map((event) => event["tool_name"] ?? event["kind"])
      expect(kinds.filter((kind) => kind === "prompt")).toHaveLength(3)
      expect(kinds.filter((kind) => kind === "Edit")).toHaveLength(3)
      // a Stop and a SessionEnd per run
      expect(kinds.filter((kind) => kind === "summarise")).toHaveLength(6)
      const edited = query(database, "SELECT files_edited FROM memory_summaries ORDER BY id")
        .flatMap((row) => JSON.parse(row["files_edited"]) as Array<string>)
      expect([...new Set(edited)].sort()).toEqual([...FILES].sort())

      const payloads = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as string)
      expect(payloads).toHaveLength(6)
      // Claude Code's Stop bodies of the three turns differ in nothing but the turn they carry
      const stops = payloads.map((payload) => JSON.parse(payload)).filter((input) => input.hook_event_name === "Stop")
      expect(new Set(stops.map(({ prompt_id: _, ...rest }) => JSON.stringify(rest))).size).toBe(1)
      if (strip) return
      // the very same hook calls delivered again: nothing new is stored
      const before = query(database, "SELECT count(*) AS n FROM memory_events")[0]!["n"]
      for (const payload of payloads) {
        const event = (JSON.parse(payload) as { hook_event_name: string }).hook_event_name
        expect(await hook({ ...env, ACX_HOME: path.join(home, ".acx") }, event, payload)).toBe(0)
      }
      expect(query(database, "SELECT count(*) AS n FROM memory_events")[0]!["n"]).toBe(before)
      expect(query(database, "SELECT count(*) AS n FROM memory_prompts")[0]!["n"]).toBe(3)
    },
    240_000
  )
})
