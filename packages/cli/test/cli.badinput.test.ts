/**
 * Bad input: a torn last line, binary garbage, one 50 MB line, unknown entry types, and
 * path-traversal ids and project keys. Every command must end with a clear exit code and at most
 * one `acx: …` line on stderr, keep every good entry, and write nothing outside its target. Needs
 * no fixtures: the sessions are generated in a temp dir.
 *
 * Each promise is checked once through the BUILT binary (`acx`: the bundle, exit codes, stderr as
 * a pipe): `sessions`, the torn session's `show` and the `stats` table, a refused id and a refused
 * `--project`; the other command lines run the same `run` in this process (`acxInProcess`), a
 * process start each saved.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, listTree, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

const PROJECT = "-home-dev-bad"
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const user = (sessionId: string, n: number, parent: number | null, content: string) => ({
  type: "user",
  uuid: uuid(n),
  parentUuid: parent === null ? null : uuid(parent),
  sessionId,
  timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}Z`,
  message: { role: "user", content }
})

const assistant = (sessionId: string, n: number, parent: number, text: string) => ({
  type: "assistant",
  uuid: uuid(n),
  parentUuid: uuid(parent),
  sessionId,
  timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}Z`,
  message: {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text }],
    usage: { input_tokens: 1, output_tokens: 2 }
  }
})

const line = (value: unknown) => `${JSON.stringify(value)}\n`

// Deterministic "random" bytes without "\n" (so the number of garbage lines is known), including
// NUL, "\r", backspace and ESC, which must not reach the terminal raw.
const garbage = (length: number, seed: number): Buffer => {
  const out = Buffer.alloc(length)
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    const byte = (x >>> 16) & 0xff
    out[i] = byte === 0x0a ? 0x0d : byte
  }
  out[0] = 0x08
  out[1] = 0x1b
  return out
}
const GARBAGE_LINES = 3

const S = {
  torn: "11111111-1111-4111-8111-111111111111",
  binary: "22222222-2222-4222-8222-222222222222",
  unknown: "33333333-3333-4333-8333-333333333333",
  huge: "44444444-4444-4444-8444-444444444444"
} as const

const HUGE_CONTENT_LENGTH = 50 * 1024 * 1024

/** Exactly the expected stderr: nothing, or one warning line without control characters. */
const expectOneWarning = (result: AcxResult, pattern: RegExp) => {
  expect(result.stderrLines, result.stderr.slice(0, 500)).toHaveLength(1)
  expect(result.stderr.endsWith("\n")).toBe(true)
  expect(result.stderrLines[0]).toMatch(/^acx: warning: /)
  expect(result.stderrLines[0]).toMatch(pattern)

  expect(result.stderrLines[0]).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
}

