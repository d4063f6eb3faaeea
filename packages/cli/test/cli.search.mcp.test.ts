/**
 * The session tools of `acx memory mcp` (`search_sessions`, `get_session_turns`) over a store
 * `acx sync` filled from the real fixtures plus a planted session with secrets:
 *
 * - the official MCP TypeScript client over stdio: `tools/list` shows both with their input
 *   schemas; calls return masked hits and turns; bad arguments and refused queries are tool
 *   errors and the server keeps answering; no store is a tool error saying to run `acx sync`;
 *   `--from` names another store (a missing file: an error, nothing created);
 * - `acx memory install --sessions-from`: one server, with `--from`; installing again without it
 *   replaces it (still one);
 * - the real Claude Code CLI against the model double: the scripted model calls
 *   `mcp__acx-memory__search_sessions`, and the hits reach its next request.
 *
 * One server answers the tool listing and the calls over the synced store; `--from`'s store is a
 * copy of it. Of `memory install`, the first run goes through the BUILT binary, the others run
 * `run` of `src/Cli.ts` in this process (`acxInProcess`), a process start each saved.
 */
import * as Fixtures from "@acx/fixtures"
import * as SessionSearch from "@acx/session-store/SessionSearch"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { makeSecrets, plantSession, secretFragments } from "./utils/plantedSecrets.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const BEADS_SESSION = "258c7280-ae70-4798-800f-63464d01a85d"

interface ToolAnswer {
  readonly isError?: boolean
  readonly structuredContent?: unknown
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
}

interface TurnsAnswer {
  readonly sessionId: string
  readonly projectKey: string
  readonly totalTurns: number
  readonly turns: ReadonlyArray<{ readonly turn: number; readonly uuids: ReadonlyArray<string>; readonly text: string }>
}

let root = ""
let home = ""
let built: Fixtures.BuiltConfigDir
const secrets = makeSecrets()
let planted: ReturnType<typeof plantSession>

beforeAll(async () => {
  root = tempDir("search-mcp")
  home = path.join(root, "acx")
  built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
  planted = plantSession(built.configDir, "planted-secrets", secrets, Date.parse("2026-03-10T12:00:00Z"))
  const sync = await acx(["sync", "--config-dir", built.configDir], { env: { ACX_HOME: home } })
  expect(sync.code, sync.stderr).toBe(0)
  // another store for --from: the synced one, copied before any server opened it
  for (const name of fs.readdirSync(home).filter((name) => name.startsWith("sessions.db"))) {
    fs.copyFileSync(path.join(home, name), path.join(root, name.replace("sessions.db", "other.db")))
  }
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  if (homeClient !== undefined) await (await homeClient).close()
  await removeTreeWhenIdle(root)
}, 70_000)

/** A client connected to `acx memory mcp [args]` with `ACX_HOME` = `acxHome`. */
const connect = async (acxHome: string, args: ReadonlyArray<string>) => {
  const env = { ...process.env, ACX_HOME: acxHome } as Record<string, string>
  const client = new Client({ name: "acx-test", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "memory", "mcp", ...args], env, stderr: "pipe" })
  )
  return client
}

// one server over the synced store for the tests that only read it (closed after all)
let homeClient: Promise<Client> | undefined
const withHomeClient = async <A>(use: (client: Client) => Promise<A>) => use(await (homeClient ??= connect(home, [])))

