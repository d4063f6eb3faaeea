/**
 * The real Claude Code CLI's command hooks, offline against the model double: every hook acx
 * models fires with its real stdin payload, in order (a failing command fires PostToolUseFailure), and each payload decodes with
 * `@acx/schema`'s strict hook-input schemas (what the memory's hook handlers will read); a
 * skill's shell command fires PreSkillShellCommand (2.1.332+).
 */
import * as Hook from "@acx/schema/Hook"
import { detectClaude, ModelDouble, realClaude, startModelDouble } from "@acx/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

// `2.1.332 (Claude Code)` → [2, 1, 332]: an older CLI (ACX_CLAUDE_PATH) has no PreSkillShellCommand
const version = claude.available
  ? (/^(\d+)\.(\d+)\.(\d+)/.exec(execFileSync(claude.path, ["--version"], { encoding: "utf8" })) ?? []).slice(1)
    .map(Number)
  : []
const atLeast = (wanted: ReadonlyArray<number>) =>
  version.length === 3 && (version[0]! - wanted[0]! || version[1]! - wanted[1]! || version[2]! - wanted[2]!) >= 0

// A hook command: appends `{event, input}` (stdin parsed) as one line to the log, exits 0.
const HOOK_SCRIPT = `
import { appendFileSync, readFileSync } from "node:fs"
const [log, event] = process.argv.slice(2)
appendFileSync(log, JSON.stringify({ event, input: JSON.parse(readFileSync(0, "utf8")) }) + "\\n")
`

describe.runIf(claude.available)("Claude Code hooks (the real CLI)", () => {
  it("fire with real payloads that decode with the strict hook-input schemas", async () => {
    await using model = await startModelDouble({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "echo hooked" } }] },
        // then a command that fails: the CLI fires PostToolUseFailure instead of PostToolUse
        {
          when: ModelDouble.lastMessageHasToolResult,
          reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "echo broken >&2; exit 3" } }] }
        },
        { when: ModelDouble.lastMessageHasToolResult, reply: { content: "Done." } }
      ]
    })
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-hooks-"))
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(root, "project-")))
    const script = path.join(root, "hook.mjs")
    const log = path.join(root, "hooks.jsonl")
    fs.writeFileSync(script, HOOK_SCRIPT)
    const command = (event: string) => ({
      hooks: [{ type: "command", command: `"${process.execPath}" "${script}" "${log}" ${event}` }]
    })
    const hooks = Object.fromEntries(Hook.KNOWN_HOOK_EVENTS.map((event) => [event, [command(event)]]))
    try {
      const cli = await realClaude({ baseUrl: model.url })
      const run = await cli.run({
        prompt: "Say hooked",
        cwd,
        home: path.join(root, "home"),
        allowedTools: ["Bash"],
        settings: { hooks }
      })
      expect(run.exitCode, run.stderr).toBe(0)
      const fired = fs.readFileSync(log, "utf8").trim().split("\n").map((line) =>
        JSON.parse(line) as { event: string; input: unknown }
      )
      expect(fired.map((f) => f.event)).toEqual([
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SessionEnd"
      ])
      for (const { event, input } of fired) {
        const decoded = Schema.decodeUnknownSync(Hook.KnownHookInput)(input, { onExcessProperty: "preserve" })
        expect(decoded.hook_event_name).toBe(event)
        expect(decoded.session_id).toBe(run.sessionId)
        expect(decoded.cwd).toBe(cwd)
      }
      const start = fired[0]!.input as Hook.SessionStartHookInput
      expect(start.source).toBe("startup")
      const prompt = fired[1]!.input as Hook.UserPromptSubmitHookInput
      expect(prompt.prompt).toBe("Say hooked")
      const tool = fired[2]!.input as Hook.PostToolUseHookInput
      expect(tool.tool_name).toBe("Bash")
      expect(JSON.stringify(tool.tool_response)).toContain("hooked")
      const failure = fired[3]!.input as Hook.PostToolUseFailureHookInput
      expect(failure.tool_name).toBe("Bash")
      expect(failure.error).toContain("broken")
      expect(failure.tool_use_id).not.toBe(tool.tool_use_id)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 60_000)

  it.runIf(atLeast([2, 1, 332]))(
    "PreSkillShellCommand (2.1.332+) fires before a skill's shell command runs and decodes",
    async () => {
      await using model = await startModelDouble({
        script: (request) =>
          ModelDouble.isSideCall(request)
            ? { content: "Greeting" }
            : ModelDouble.toolResultCount(request) === 0
            ? { content: [{ type: "tool_use", name: "Skill", input: { skill: "greet" } }] }
            : { content: "Done." }
      })
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-skill-"))
      const cwd = fs.realpathSync(fs.mkdtempSync(path.join(root, "project-")))
      const script = path.join(root, "hook.mjs")
      const log = path.join(root, "hooks.jsonl")
      fs.writeFileSync(script, HOOK_SCRIPT)
      fs.mkdirSync(path.join(cwd, ".claude", "skills", "greet"), { recursive: true })
      fs.writeFileSync(
        path.join(cwd, ".claude", "skills", "greet", "SKILL.md"),
        "---\nname: greet\ndescription: Greets\nallowed-tools: Bash(echo:*)\n---\nFound: !`echo skill-shell-ran`\nSay hello.\n"
      )
      const hook = {
        hooks: [{ type: "command", command: `"${process.execPath}" "${script}" "${log}" PreSkillShellCommand` }]
      }
      try {
        const cli = await realClaude({ baseUrl: model.url })
        const run = await cli.run({
          prompt: "Greet me",
          cwd,
          home: path.join(root, "home"),
          allowedTools: ["Skill", "Bash(echo:*)"],
          settings: { hooks: { PreSkillShellCommand: [hook] } }
        })
        expect(run.exitCode, run.stderr).toBe(0)
        const fired = fs.readFileSync(log, "utf8").trim().split("\n").map((line) =>
          JSON.parse(line) as { event: string; input: unknown }
        )
        expect(fired.map((f) => f.event)).toEqual(["PreSkillShellCommand"])
        const decoded = Schema.decodeUnknownSync(Hook.KnownHookInput)(fired[0]!.input, { onExcessProperty: "preserve" })
        if (decoded.hook_event_name !== "PreSkillShellCommand") throw new Error("expected PreSkillShellCommand")
        expect(decoded.session_id).toBe(run.sessionId)
        expect(decoded.tool_input.command).toBe("echo skill-shell-ran")
        expect(decoded.command_name).toBe("greet")
        expect(decoded.invoked_by).toBe("claude")
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
    },
    60_000
  )
})