const expectOk = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr.slice(0, 500)})`).toBe(0)
  return result
}

describe("acx on bad input", () => {
  let root = ""
  let configDir = ""
  let projectDir = ""
  let env: Record<string, string> = {}
  let emulator: AcontextEmulatorHandle

  beforeAll(async () => {
    root = tempDir("bad")
    configDir = path.join(root, "claude")
    projectDir = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(projectDir, { recursive: true })
    env = { CLAUDE_CONFIG_DIR: configDir }
    const file = (id: string) => path.join(projectDir, `${id}.jsonl`)

    // (a) a torn last line: the process writing it died mid-line
    fs.writeFileSync(
      file(S.torn),
      line(user(S.torn, 1, null, "hello torn")) + line(assistant(S.torn, 2, 1, "reply before the tear")) +
        line(user(S.torn, 3, 2, "this line is torn")).slice(0, 60)
    )
    // (b) binary garbage between good lines
    fs.writeFileSync(file(S.binary), line(user(S.binary, 11, null, "hello binary")))
    for (let i = 0; i < GARBAGE_LINES; i++) {
      fs.appendFileSync(file(S.binary), Buffer.concat([garbage(1500, i + 1), Buffer.from("\n")]))
    }
    fs.appendFileSync(file(S.binary), line(assistant(S.binary, 12, 11, "reply after garbage")))
    // (d) unknown entry types
    fs.writeFileSync(
      file(S.unknown),
      line(user(S.unknown, 21, null, "hello unknown")) +
        line({ type: "brand-new-thing", uuid: uuid(22), parentUuid: uuid(21), sessionId: S.unknown, payload: [1] }) +
        line({ type: "another-new-thing", sessionId: S.unknown, note: "no uuid at all" }) +
        line(assistant(S.unknown, 23, 21, "reply after unknown"))
    )
    // (c) one 50 MB line: a valid user entry whose content is a 50 MB string
    const fd = fs.openSync(file(S.huge), "w")
    try {
      const head = JSON.stringify(user(S.huge, 31, null, "@@CONTENT@@")).split("\"@@CONTENT@@\"")
      fs.writeSync(fd, `${head[0]}"huge: `)
      const chunk = "y".repeat(1024 * 1024)
      for (let i = 0; i < HUGE_CONTENT_LENGTH / chunk.length; i++) fs.writeSync(fd, chunk)
      fs.writeSync(fd, `"${head[1]}\n`)
      fs.writeSync(fd, line(assistant(S.huge, 32, 31, "reply after huge")))
    } finally {
      fs.closeSync(fd)
    }
    emulator = await startAcontextEmulator()
  })

  afterAll(async () => {
    await emulator?.close()
    removeDir(root)
  })

  it("sessions lists all four (exit 0, nothing on stderr)", { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = expectOk(await acx(["sessions", "--json"], { env }))
    const listed = parseJson<Array<{ sessionId: string; projectKey: string; firstPrompt?: string }>>(result)
    expect(listed.map((s) => s.sessionId).sort()).toEqual(Object.values(S).sort())
    expect(listed.find((s) => s.sessionId === S.torn)?.firstPrompt).toBe("hello torn")
    expect(result.stderr).toBe("")
  })

  describe.concurrent("show", () => {
    it("torn last line: one warning line, the good entries shown", { timeout: TEST_TIMEOUT_MS }, async () => {
      const md = expectOk(await acx(["show", S.torn], { env }))
      expectOneWarning(
        md,
        /1 malformed lines? skipped in \S+11111111-1111-4111-8111-111111111111\.jsonl \(first: line 3 at byte \d+: torn last line/
      )
      expect(md.stdout).toContain("hello torn")
      expect(md.stdout).toContain("reply before the tear")
      const jsonl = expectOk(await acxInProcess(["show", S.torn, "--format", "jsonl"], { env }))
      expect(jsonl.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { uuid: string }).map((e) => e.uuid))
        .toEqual([uuid(1), uuid(2)])
    })

    it("binary garbage: one printable warning line, the good entries shown", { timeout: TEST_TIMEOUT_MS }, async () => {
      const md = expectOk(await acxInProcess(["show", S.binary], { env }))
      expectOneWarning(
        md,
        new RegExp(
          `^acx: warning: ${GARBAGE_LINES} malformed lines? skipped in \\S+${S.binary}\\.jsonl \\(first: line 2 at byte \\d+: `
        )
      )
      expect(md.stdout).toContain("hello binary")
      expect(md.stdout).toContain("reply after garbage")
      const messages = parseJson<Array<{ role: string }>>(
        expectOk(await acxInProcess(["show", S.binary, "--format", "anthropic"], { env }))
      )
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
    })

    it(
      "unknown entry types: kept in jsonl, skipped in markdown, no warning",
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const jsonl = expectOk(await acxInProcess(["show", S.unknown, "--format", "jsonl"], { env }))
        expect(jsonl.stderr).toBe("")
        const types = jsonl.stdout.trimEnd().split("\n").map((l) => (JSON.parse(l) as { type: string }).type)
        expect(types).toEqual(["user", "brand-new-thing", "another-new-thing", "assistant"])
        const md = expectOk(await acxInProcess(["show", S.unknown], { env }))
        expect(md.stderr).toBe("")
        expect(md.stdout).toContain("hello unknown")
        expect(md.stdout).toContain("reply after unknown")
      }
    )

    it("a 50 MB line is read whole", { timeout: TEST_TIMEOUT_MS }, async () => {
      const result = expectOk(await acxInProcess(["show", S.huge, "--format", "jsonl"], { env }))
      expect(result.stderr).toBe("")
      const entries = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { message: { content: unknown } })
      expect(entries).toHaveLength(2)
      expect(String(entries[0]!.message.content)).toHaveLength("huge: ".length + HUGE_CONTENT_LENGTH)
    })
  })

  it("stats: every session's good messages counted, skipped lines reported", { timeout: TEST_TIMEOUT_MS }, async () => {
    const [json, text] = await Promise.all([acxInProcess(["stats", "--json"], { env }), acx(["stats"], { env })])
    const stats = parseJson<
      {
        rows: Array<{ sessionId: string; messages: { user: number; assistant: number } }>
        skippedLines: number
      }
    >(expectOk(json))
    expect(json.stderr).toBe("")
    expect(stats.skippedLines).toBe(1 + GARBAGE_LINES)
    expect(stats.rows).toHaveLength(4)
    for (const row of stats.rows) expect(row.messages, row.sessionId).toMatchObject({ user: 1, assistant: 1 })
    expectOneWarning(
      expectOk(text),
      new RegExp(
        `^acx: warning: ${
          1 + GARBAGE_LINES
        } malformed lines? skipped in 2 files?: \\S+${S.torn}\\.jsonl \\(1, first at byte \\d+\\), \\S+${S.binary}\\.jsonl \\(${GARBAGE_LINES}, first at byte \\d+\\)$`
      )
    )
  })

  it("import: every good entry stored, unknown types included; a second import adds nothing", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const file = path.join(root, "bad.sqlite")
    const run = async () =>
      parseJson<{ sessions: number; entries: number; filesRead: number }>(
        expectOk(await acxInProcess(["import", "--to", `sqlite:${file}`, "--json"], { env }))
      )
    expect(await run()).toMatchObject({ sessions: 4, entries: 2 + 2 + 4 + 2 })
    // nothing changed: the import ledger opens no file
    expect(await run()).toMatchObject({ sessions: 4, entries: 0, filesRead: 0 })
    const store = createSqliteSessionStore({ filename: file })
    try {
      const load = async (sessionId: string) => (await store.load({ projectKey: PROJECT, sessionId })) ?? []
      expect((await load(S.torn)).map((e) => e.uuid)).toEqual([uuid(1), uuid(2)])
      expect((await load(S.binary)).map((e) => e.uuid)).toEqual([uuid(11), uuid(12)])
      expect((await load(S.unknown)).map((e) => e.type)).toEqual([
        "user",
        "brand-new-thing",
        "another-new-thing",
        "assistant"
      ])
      const huge = await load(S.huge)
      expect(huge).toHaveLength(2)
      expect(String((huge[0]!["message"] as { content: string }).content)).toHaveLength(
        "huge: ".length + HUGE_CONTENT_LENGTH
      )
    } finally {
      await store.close()
    }
  })

  it("push: the good messages of each session stored, a warning for skipped lines", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const pushEnv = { ...env, ACONTEXT_API_KEY: emulator.apiKey }
    const results = await Promise.all(
      [S.torn, S.binary, S.unknown].map((id) =>
        acxInProcess(["push", id, "--base-url", emulator.url], { env: pushEnv })
      )
    )
    for (const [i, id] of [S.torn, S.binary, S.unknown].entries()) {
      const result = expectOk(results[i]!)
      expect(result.stdout).toContain(`pushed ${id} to ${emulator.url}: 2 messages stored`)
      if (id === S.unknown) expect(result.stderr).toBe("")
      else expectOneWarning(result, new RegExp(`^acx: warning: ${id === S.torn ? 1 : GARBAGE_LINES} malformed line`))
      expect((await emulator.messages(id)).length).toBe(2)
    }
  })

  it("push of the 50 MB session ends cleanly: stored, or one error line (exit 1)", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const result = await acxInProcess(["push", S.huge, "--base-url", emulator.url, "--json"], {
      env: { ...env, ACONTEXT_API_KEY: emulator.apiKey }
    })
    if (result.code === 0) {
      expect(parseJson<{ stored: number }>(result).stored).toBe(2)
      expect((await emulator.messages(S.huge)).length).toBe(2)
    } else {
      console.log(`push of the 50 MB session refused: ${result.stderr.trim()}`)
      expect(result.code).toBe(1)
      expect(result.stderrLines).toHaveLength(1)
      expect(result.stderrLines[0]).toMatch(/^acx: /)
    }
  })

  describe("path traversal", () => {
    const badIds = ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "/etc/passwd", `../${PROJECT}/${S.torn}`]
    const badProjects = ["../x", `${PROJECT}/../../x`]

    const expectRefused = (result: AcxResult, codes: ReadonlyArray<number>, pattern: RegExp) => {
      expect(codes, `exit ${result.code}; stderr: ${result.stderr}`).toContain(result.code)
      expect(result.stdout).toBe("")
      expect(result.stderrLines).toHaveLength(1)
      expect(result.stderrLines[0]).toMatch(pattern)
    }

    it("ids that are not a UUID (prefix) are refused by show, push and fork (exit 2); nothing written or sent", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const before = listTree(root)
      await emulator.clearRequests()
      const pushEnv = { ...env, ACONTEXT_API_KEY: emulator.apiKey }
      const runs = [
        // the first through the binary, the rest in process
        ...badIds.map((id, i) => ({ id, run: (i === 0 ? acx : acxInProcess)(["show", id], { env }) })),
        ...badIds.slice(0, 1).flatMap((id) => [
          { id, run: acxInProcess(["push", id, "--base-url", emulator.url], { env: pushEnv }) },
          { id, run: acxInProcess(["fork", id, "--title", "../../escape"], { env }) }
        ])
      ]
      for (const { id, run } of runs) {
        const escaped = JSON.stringify(id).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
        expectRefused(
          await run,
          [2],
          new RegExp(`^acx: not a session id: ${escaped} \\(expected a UUID or its prefix\\)$`)
        )
      }
      expect(await emulator.requests()).toEqual([])
      expect(listTree(root)).toEqual(before)
      expect(fs.existsSync(path.resolve(configDir, "..", "escape"))).toBe(false)
    })

    it("--project outside the projects dir is refused by every command (one line) and nothing is written", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const before = listTree(root)
      const [first, ...others] = badProjects
      // the first through the binary, the rest in process
      const runs = [
        acx(["sessions", "--project", first!], { env }),
        acxInProcess(["show", S.torn, "--project", first!], { env }),
        acxInProcess(["stats", "--project", first!], { env }),
        acxInProcess(["import", "--project", first!, "--to", `sqlite:${path.join(root, "escape.sqlite")}`], { env }),
        acxInProcess(["fork", S.torn, "--project", first!], { env }),
        ...others.map((project) => acxInProcess(["sessions", "--project", project], { env }))
      ]
      for (const result of await Promise.all(runs)) {
        expectRefused(
          result,
          [1, 2],
          /^acx: --project ".*" is neither a project directory name under \/.* nor an absolute path$/
        )
      }
      // the import may create its empty SQLite target before listing; nothing else may appear
      expect(listTree(root).filter((name) => !name.startsWith("escape.sqlite"))).toEqual(before)
      expect(fs.existsSync(path.join(root, "x"))).toBe(false)
      expect(fs.existsSync(path.join(configDir, "x"))).toBe(false)
    })

    it("fork writes only its new file into the session's project", { timeout: TEST_TIMEOUT_MS }, async () => {
      const before = listTree(root)
      const fork = parseJson<{ sessionId: string; file: string }>(
        expectOk(await acxInProcess(["fork", S.unknown, "--title", "../../../escape", "--json"], { env }))
      )
      expect(path.dirname(fork.file)).toBe(projectDir)
      const added = listTree(root).filter((name) => !before.includes(name))
      expect(added).toEqual([path.relative(root, fork.file)])
      fs.rmSync(fork.file)
    })
  })
})
