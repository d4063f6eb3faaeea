/**
 * End-to-end tests of the BUILT `acx` binary on the real Claude Code fixtures (copied into a
 * temporary config directory in Claude Code layout): help, sessions, show, stats, fork, demo.
 * Import and push are in cli.import.test.ts, bad input in cli.badinput.test.ts.
 *
 * Each promise is checked through the binary once; further command lines of the same promise
 * (more sessions, more help pages) run `run` of `src/Cli.ts` in this process (`acxInProcess`), a
 * process start each saved.
 */
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import * as TranscriptBlobs from "@acx/convert/TranscriptBlobs"
import * as Fixtures from "@acx/fixtures"
import type * as Transcript from "@acx/schema/Transcript"
import { detectClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  acx,
  type AcxResult,
  listTree,
  parseableLines,
  parseJson,
  plain,
  removeDir,
  tempDir,
  TEST_TIMEOUT_MS
} from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

// The crud fixture: a short, single-file session (no subagents) whose numbers are checked by hand.
const CRUD = { projectKey: "tomjnsn-agentlogs", source: "tomjnsn-agentlogs/crud.jsonl" }

const ok = (result: AcxResult) => {
  expect(result.stderr, "stderr").toBe("")
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

describe.concurrent("acx --help / --version (no fixtures needed)", () => {
  const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["sessions", ["--config-dir", "--from", "--project", "--json"]],
    ["show", [
      "--format",
      "markdown",
      "anthropic",
      "jsonl",
      "--no-thinking",
      "--agent",
      "--uuids",
      "--project",
      "--config-dir",
      "--from",
      "<id>"
    ]],
    ["stats", ["--project", "--json", "--config-dir", "--from"]],
    ["import", ["--from", "--to", "--project", "--batch-size", "--json"]],
    ["push", ["--base-url", "--thinking", "--include-sidechains", "--json", "--project", "<id>"]],
    ["fork", ["--at", "--title", "--json", "--project", "--from", "<id>"]],
    ["demo", ["--dir", "--generated", "--thinking", "--json"]]
  ]

  // (cli.help.test.ts runs the binary's help into a pipe)
  it("acx --help lists every subcommand", { timeout: TEST_TIMEOUT_MS }, async () => {
    const help = plain(ok(await acxInProcess(["--help"])).stdout)
    expect(help).toContain("acx 0.1.0")
    for (const [name] of commands) expect(help).toMatch(new RegExp(`^${name} `, "m"))
  })

  it("acx --version prints the version", { timeout: TEST_TIMEOUT_MS }, async () => {
    expect(ok(await acx(["--version"])).stdout.trim()).toBe("0.1.0")
  })

  it.each(commands)("acx %s --help mentions its options", { timeout: TEST_TIMEOUT_MS }, async (name, options) => {
    const help = plain(ok(await acxInProcess([name, "--help"])).stdout)
    expect(help).toContain(`$ acx ${name}`)
    for (const option of options) expect(help).toContain(option)
  })

  it("an unknown subcommand is a usage error (exit 2)", { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = await acxInProcess(["frobnicate"])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
  })
})

