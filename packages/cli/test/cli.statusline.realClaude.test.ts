/**
 * `acx statusline` under the REAL Claude Code CLI, interactive on a pty (util-linux `script`),
 * offline against the model double. First a statusline command that records its stdin: the
 * payload Claude Code really sends decodes (`StatuslinePayload`) with every field the line uses,
 * and its stdin is what the statusline's reader expects. Then `acx statusline install` in the
 * same config directory: acx's line appears on Claude Code's terminal, and uninstall puts the
 * recorder back.
 */
import * as StatuslinePayload from "@acx/claude-code/StatuslinePayload"
import { startModelDouble } from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { acx, tempDir } from "./utils/acx.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { onTerminal } from "./utils/terminal.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code statusline test skipped: ${claude.reason}`)

const roots: Array<string> = []
afterAll(() => Promise.all(roots.splice(0).map((root) => removeTreeWhenIdle(root))), 70_000)

// The terminal's text: Claude Code moves the cursor over the spaces between words (`ESC[<n>G`,
// `ESC[<n>C`), which read as one space; every other sequence is dropped.
const withoutAnsi = (text: string) =>
  text
    .replace(/\u001b\[[0-9;]*[CG]/g, " ")
    .replace(/\u001b\[[0-9;?>]*[a-zA-Z]|\u001b\][^\u0007]*\u0007|\u001b[78]/g, "")
    .replace(/ {2,}/g, " ")

const waitUntil = async (check: () => boolean, what: () => string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.runIf(claude.available)("acx statusline in the real Claude Code", () => {
  it("decodes the payload Claude Code sends, and its line appears on Claude Code's terminal", async () => {
    await using model = await startModelDouble({ script: [{ content: "Hello from the double!" }] })
    const cli = await realClaude({ baseUrl: model.url })
    const home = tempDir("statusline-real")
    roots.push(home)
    const project = path.join(home, "project")
    const config = path.join(home, ".claude")
    const acxHome = path.join(home, "acx")
    fs.mkdirSync(project)
    fs.mkdirSync(config)
    // first run done, the API key approved, the project trusted: no dialog before the prompt
    fs.writeFileSync(
      path.join(config, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: ["sk-ant-model-double"], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true } }
      })
    )
    const recorded = path.join(home, "statusline-input.jsonl")
    const recorder = path.join(home, "record.sh")
    fs.writeFileSync(
      recorder,
      `#!/bin/sh\nstat -L -c %F /proc/self/fd/0 > "${recorded}.type"\ncat >> "${recorded}"\necho >> "${recorded}"\necho RECORDER-LINE\n`,
      { mode: 0o755 }
    )
    fs.writeFileSync(
      path.join(config, "settings.json"),
      JSON.stringify({ statusLine: { type: "command", command: recorder } })
    )
    const env = { ...cli.env(home), TERM: "xterm-256color", ACX_HOME: acxHome }

    // 1. what Claude Code sends
    const first = onTerminal([cli.path, "say hello"], { cwd: project, env })
    try {
      await waitUntil(() => withoutAnsi(first.output()).includes("Hello from the double!"), () => first.output())
      const payloads = () =>
        fs.existsSync(recorded)
          ? fs.readFileSync(recorded, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) =>
            JSON.parse(line)
          )
          : []
      await waitUntil(() => payloads().some((p) => p.cost?.total_cost_usd > 0), () => JSON.stringify(payloads()))
      const after = payloads().find((p) => p.cost?.total_cost_usd > 0)
      const decoded = StatuslinePayload.fromJson(after)
      expect(decoded.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      expect(decoded.transcriptPath).toBe(
        path.join(config, "projects", project.replace(/[^a-zA-Z0-9]/g, "-"), `${decoded.sessionId}.jsonl`)
      )
      expect(decoded.modelName).toEqual(expect.any(String))
      expect(decoded.modelId).toEqual(expect.any(String))
      expect(decoded.sessionCostUSD).toBeGreaterThan(0)
      expect(decoded.contextWindowSize).toBeGreaterThan(0)
      expect(decoded.contextPercentage).toEqual(expect.any(Number))
      // an API key: no rate_limits (a subscriber's are read by the same reader, unit-tested)
      expect(after.rate_limits).toBeUndefined()
      expect(decoded.fiveHour).toBeUndefined()
      // the fields the reader falls back on are there too
      expect(Object.keys(after.context_window)).toEqual(
        expect.arrayContaining(["context_window_size", "current_usage", "used_percentage"])
      )
      expect(fs.readFileSync(`${recorded}.type`, "utf8").trim()).toMatch(/^(fifo|socket)$/)
    } finally {
      first.child.kill("SIGKILL")
    }

    // 2. acx's statusline, installed as a user would
    const installed = await acx(["statusline", "install", "--wrap"], {
      env: { ACX_HOME: acxHome, CLAUDE_CONFIG_DIR: config }
    })
    expect(installed.code, installed.stderr).toBe(0)
    const second = onTerminal([cli.path, "say hello"], { cwd: project, env })
    try {
      // the wrapped command's line, then acx's fields (drawn before the first reply: no context yet)
      await waitUntil(
        () => /RECORDER-LINE │ Opus 5\.5 │ session \$\d+\.\d\d/.test(withoutAnsi(second.output())),
        () => withoutAnsi(second.output()).slice(-2000)
      )
    } finally {
      second.child.kill("SIGKILL")
    }
    const removed = await acx(["statusline", "uninstall"], { env: { ACX_HOME: acxHome, CLAUDE_CONFIG_DIR: config } })
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(path.join(config, "settings.json"), "utf8"))).toEqual({
      statusLine: { type: "command", command: recorder }
    })
  }, 180_000)
})