/** A client connected to `acx memory mcp [args]` with `ACX_HOME` = `acxHome`; closed after `use`. */
const withClient = async <A>(acxHome: string, args: ReadonlyArray<string>, use: (client: Client) => Promise<A>) => {
  const client = await connect(acxHome, args)
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as unknown as ToolAnswer

const errorText = (answer: ToolAnswer) => {
  expect(answer.isError, JSON.stringify(answer)).toBe(true)
  return answer.content.map((part) => part.text ?? "").join("\n")
}

describe("acx memory mcp: search_sessions and get_session_turns", () => {
  it("lists both tools with their input schemas", { timeout: TEST_TIMEOUT_MS }, async () => {
    await withHomeClient(async (client) => {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        "get_observations",
        "get_session_turns",
        "search",
        "search_sessions",
        "timeline"
      ])
      const search = tools.find((tool) => tool.name === "search_sessions")!
      expect(search.inputSchema.required).toEqual(["query"])
      expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual([
        "limit",
        "project",
        "query",
        "role",
        "since"
      ])
      expect(search.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
      const turns = tools.find((tool) => tool.name === "get_session_turns")!
      expect(turns.inputSchema.required).toEqual(["sessionId"])
      expect(Object.keys(turns.inputSchema.properties ?? {}).sort()).toEqual([
        "around",
        "fromTurn",
        "max",
        "sessionId",
        "subpath"
      ])
      expect(turns.description).toContain("2000 characters")
    })
  })

  it("searches and reads turns, every secret masked; bad arguments are tool errors and the server goes on", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const fragments = secretFragments(secrets)
    await withHomeClient(async (client) => {
      const beads = await call(client, "search_sessions", { query: "beads", project: "marot-spotter", role: "tool" })
      expect(beads.isError).toBeFalsy()
      const found = Schema.decodeUnknownSync(SessionSearch.SearchResult)(beads.structuredContent)
      expect(found.target).toBe(`sqlite:${path.join(home, "sessions.db")}`)
      expect(found.hits.length).toBeGreaterThan(0)
      expect(found.hits.every((hit) => hit.sessionId === BEADS_SESSION && hit.role === "tool")).toBe(true)

      // a hit's turn, by a prefix of its session id and its uuid
      const hit = found.hits[0]!
      const around = await call(client, "get_session_turns", { sessionId: "258c7280", around: hit.uuid, max: 3 })
      expect(around.isError, JSON.stringify(around.content)).toBeFalsy()
      const turns = around.structuredContent as TurnsAnswer
      expect(turns).toMatchObject({ sessionId: BEADS_SESSION, projectKey: "marot-spotter" })
      expect(turns.turns).toHaveLength(3)
      const holding = turns.turns.find((turn) => turn.uuids.includes(hit.uuid!))!
      expect(holding.text.toLowerCase()).toContain("beads")
      expect(holding.text).toMatch(/Tool call \w+ \(toolu_/)
      expect(turns.totalTurns).toBeGreaterThan(10)

      // secrets: in hits, and in the turns (the private key's result, the prompt with the keys)
      const zebra = await call(client, "search_sessions", { query: "zebrafinch", limit: 50 })
      const shown = JSON.stringify(zebra)
      expect((zebra.structuredContent as SessionSearch.SearchResult).hits.length).toBeGreaterThanOrEqual(4)
      for (const fragment of fragments) expect(shown).not.toContain(fragment)
      const all = await call(client, "get_session_turns", { sessionId: planted.sessionId })
      const text = JSON.stringify(all)
      expect((all.structuredContent as TurnsAnswer).turns.length).toBeGreaterThanOrEqual(4)
      for (const fragment of fragments) expect(text).not.toContain(fragment)
      for (const kind of ["anthropic-key", "github-token", "aws-access-key", "private-key", "env-secret"]) {
        expect(text).toContain(`[REDACTED:${kind}]`)
      }
      // a long field is cut, and says so
      expect(text).toMatch(/\[… cut: \d+ characters, the first 2000 shown\]/)

      // bad arguments, refused queries, unknown sessions: tool errors
      expect(errorText(await call(client, "search_sessions", { query: 5 }))).not.toBe("")
      expect(errorText(await call(client, "search_sessions", { query: "\"" }))).toContain("no word to search for")
      expect(errorText(await call(client, "search_sessions", { query: "-beads" }))).toContain("only excludes")
      expect(errorText(await call(client, "search_sessions", { query: "beads", since: "yesterday" }))).toContain(
        "not a day"
      )
      expect(errorText(await call(client, "search_sessions", { query: "a ".repeat(5000) }))).toContain("at most 32")
      expect(errorText(await call(client, "get_session_turns", { sessionId: "zz" }))).toContain("not a session id")
      expect(errorText(await call(client, "get_session_turns", { sessionId: "0000aaaa" }))).toContain("no session")
      expect(errorText(await call(client, "get_session_turns", { sessionId: BEADS_SESSION, around: "nope" })))
        .toContain(
          "no turn"
        )
      // a NUL, engine syntax, unicode: words or nothing, never an error
      for (const query of ["\u0000beads", "NEAR(beads", "beads*", "ünïcödé"]) {
        expect((await call(client, "search_sessions", { query })).isError, query).toBeFalsy()
      }
      // still answering
      const again = await call(client, "search_sessions", { query: "quokka" })
      expect((again.structuredContent as SessionSearch.SearchResult).hits).toHaveLength(2)
    })
  })

  it("no store: a tool error saying to run acx sync, the memory's own tools still answer", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const empty = path.join(root, "acx-empty")
    fs.mkdirSync(empty)
    await withClient(empty, [], async (client) => {
      const text = errorText(await call(client, "search_sessions", { query: "beads" }))
      expect(text).toContain("no session store at")
      expect(text).toContain("run `acx sync`")
      expect(errorText(await call(client, "get_session_turns", { sessionId: "258c7280" }))).toContain("acx sync")
      expect((await call(client, "search", { query: "cart" })).isError).toBeFalsy()
    })
    expect(fs.existsSync(path.join(empty, "sessions.db"))).toBe(false)
  })

  it(
    "--from: another store; a missing file is a tool error and nothing is created",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const other = path.join(root, "other.db")
      const empty = path.join(root, "acx-from")
      fs.mkdirSync(empty)
      await withClient(empty, ["--from", other], async (client) => {
        const found = (await call(client, "search_sessions", { query: "beads" }))
          .structuredContent as SessionSearch.SearchResult
        expect(found.target).toBe(`sqlite:${other}`)
        expect(found.hits.length).toBeGreaterThan(0)
      })
      const missing = path.join(root, "missing.db")
      await withClient(empty, ["--from", missing], async (client) => {
        expect(errorText(await call(client, "search_sessions", { query: "beads" }))).toContain(
          `no store at ${missing}: it does not exist`
        )
      })
      expect(fs.existsSync(missing)).toBe(false)
    }
  )

  it("acx memory install --sessions-from registers one server with --from; again without it, still one", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const userHome = path.join(root, "install-home")
    fs.mkdirSync(userHome)
    const env = { HOME: userHome, ACX_HOME: path.join(userHome, ".acx") }
    const servers = () =>
      (JSON.parse(fs.readFileSync(path.join(userHome, ".claude.json"), "utf8")) as {
        mcpServers: Record<string, { args: ReadonlyArray<string> }>
      }).mcpServers
    const first = await acx(["memory", "install", "--sessions-from", "./sessions.db"], { env, cwd: root })
    expect(first.code, first.stderr).toBe(0)
    expect(Object.keys(servers())).toEqual(["acx-memory"])
    expect(servers()["acx-memory"]!.args.slice(-4)).toEqual([
      "memory",
      "mcp",
      "--from",
      `sqlite:${path.join(root, "sessions.db")}`
    ])
    const second = await acxInProcess(["memory", "install"], { env, cwd: root })
    expect(second.code, second.stderr).toBe(0)
    expect(Object.keys(servers())).toEqual(["acx-memory"])
    expect(servers()["acx-memory"]!.args.slice(-2)).toEqual(["memory", "mcp"])
    const bad = await acxInProcess(["memory", "install", "--sessions-from", "postgress://u:s3cret@h/db"], {
      env,
      cwd: root
    })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--sessions-from: expected sqlite:FILE")
    expect(bad.stderr).not.toContain("s3cret")
    // uninstall removes the one server
    expect((await acxInProcess(["memory", "uninstall"], { env, cwd: root })).code).toBe(0)
    // the file install created goes with it
    expect(fs.existsSync(path.join(userHome, ".claude.json")) ? servers()["acx-memory"] : undefined).toBeUndefined()
  })
})