describe(
  "acx on the fixtures",
  () => {
    let root = ""
    let built: Fixtures.BuiltConfigDir
    let env: Record<string, string> = {}
    const crud = () => built.sessions.find((session) => session.source.endsWith(CRUD.source))!
    // crud, the biggest session (subagents, compactions) and the smallest other one
    const representative = () => {
      const bySize = [...built.sessions].sort((a, b) => fs.statSync(a.file).size - fs.statSync(b.file).size)
      return [...new Set([crud(), bySize.at(-1)!, bySize.find((s) => s !== crud())!])]
    }

    beforeAll(() => {
      root = tempDir("e2e")
      built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
      env = { CLAUDE_CONFIG_DIR: built.configDir }
    })
    afterAll(() => removeDir(root))

    it("the fixture set has what these tests rely on", () => {
      expect(built.sessions.length).toBeGreaterThanOrEqual(3)
      expect(crud()).toBeDefined()
      expect(built.sessions.some((session) => session.subagents.length > 0)).toBe(true)
    })

    describe.concurrent("sessions", () => {
      it("--json lists every fixture session with its projectKey and sessionId", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const listed = parseJson<Array<Record<string, unknown>>>(ok(await acx(["sessions", "--json"], { env })))
        const got = listed.map((s) => `${String(s["projectKey"])}/${String(s["sessionId"])}`).sort()
        expect(got).toEqual(built.sessions.map((s) => `${s.projectKey}/${s.sessionId}`).sort())
        for (const session of built.sessions) {
          const row = listed.find((s) => s["sessionId"] === session.sessionId)!
          expect(row["file"]).toBe(session.file)
          expect(row["size"]).toBe(fs.statSync(session.file).size)
        }
        // last active first: the last entry's time, else the mtime
        const active = listed.map((s) =>
          typeof s["lastTime"] === "string" ? Date.parse(s["lastTime"]) : s["mtime"] as number
        )
        expect(active).toEqual([...active].sort((a, b) => b - a))
      })

      it("the table has one row per session with its id and project", { timeout: TEST_TIMEOUT_MS }, async () => {
        const lines = ok(await acx(["sessions"], { env })).stdout.trimEnd().split("\n")
        expect(lines[0]).toMatch(/^SESSION\s+PROJECT\s+LAST ACTIVE\s+SIZE\s+TITLE \/ FIRST PROMPT$/)
        expect(lines.length).toBe(built.sessions.length + 1)
        for (const session of built.sessions) {
          expect(lines.filter((line) => line.startsWith(`${session.sessionId}  ${session.projectKey} `))).toHaveLength(
            1
          )
        }
      })

      it("--project keeps one project; --config-dir overrides CLAUDE_CONFIG_DIR", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const listed = parseJson<Array<{ projectKey: string; sessionId: string }>>(
          ok(await acxInProcess(["sessions", "--json", "--project", CRUD.projectKey, "--config-dir", built.configDir]))
        )
        const expected = built.sessions.filter((s) => s.projectKey === CRUD.projectKey)
        expect(expected.length).toBeGreaterThan(0)
        expect(expected.length).toBeLessThan(built.sessions.length)
        expect(listed.map((s) => s.sessionId).sort()).toEqual(expected.map((s) => s.sessionId).sort())
      })

      it("an empty config dir says so (exit 0)", { timeout: TEST_TIMEOUT_MS }, async () => {
        const empty = path.join(root, "empty")
        fs.mkdirSync(path.join(empty, "projects"), { recursive: true })
        const result = ok(await acx(["sessions", "--config-dir", empty]))
        expect(result.stdout.trim()).toBe(`no sessions in ${path.join(empty, "projects")}`)
        expect(parseJson(ok(await acxInProcess(["sessions", "--json", "--config-dir", empty])))).toEqual([])
      })
    })

    describe.concurrent("show", () => {
      it("markdown has the first prompt and the tool names of the crud session", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const md = ok(await acx(["show", crud().sessionId], { env })).stdout
        expect(md.startsWith(`# ${crud().sessionId}`) || md.startsWith("# ")).toBe(true)
        expect(md).toContain("create a file `JOKE.md` with a ranom joke")
        for (const tool of ["TodoWrite", "Write", "Read", "Edit", "Bash"]) expect(md).toContain(`🔧 ${tool}`)
        // the edit as a diff, the todos as a checklist (ToolDisplay)
        expect(md).toContain(
          "```diff\n--- a/Users/philipp/dev/vibeinsights/fixtures/claudecode/JOKE.md\n" +
            "+++ b/Users/philipp/dev/vibeinsights/fixtures/claudecode/JOKE.md\n@@ -1,1 +1,3 @@\n" +
            "-Because it has too many bugs!\n"
        )
        expect(md).toContain("- [x] Create JOKE.md file with a joke, title, and footer\n- [ ] ◐ Read the JOKE.md file")
      })

      it("--format jsonl --no-mask re-serialises exactly the file's entries (an 8-character prefix as the id)", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        // crud through the binary, the others in process
        const sessions = representative()
        const outs = await Promise.all(
          sessions.map((session, i) =>
            (i === 0 ? acx : acxInProcess)(["show", session.sessionId.slice(0, 8), "--format", "jsonl", "--no-mask"], {
              env
            })
          )
        )
        for (const [i, session] of sessions.entries()) {
          const out = ok(outs[i]!).stdout
          expect(out.endsWith("\n")).toBe(true)
          const reread = out.trimEnd().split("\n").map((line) => JSON.parse(line) as unknown)
          expect(reread, session.source).toEqual(parseableLines(session.file))
        }
      })

      it("--format anthropic: alternating roles, same messages as ClaudePush.sessionBlobs", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        // crud through the binary, the others in process
        const sessions = representative()
        const outs = await Promise.all(
          sessions.map((session, i) =>
            (i === 0 ? acx : acxInProcess)(["show", session.sessionId, "--format", "anthropic", "--no-mask"], { env })
          )
        )
        for (const [i, session] of sessions.entries()) {
          const messages = parseJson<Array<{ role: string; content: unknown }>>(ok(outs[i]!))
          expect(Array.isArray(messages)).toBe(true)
          expect(messages.length, session.source).toBeGreaterThan(0)
          for (const message of messages) expect(["user", "assistant"]).toContain(message.role)
          // fragments are merged and tool results grouped: no two assistant messages in a row
          for (let i = 1; i < messages.length; i++) {
            const pair = `${messages[i - 1]!.role}→${messages[i]!.role}`
            expect(pair, `${session.source} message ${i}`).not.toBe("assistant→assistant")
          }
          const entries = parseableLines(session.file) as unknown as Array<Transcript.TranscriptEntry>
          const blobs = ClaudePush.sessionBlobs(entries, { includeThinking: true })
          expect(messages.length, session.source).toBe(blobs.length)
          expect(messages.map((m) => m.role)).toEqual(blobs.map((b) => b.blob.role))
        }
      })

      it("--no-thinking drops thinking blocks from the anthropic output", { timeout: TEST_TIMEOUT_MS }, async () => {
        const withThinking = built.sessions.find((session) =>
          fs.readFileSync(session.file, "utf8").includes("\"type\":\"thinking\"")
        )
        if (withThinking === undefined) return console.log("no fixture with thinking blocks; nothing to check")
        const [full, bare] = await Promise.all([
          acxInProcess(["show", withThinking.sessionId, "--format", "anthropic"], { env }),
          acx(["show", withThinking.sessionId, "--format", "anthropic", "--no-thinking"], { env })
        ])
        // a distinctive piece of the first non-trivial thinking text (stored as text by default)
        const thinking = parseableLines(withThinking.file).flatMap((e) => {
          const content = (e["message"] as { content?: unknown } | undefined)?.content
          return Array.isArray(content)
            ? content.flatMap((b: { type?: string; thinking?: string }) =>
              b.type === "thinking" && typeof b.thinking === "string" && b.thinking.length > 30 ? [b.thinking] : []
            )
            : []
        })[0]!
        const piece = JSON.stringify(thinking.slice(0, 30)).slice(1, -1)
        expect(ok(full).stdout).toContain(piece)
        expect(ok(bare).stdout).not.toContain(piece)
        const entries = parseableLines(withThinking.file) as unknown as Array<Transcript.TranscriptEntry>
        expect(parseJson<Array<unknown>>(bare)).toHaveLength(
          TranscriptBlobs.transcriptToBlobs(ClaudePush.pushOrder(entries), { includeThinking: false }).length
        )
      })

      it("an unknown id is not found (exit 1, one line)", { timeout: TEST_TIMEOUT_MS }, async () => {
        const result = await acxInProcess(["show", "0000dead"], { env })
        expect(result.code).toBe(1)
        expect(result.stdout).toBe("")
        expect(result.stderrLines).toEqual([
          `acx: no session or subagent 0000dead in ${path.join(built.configDir, "projects")}`
        ])
      })
    })

    describe("stats", () => {
      type Stats = {
        messages: Record<string, number>
        toolCalls: Record<string, number>
        tokens: Record<string, number>
        subagents: number
        compactions: number
        sessions: number
      }
      type StatsJson = {
        rows: Array<Stats & { projectKey: string; sessionId: string }>
        total: Stats
        skippedLines: number
      }
      let result: StatsJson

      beforeAll(async () => {
        result = parseJson<StatsJson>(ok(await acx(["stats", "--json"], { env })))
      }, TEST_TIMEOUT_MS)

      it("has one row per session and totals equal to the sum of the rows", () => {
        expect(result.rows.map((r) => r.sessionId).sort()).toEqual(built.sessions.map((s) => s.sessionId).sort())
        expect(result.skippedLines).toBe(0)
        const sum = (pick: (stats: Stats) => Record<string, number>) => {
          const out: Record<string, number> = {}
          for (const row of result.rows) {
            for (const [key, n] of Object.entries(pick(row))) out[key] = (out[key] ?? 0) + n
          }
          return out
        }
        expect(result.total.sessions).toBe(result.rows.length)
        expect(result.total.messages).toEqual(sum((s) => s.messages))
        expect(result.total.toolCalls).toEqual(sum((s) => s.toolCalls))
        expect(result.total.tokens).toEqual(sum((s) => s.tokens))
        expect(result.total.subagents).toBe(result.rows.reduce((n, r) => n + r.subagents, 0))
        expect(result.total.compactions).toBe(result.rows.reduce((n, r) => n + r.compactions, 0))
      })

      it("crud fixture: tool calls by name, checked by hand and counted from the raw lines", () => {
        const row = result.rows.find((r) => r.sessionId === crud().sessionId)!
        // By hand (tomjnsn-agentlogs/crud.jsonl): 5 TodoWrite, 1 each of Write, Read, Edit, Bash.
        expect(row.toolCalls).toEqual({ TodoWrite: 5, Write: 1, Read: 1, Edit: 1, Bash: 1 })
        // Independently: tool_use blocks per unique (message.id, block id) in the raw JSON lines.
        const seen = new Set<string>()
        const byName: Record<string, number> = {}
        for (const line of fs.readFileSync(crud().file, "utf8").split("\n")) {
          if (line.trim() === "") continue
          const entry = JSON.parse(line) as { type?: string; message?: { id?: string; content?: unknown } }
          if (entry.type !== "assistant" || !Array.isArray(entry.message?.content)) continue
          for (const block of entry.message.content as Array<{ type?: string; id?: string; name?: string }>) {
            if (block.type !== "tool_use" || block.name === undefined) continue
            const key = `${entry.message.id}/${block.id}`
            if (seen.has(key)) continue
            seen.add(key)
            byName[block.name] = (byName[block.name] ?? 0) + 1
          }
        }
        expect(row.toolCalls).toEqual(byName)
        expect(row.messages.user).toBe(1)
        expect(row.subagents).toBe(0)
      })

      it("the text report has a row per session and the totals block", { timeout: TEST_TIMEOUT_MS }, async () => {
        const text = ok(await acx(["stats", "--project", CRUD.projectKey], { env })).stdout
        const rows = built.sessions.filter((s) => s.projectKey === CRUD.projectKey)
        for (const session of rows) expect(text).toContain(`${session.sessionId.slice(0, 8)} `)
        expect(text).toMatch(new RegExp(`^sessions\\s+${rows.length}$`, "m"))
        expect(text).toMatch(/^tool calls\s+.*TodoWrite \d+/m)
      })
    })

    // Last, one at a time: these write into the shared config dir.
    describe("ambiguity and fork (write into the config dir)", () => {
      it("a prefix matching sessions in two projects is ambiguous (exit 1); --project resolves it", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const copyDir = path.join(built.configDir, "projects", "zz-copy")
        fs.mkdirSync(copyDir)
        try {
          fs.copyFileSync(crud().file, path.join(copyDir, `${crud().sessionId}.jsonl`))
          const result = await acx(["show", crud().sessionId.slice(0, 8)], { env })
          expect(result.code).toBe(1)
          expect(result.stdout).toBe("")
          expect(result.stderrLines).toHaveLength(1)
          expect(result.stderrLines[0]).toMatch(/^acx: .* matches 2 sessions .*pass the full id or --project$/)
          expect(result.stderrLines[0]).toContain(`zz-copy/${crud().sessionId}`)
          const resolved = await acxInProcess(
            ["show", crud().sessionId.slice(0, 8), "--project", "zz-copy", "-f", "jsonl"],
            { env }
          )
          expect(ok(resolved).stdout.trimEnd().split("\n")).toHaveLength(parseableLines(crud().file).length)
        } finally {
          fs.rmSync(copyDir, { recursive: true, force: true })
        }
      })
      it("forks into a new session of the same project with fresh uuids", { timeout: TEST_TIMEOUT_MS }, async () => {
        const original = parseableLines(crud().file)
        const originalUuids = new Set(original.flatMap((e) => (typeof e["uuid"] === "string" ? [e["uuid"]] : [])))
        const fork = parseJson<
          { projectKey: string; sessionId: string; file: string; entries: number; forkedFrom: string }
        >(
          ok(await acx(["fork", crud().sessionId, "--json", "--title", "my fork"], { env }))
        )
        expect(fork.projectKey).toBe(crud().projectKey)
        expect(fork.forkedFrom).toBe(crud().sessionId)
        expect(fork.sessionId).not.toBe(crud().sessionId)
        expect(fork.file).toBe(path.join(built.configDir, "projects", crud().projectKey, `${fork.sessionId}.jsonl`))
        const entries = parseableLines(fork.file)
        expect(entries.length).toBe(fork.entries)
        expect(entries.length).toBeGreaterThan(10)
        const withUuid = entries.filter((e) => typeof e["uuid"] === "string")
        expect(withUuid.length).toBeGreaterThan(10)
        for (const entry of withUuid) {
          expect(originalUuids.has(entry["uuid"] as string)).toBe(false)
          expect(entry["sessionId"]).toBe(fork.sessionId)
        }
        // the parent chain points inside the fork
        const forkUuids = new Set(withUuid.map((e) => e["uuid"]))
        for (const entry of withUuid) {
          if (typeof entry["parentUuid"] === "string") expect(forkUuids.has(entry["parentUuid"])).toBe(true)
        }
        const listed = parseJson<Array<{ sessionId: string; projectKey: string }>>(
          ok(await acxInProcess(["sessions", "--json"], { env }))
        )
        expect(listed).toContainEqual(
          expect.objectContaining({ sessionId: fork.sessionId, projectKey: crud().projectKey })
        )
      })

      it("--at an early message gives a shorter fork", { timeout: TEST_TIMEOUT_MS }, async () => {
        const original = parseableLines(crud().file)
        // the 4th main-chain message: user prompt, assistant text, assistant tool_use, tool result
        const early = original.filter((e) => e["type"] === "user" || e["type"] === "assistant")[3]!
        const full = parseJson<{ entries: number }>(
          ok(await acxInProcess(["fork", crud().sessionId, "--json"], { env }))
        )
        const short = parseJson<{ entries: number; file: string }>(
          ok(await acx(["fork", crud().sessionId, "--at", early["uuid"] as string, "--json"], { env }))
        )
        expect(short.entries).toBeLessThan(full.entries)
        const messages = parseableLines(short.file).filter((e) => e["type"] === "user" || e["type"] === "assistant")
        expect(messages).toHaveLength(4)
        expect(messages.at(-1)!["message"]).toEqual(early["message"])
      })

      it("--at an unknown uuid fails (exit 1, one line) and writes nothing", { timeout: TEST_TIMEOUT_MS }, async () => {
        const before = listTree(built.configDir)
        const result = await acxInProcess(["fork", crud().sessionId, "--at", "00000000-0000-4000-8000-00000000abcd"], {
          env
        })
        expect(result.code).toBe(1)
        expect(result.stdout).toBe("")
        expect(result.stderrLines).toHaveLength(1)
        expect(result.stderrLines[0]).toMatch(
          /^acx: .*no main conversation entry "00000000-0000-4000-8000-00000000abcd"/
        )
        expect(listTree(built.configDir)).toEqual(before)
      })
    })
  }
)

