/**
 * No text acx prints obeys a transcript's terminal escapes: a prompt, a custom title and a model
 * name holding OSC 52 (a clipboard write), a window-title sequence, clear-screen (`ESC [2J`,
 * `ESC c`) and a C1 CSI are shown with `?` in their place (`TerminalText`, the rule `acx search`
 * had) by `acx sessions`, `acx show` and `acx stats` — in process (a pipe), by the binary over a
 * config directory and a SQLite store, cold and warm, and on a real terminal.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, BIN, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { onTerminal } from "./utils/terminal.js"

const SESSION = "5e551011-0000-4000-8000-00000000e5c0"
const OSC52 = "\u001b]52;c;cm0gLXJmIH4K\u0007"
const TITLE = "\u001b]0;pwned\u0007"
const CLEAR = "\u001b[2J\u001bc\u009b2J"
const HOSTILE = `${OSC52}hello${TITLE} world${CLEAR}`

// any of them, raw: ESC, BEL, or the one-character CSI
const RAW = /[\u001b\u0007\u009b]/

const lines = [
  { type: "custom-title", customTitle: `title ${HOSTILE}`, sessionId: SESSION },
  {
    type: "user",
    sessionId: SESSION,
    uuid: "u1",
    parentUuid: null,
    cwd: "/work/esc",
    timestamp: "2026-11-20T10:00:00.000Z",
    message: { role: "user", content: `prompt ${HOSTILE}` }
  },
  {
    type: "assistant",
    sessionId: SESSION,
    uuid: "a1",
    parentUuid: "u1",
    cwd: "/work/esc",
    timestamp: "2026-11-20T10:00:05.000Z",
    requestId: "req_1",
    message: {
      id: "msg_1",
      role: "assistant",
      model: `model${OSC52}`,
      content: [{ type: "text", text: `answer ${HOSTILE}\r\nsecond line` }],
      usage: { input_tokens: 10, output_tokens: 20 }
    }
  }
]

let root: string
let configDir: string
let home: string
let store: string

beforeAll(async () => {
  root = tempDir("terminal")
  configDir = path.join(root, "claude")
  home = path.join(root, "home")
  const project = path.join(configDir, "projects", "-work-esc")
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, `${SESSION}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
  store = path.join(root, "store.db")
  const imported = await acxInProcess(["import", "--from", configDir, "--to", `sqlite:${store}`], {
    env: { ACX_HOME: home }
  })
  expect(imported.code, imported.stderr).toBe(0)
}, TEST_TIMEOUT_MS)

afterAll(() => removeDir(root))

const shown = (text: string) => {
  expect(text).not.toMatch(RAW)
  return text
}

describe("a transcript's terminal escapes", () => {
  it("are shown as ? on the full path: sessions, show, stats (a pipe)", async () => {
    const env = { ACX_HOME: home }
    const sessions = await acxInProcess(["sessions", "--config-dir", configDir], { env })
    expect(sessions.code, sessions.stderr).toBe(0)
    expect(shown(sessions.stdout)).toContain("title ?]52;c;cm0gLXJmIH4K?hello?]0;pwned? world?[2J?c?2J")
    const show = await acxInProcess(["show", SESSION, "--config-dir", configDir], { env })
    expect(show.code, show.stderr).toBe(0)
    expect(shown(show.stdout)).toContain("prompt ?]52;c;cm0gLXJmIH4K?hello")
    // a CRLF inside a message is a line break, not a `?`
    expect(show.stdout).toContain("?[2J?c?2J\nsecond line")
    const stats = await acxInProcess(["stats", "--by", "model", "--config-dir", configDir], { env })
    expect(stats.code, stats.stderr).toBe(0)
    expect(shown(stats.stdout)).toContain("model?]52;c;cm0gLXJmIH4K?")
    const fromStore = await acxInProcess(["sessions", "--from", `sqlite:${store}`], { env })
    expect(shown(fromStore.stdout)).toContain("title ?]52;c;")
  }, TEST_TIMEOUT_MS)

  it("are shown as ? by the binary, cold and warm (a config directory; a SQLite store)", async () => {
    const env = { ACX_HOME: home }
    // the first runs fill the caches the warm runs read (a config directory) or answer from (a store)
    for (let round = 0; round < 2; round++) {
      const sessions = await acx(["sessions", "--config-dir", configDir], { env })
      const stats = await acx(["stats", "--by", "model", "--config-dir", configDir], { env })
      const fromStore = await acx(["sessions", "--from", `sqlite:${store}`], { env })
      for (const result of [sessions, stats, fromStore]) expect(result.code, result.stderr).toBe(0)
      expect(shown(sessions.stdout)).toContain("title ?]52;c;")
      expect(shown(stats.stdout)).toContain("model?]52;c;")
      expect(shown(fromStore.stdout)).toContain("title ?]52;c;")
      if (round === 1) {
        expect(sessions.stderr).toBe("")
        expect(stats.stderr).toBe("")
        expect(fromStore.stderr).toBe("")
      }
    }
  }, TEST_TIMEOUT_MS)

  it("are shown as ? on a terminal (util-linux script)", async () => {
    for (const args of [["sessions"], ["show", SESSION], ["stats", "--by", "model"]]) {
      const terminal = onTerminal([process.execPath, BIN, ...args, "--config-dir", configDir], {
        cwd: root,
        env: { ...process.env, ACX_HOME: home, NO_COLOR: "1" }
      })
      expect(await terminal.exited).toBe(0)
      expect(terminal.output()).toContain("?]52;c;cm0gLXJmIH4K?")
      expect(terminal.output()).not.toMatch(RAW)
    }
  }, TEST_TIMEOUT_MS)
})