describe.skipIf(!claude.available)("the real Claude Code CLI calls search_sessions", () => {
  it("the scripted model calls mcp__acx-memory__search_sessions and the hits reach its next request", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const binary = claude.available ? claude.path : ""
    const userHome = path.join(root, "claude-home")
    const project = path.join(root, "project")
    fs.mkdirSync(path.join(userHome, ".claude"), { recursive: true })
    fs.mkdirSync(project)
    const double = await ModelDouble.startModelDouble({
      script: (request) => {
        if (ModelDouble.isSideCall(request)) return { content: "Beads" }
        return ModelDouble.toolResultCount(request) === 0
          ? {
            content: [{
              type: "tool_use",
              name: "mcp__acx-memory__search_sessions",
              input: { query: "beads", limit: 3 }
            }]
          }
          : { content: "Found them." }
      }
    })
    try {
      const real = await realClaude({ baseUrl: double.url, path: binary })
      const env = real.env(userHome)
      await promisify(execFile)(
        binary,
        [
          "mcp",
          "add",
          "-s",
          "user",
          "acx-memory",
          "-e",
          `ACX_HOME=${home}`,
          "--",
          process.execPath,
          BIN,
          "memory",
          "mcp"
        ],
        { env, cwd: project, timeout: 60_000 }
      )
      const run = await real.run({
        prompt: "Where did we talk about beads?",
        cwd: project,
        home: userHome,
        allowedTools: ["mcp__acx-memory__search_sessions"],
        env: { MCP_CONNECTION_NONBLOCKING: "false" }
      })
      expect(run.exitCode, run.stderr).toBe(0)
      const answered = double.requests().find((request) =>
        !ModelDouble.isSideCall(request) && ModelDouble.toolResultCount(request) === 1
      )
      expect(answered).toBeDefined()
      const toolResult = JSON.stringify(ModelDouble.lastToolResultMessage(answered!))
      expect(toolResult).toContain(BEADS_SESSION)
      expect(toolResult).toContain("**beads**")
      expect(toolResult).not.toContain("is_error\":true")
      expect(run.messages.at(-1)).toMatchObject({ type: "result", subtype: "success" })
    } finally {
      await double.close()
    }
  })
})