const claude = await detectClaude()

describe.concurrent("acx demo", () => {
  let root = ""
  beforeAll(() => {
    root = tempDir("demo")
  })
  afterAll(() => removeDir(root))

  type DemoJson = {
    dir: string | null
    source: { kind: "real-claude-code"; turns: number; costUsd: number; commands: Array<string> } | {
      kind: "generated"
      reason: string
    }
    sessions: Array<unknown>
    imported: { sessions: number; entries: number; mainEntries: number }
    stats: { tokens: { input: number; output: number }; toolCalls: Record<string, number> }
    acontext: { saved: number; failed: number; messages: Array<{ message: { role: string } }> }
  }

  it.runIf(claude.available)(
    "with the real Claude Code CLI installed: its session, three turns, real commands, all of it stored",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const out = parseJson<DemoJson>(ok(await acx(["demo", "--json"])))
      expect(out.source).toMatchObject({ kind: "real-claude-code", turns: 3 })
      if (out.source.kind !== "real-claude-code") return
      expect(out.source.commands[0]).toBe("cat src/cart.mjs")
      expect(out.source.costUsd).toBeGreaterThan(0)
      expect(out.sessions).toHaveLength(1)
      expect(out.stats.toolCalls).toEqual({ Bash: 3 })
      // the double's figures: 3120 + 3390 + 3610 + 3800 + 3950 + 4100 input, 48 + 96 + 22 + 71 + 18 + 24 output
      expect(out.stats.tokens).toMatchObject({ input: 21970, output: 279 })
      const roles = out.acontext.messages.map((m) => m.message.role)
      expect(roles.filter((role) => role === "user").length).toBeGreaterThanOrEqual(3 + 3)
      expect(out.acontext.failed).toBe(0)
    }
  )

  it("--json: one session, imported entries, messages in Acontext, none failed", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    // in process (the other demo runs go through the binary)
    const out = parseJson<DemoJson>(ok(await acxInProcess(["demo", "--json", "--generated"])))
    expect(out.source).toEqual({ kind: "generated", reason: "--generated" })
    expect(out.dir).toBeNull()
    expect(out.sessions).toHaveLength(1)
    expect(out.imported.sessions).toBe(1)
    expect(out.imported.entries).toBeGreaterThan(0)
    expect(out.imported.mainEntries).toBeGreaterThan(0)
    expect(out.acontext.messages.length).toBeGreaterThan(0)
    expect(out.acontext.failed).toBe(0)
    expect(out.acontext.saved).toBeGreaterThanOrEqual(out.acontext.messages.length)
  })

  // one run for two promises (a demo run is the costliest command here)
  it(
    "no Claude Code binary: the generated session, the reason said; --dir keeps the files, acx sessions --config-dir <dir>/claude lists the session",
    {
      timeout: TEST_TIMEOUT_MS
    },
    async () => {
      const dir = path.join(root, "kept")
      const text =
        ok(await acx(["demo", "--dir", dir], { env: { ACX_CLAUDE_PATH: path.join(root, "no-such-claude") } }))
          .stdout
      // a wrong ACX_CLAUDE_PATH is not a reason to look elsewhere: the demo says so and goes on
      expect(text).toContain("a generated Claude Code session")
      expect(text).toContain("ACX_CLAUDE_PATH names")
      expect(text).toContain(`Kept in ${dir}`)
      expect(fs.existsSync(path.join(dir, "acx.sqlite"))).toBe(true)
      const listed = parseJson<Array<{ sessionId: string; projectKey: string }>>(
        ok(await acxInProcess(["sessions", "--json", "--config-dir", path.join(dir, "claude")]))
      )
      expect(listed).toHaveLength(1)
      expect(text).toContain(listed[0]!.sessionId)
      // --project also takes the absolute path the session ran in (Claude Code's encoding)
      const byPath = parseJson<Array<{ sessionId: string }>>(
        ok(
          await acxInProcess([
            "sessions",
            "--json",
            "--project",
            "/home/dev/acme-api",
            "--config-dir",
            path.join(dir, "claude")
          ])
        )
      )
      expect(byPath.map((s) => s.sessionId)).toEqual([listed[0]!.sessionId])
      // a project that is not there is an error, not an empty list (a typo must not look like "no sessions")
      const elsewhere = await acxInProcess([
        "sessions",
        "--json",
        "--project",
        "/home/dev/other",
        "--config-dir",
        path.join(dir, "claude")
      ])
      expect(elsewhere.code).toBe(1)
      expect(elsewhere.stdout).toBe("")
      expect(elsewhere.stderrLines).toHaveLength(1)
      expect(elsewhere.stderrLines[0]).toMatch(/^acx: .*home-dev-other/)
    }
  )
})
