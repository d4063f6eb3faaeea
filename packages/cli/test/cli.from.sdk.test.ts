/**
 * A store an app's agent filled through the SDK: the REAL Claude Code CLI (offline, against the
 * model double) run by the SDK's `query({ sessionStore })` into an acx SQLite store and a
 * Postgres store, a turn with a Bash call and a Task subagent. `acx sessions --from`, `show
 * --from` and `stats --from` read the store as they read the config dir the CLI wrote beside it:
 * the same listing (but where each transcript is), the same Markdown for the session and its
 * subagent, the same tokens.
 *
 * The store's side over SQLite runs through the BUILT binary (`acx`: the bundle and its fast read
 * paths); the dir's side and the Postgres store's run the same `run` in this process
 * (`acxInProcess`, the full path), a process start each saved.
 */
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { query } from "@anthropic-ai/claude-agent-sdk"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] SDK sessionStore tests skipped: ${claude.reason}`)
const PG_URL = process.env["ACX_PG_URL"]

const MODEL = "claude-sonnet-4-5"
const SUBAGENT_PROMPT = "Count the lines of notes.txt"
const inSubagent = (request: ModelDouble.ModelRequest) =>
  JSON.stringify((request.body["messages"] as ReadonlyArray<unknown>)[0] ?? "").includes(SUBAGENT_PROMPT)

const script: ModelDouble.Script = [
  {
    when: (r) => inSubagent(r) && !ModelDouble.lastMessageHasToolResult(r),
    reply: {
      content: [{ type: "tool_use", name: "Bash", input: { command: "wc -l < notes.txt" } }],
      usage: { inputTokens: 500, outputTokens: 20 }
    }
  },
  {
    when: (r) => inSubagent(r) && ModelDouble.lastMessageHasToolResult(r),
    reply: { content: "notes.txt has 3 lines.", usage: { inputTokens: 600, outputTokens: 15 } }
  },
  {
    when: ModelDouble.userSays("Look at the notes"),
    reply: {
      content: [{ type: "text", text: "Listing them." }, { type: "tool_use", name: "Bash", input: { command: "ls" } }],
      usage: { inputTokens: 2000, outputTokens: 50, cacheReadInputTokens: 1000 }
    }
  },
  {
    when: (r) => ModelDouble.lastMessageHasToolResult(r) && !JSON.stringify(r.body["messages"]).includes("3 lines"),
    reply: {
      content: [{
        type: "tool_use",
        name: "Task",
        input: {
          description: "Count lines",
          prompt: SUBAGENT_PROMPT,
          subagent_type: "general-purpose",
          run_in_background: false
        }
      }],
      usage: { inputTokens: 2100, outputTokens: 60 }
    }
  },
  {
    when: ModelDouble.lastMessageHasToolResult,
    reply: { content: "The notes have 3 lines.", usage: { inputTokens: 2200, outputTokens: 25 } }
  }
]

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

interface Backend {
  readonly name: string
  readonly skip: boolean
  readonly spec: string
  readonly open: () => Sdk.SessionStore & { readonly close: () => Promise<void> }
  readonly cleanUp: () => Promise<void>
}

const root = tempDir("from-sdk")
afterAll(() => removeTreeWhenIdle(root), 70_000)
const schema = `acx_from_sdk_${process.pid}_${randomUUID().slice(0, 8)}`
const pgSpec = (() => {
  if (PG_URL === undefined) return ""
  const url = new URL(PG_URL)
  url.searchParams.set("schema", schema)
  return url.href
})()
const sqliteFile = path.join(root, "app.db")

const backends: ReadonlyArray<Backend> = [
  {
    name: "SQLite",
    skip: false,
    spec: `sqlite:${sqliteFile}`,
    open: () => createSqliteSessionStore({ filename: sqliteFile }),
    cleanUp: async () => {}
  },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    spec: pgSpec,
    open: () => createPostgresSessionStore({ url: PG_URL!, schema }),
    cleanUp: () => dropSchema(PG_URL!, schema)
  }
]

describe.runIf(claude.available).each(backends)("an app's agent mirrored into a $name store", (backend) => {
  let double: ModelDouble.ModelDoubleHandle
  let home = ""
  let sessionId = ""
  const env = { ACX_HOME: path.join(root, `acx-${backend.name}`) }
  const dir = () => ["--config-dir", path.join(home, ".claude")]
  const from = () => ["--from", backend.spec]
  // the store's side through the binary over SQLite, in process over Postgres; the dir's in process
  const onStore = (args: ReadonlyArray<string>) =>
    (backend.name === "SQLite" ? acx : acxInProcess)([...args, ...from()], { env })
  const onDir = (args: ReadonlyArray<string>) => acxInProcess([...args, ...dir()], { env })

  beforeAll(async () => {
    if (backend.skip) return
    double = await ModelDouble.startModelDouble({ script })
    home = path.join(root, `home-${backend.name}`)
    const cwd = path.join(root, `project-${backend.name}`)
    fs.mkdirSync(home)
    fs.mkdirSync(cwd)
    fs.writeFileSync(path.join(cwd, "notes.txt"), "one\ntwo\nthree\n")
    const cli = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
    const sessionStore = backend.open()
    try {
      for await (
        const message of query({
          prompt: "Look at the notes",
          options: {
            ...cli.queryOptions(home),
            cwd: fs.realpathSync(cwd),
            sessionStore,
            allowedTools: ["Bash", "Task"],
            model: MODEL
          }
        })
      ) {
        if (message.type === "result") {
          expect(message.subtype).toBe("success")
          sessionId = message.session_id
        }
      }
    } finally {
      await sessionStore.close()
    }
  }, TEST_TIMEOUT_MS)
  afterAll(async () => {
    await double?.close()
    if (!backend.skip) await backend.cleanUp()
  })

  it.skipIf(backend.skip)(
    "acx sessions --from lists it as the config dir does",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // where it comes from: this machine for the directory; the SDK's mirroring records no origin
      const strip = (rows: Array<Record<string, unknown>>) =>
        rows.map(({ file: _f, machine: _h, mtime: _m, project: _p, size: _s, ...rest }) => rest)
      const fromDir = parseJson(ok(await onDir(["sessions", "--json"])))
      const fromStore = parseJson(ok(await onStore(["sessions", "--json"])))
      expect(fromStore.map((row: { sessionId: string }) => row.sessionId)).toEqual([sessionId])
      expect(strip(fromStore)).toEqual(strip(fromDir))
      expect(fromStore[0].firstPrompt).toBe("Look at the notes")
      expect([fromStore[0].project, fromStore[0].machine]).toEqual([undefined, undefined])
      expect(typeof fromDir[0].machine).toBe("string")
    }
  )

  it.skipIf(backend.skip)("acx show --from: the session with its tool call, and its subagent", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const fromDir = ok(await onDir(["show", sessionId])).stdout
    const fromStore = ok(await onStore(["show", sessionId])).stdout
    expect(fromStore).toBe(fromDir)
    expect(fromStore).toContain("Look at the notes")
    expect(fromStore).toMatch(/Bash/)
    expect(fromStore).toContain("The notes have 3 lines.")
    const agents = /subagent transcripts?: ([\w-]+)/.exec(fromStore)
    expect(agents, fromStore.slice(-300)).not.toBeNull()
    const agent = ok(await onStore(["show", agents![1]!])).stdout
    expect(agent).toBe(ok(await onDir(["show", agents![1]!])).stdout)
    expect(agent).toContain(SUBAGENT_PROMPT)
    expect(agent).toContain("notes.txt has 3 lines.")
  })

  it.skipIf(backend.skip)("acx stats --from: the dir's tokens and costs", { timeout: TEST_TIMEOUT_MS }, async () => {
    const report = ({ malformed: _m, read: _r, ...rest }: Record<string, unknown>) => rest
    const fromDir = parseJson(ok(await onDir(["stats", "--json"])))
    const fromStore = parseJson(ok(await onStore(["stats", "--json"])))
    expect(report(fromStore)).toEqual(report(fromDir))
    // the main loop's three replies and the subagent's two
    expect(fromStore.total.tokens.input).toBe(2000 + 2100 + 2200 + 500 + 600)
    expect(fromStore.total.subagents).toBe(1)
  })
})
