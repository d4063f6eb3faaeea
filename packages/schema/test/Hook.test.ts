import { Hook } from "@acx/schema"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

const decodeInput = Schema.decodeUnknownSync(Hook.HookInput)

const base = {
  session_id: "44444444-4444-4444-4444-444444444444",
  transcript_path: "/home/u/.claude/projects/-srv-app/44444444-4444-4444-4444-444444444444.jsonl",
  cwd: "/srv/app"
}

describe("Hook inputs", () => {
  const inputs = {
    SessionStart: { ...base, hook_event_name: "SessionStart", source: "startup", model: "claude-opus-4-6" },
    UserPromptSubmit: { ...base, hook_event_name: "UserPromptSubmit", prompt: "fix the test", source: "user" },
    PostToolUse: {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: "/srv/app/a.ts" },
      tool_response: { type: "text", file: { filePath: "/srv/app/a.ts", content: "x", numLines: 1 } },
      tool_use_id: "toolu_01",
      duration_ms: 12,
      permission_mode: "default",
      effort: { level: "high" }
    },
    PostToolUseFailure: {
      ...base,
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      tool_input: { command: "npm test" },
      tool_use_id: "toolu_02",
      error: "Exit code 1\nnpm ERR! Test failed.",
      is_interrupt: false,
      duration_ms: 840
    },
    Stop: {
      ...base,
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "Done.",
      background_tasks: [{ id: "b1", type: "shell", status: "running", description: "npm test", command: "npm test" }],
      session_crons: []
    },
    SessionEnd: { ...base, hook_event_name: "SessionEnd", reason: "prompt_input_exit" },
    // what Claude Code 2.1.332 sent a command hook when a skill's `!`echo skill-shell-ran`` was
    // about to run (the Skill tool called by the model double; paths and ids of that run)
    PreSkillShellCommand: {
      session_id: "ece21cc4-881f-4300-ae91-8e7c31d1258b",
      transcript_path: "/tmp/cap/home/.claude/projects/-tmp-cap-proj/ece21cc4-881f-4300-ae91-8e7c31d1258b.jsonl",
      cwd: "/tmp/cap/proj",
      prompt_id: "78d193e0-94b7-490b-93f0-09e3aba805ce",
      permission_mode: "default",
      effort: { level: "medium" },
      hook_event_name: "PreSkillShellCommand",
      tool_name: "Bash",
      tool_input: { command: "echo skill-shell-ran" },
      tool_use_id: "toolu_double_b7573720644ecb49:preamble-0",
      command_name: "greet",
      command_source: "projectSettings",
      invoked_by: "claude"
    }
  } as const

  it.each(Object.entries(inputs))("%s decodes to its own member", (name, input) => {
    const decoded = decodeInput(input)
    expect(decoded).toStrictEqual(input)
    expect(decoded.hook_event_name).toBe(name)
    expect(Hook.isKnownHookInput(decoded)).toBe(true)
  })

  it("accepts a diskless transcript_path and undeclared runtime fields", () => {
    const input = { ...inputs.SessionStart, transcript_path: "", scratchpad_dir: "/tmp/s", future_field: { a: [1] } }
    expect(decodeInput(input)).toStrictEqual(input)
  })

  it("keeps enumerations open", () => {
    const input = { ...inputs.SessionStart, source: "teleport" }
    expect(decodeInput(input)).toStrictEqual(input)
    const invoker = { ...inputs.PreSkillShellCommand, invoked_by: "scheduler" }
    expect(decodeInput(invoker)).toStrictEqual(invoker)
    expect(Hook.isKnownHookInput(decodeInput(invoker))).toBe(true)
    expect(Schema.is(Hook.SessionStartSource)("teleport")).toBe(false)
    expect(Schema.is(Hook.ExitReason)("logout")).toBe(true)
  })

  it("decodes other events as UnknownHookInput, keeping every field", () => {
    const input = { ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: null }
    const decoded = decodeInput(input)
    expect(decoded).toStrictEqual(input)
    expect(Hook.isKnownHookInput(decoded)).toBe(false)
  })

  it("never lets a known event fall into Unknown", () => {
    const result = Schema.decodeUnknownEither(Hook.HookInput)({ ...base, hook_event_name: "UserPromptSubmit" })
    expect(Either.isLeft(result)).toBe(true)
    expect(Either.isLeft(result) && result.left.message).toContain("prompt")
    expect(
      Either.isLeft(Schema.decodeUnknownEither(Hook.UnknownHookInput)({ ...base, hook_event_name: "Stop" }))
    ).toBe(true)
    const { command_name: _name, ...withoutCommandName } = inputs.PreSkillShellCommand
    expect(Either.isLeft(Schema.decodeUnknownEither(Hook.HookInput)(withoutCommandName))).toBe(true)
  })

  it("requires the base fields", () => {
    const { cwd: _cwd, ...withoutCwd } = inputs.SessionEnd
    expect(Either.isLeft(Schema.decodeUnknownEither(Hook.HookInput)(withoutCwd))).toBe(true)
  })

  it("property: known inputs round-trip", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Hook.KnownHookInput), (input) => {
        const encoded = Schema.encodeSync(Hook.HookInput)(input)
        expect(Schema.decodeUnknownSync(Hook.HookInput)(encoded)).toStrictEqual(input)
      }),
      { numRuns: 200 }
    )
  })
})

describe("Hook outputs", () => {
  it("decodes sync outputs with each hookSpecificOutput", () => {
    const outputs = [
      { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "memories", watchPaths: ["/a"] } },
      { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx", sessionTitle: "T" } },
      { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ctx", updatedToolOutput: { a: 1 } } },
      { hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "the test failed before" } },
      {
        decision: "block",
        reason: "tests fail",
        hookSpecificOutput: { hookEventName: "Stop", additionalContext: "x" }
      },
      { continue: false, stopReason: "done", suppressOutput: true, systemMessage: "bye" },
      {}
    ]
    for (const output of outputs) {
      expect(Schema.decodeUnknownSync(Hook.HookOutput)(output)).toStrictEqual(output)
      expect(Schema.encodeSync(Hook.SyncHookOutput)(Schema.decodeUnknownSync(Hook.SyncHookOutput)(output)))
        .toStrictEqual(output)
    }
  })

  it("decodes async outputs", () => {
    const output = { async: true, asyncTimeout: 30_000 }
    const decoded = Schema.decodeUnknownSync(Hook.HookOutput)(output)
    expect(decoded).toStrictEqual(output)
    expect(Schema.is(Hook.AsyncHookOutput)(decoded)).toBe(true)
  })

  it("rejects an unknown decision and an unsupported hookSpecificOutput", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(Hook.SyncHookOutput)({ decision: "maybe" }))).toBe(true)
    expect(
      Either.isLeft(
        Schema.decodeUnknownEither(Hook.SyncHookOutput)({ hookSpecificOutput: { hookEventName: "SessionEnd" } })
      )
    ).toBe(true)
  })

  it("property: outputs round-trip", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Hook.SyncHookOutput), (output) => {
        const encoded = Schema.encodeSync(Hook.SyncHookOutput)(output)
        expect(Schema.decodeUnknownSync(Hook.SyncHookOutput)(encoded)).toStrictEqual(output)
      }),
      { numRuns: 200 }
    )
  })
})

describe("Hook types line up with the SDK", () => {
  it("SDK inputs are accepted by the Encoded side, per event", () => {
    expectTypeOf<Sdk.BaseHookInput>().toExtend<typeof Hook.BaseHookInput.Encoded>()
    expectTypeOf<Sdk.SessionStartHookInput>().toExtend<typeof Hook.SessionStartHookInput.Encoded>()
    expectTypeOf<Sdk.UserPromptSubmitHookInput>().toExtend<typeof Hook.UserPromptSubmitHookInput.Encoded>()
    expectTypeOf<Sdk.PostToolUseHookInput>().toExtend<typeof Hook.PostToolUseHookInput.Encoded>()
    expectTypeOf<Sdk.PostToolUseFailureHookInput>().toExtend<typeof Hook.PostToolUseFailureHookInput.Encoded>()
    expectTypeOf<Sdk.StopHookInput>().toExtend<typeof Hook.StopHookInput.Encoded>()
    expectTypeOf<Sdk.SessionEndHookInput>().toExtend<typeof Hook.SessionEndHookInput.Encoded>()
    expectTypeOf<Sdk.PreSkillShellCommandHookInput>().toExtend<typeof Hook.PreSkillShellCommandHookInput.Encoded>()
    expectTypeOf<Sdk.PreCompactHookInput>().toExtend<typeof Hook.UnknownHookInput.Encoded>()
    expectTypeOf<Sdk.HookInput>().toExtend<typeof Hook.HookInput.Encoded>()
  })

  it("outputs are accepted by the SDK", () => {
    expectTypeOf<Hook.SyncHookOutput>().toExtend<Sdk.SyncHookJSONOutput>()
    expectTypeOf<Hook.AsyncHookOutput>().toExtend<Sdk.AsyncHookJSONOutput>()
    expectTypeOf<Hook.HookOutput>().toExtend<Sdk.HookJSONOutput>()
    expectTypeOf<Hook.SessionStartHookSpecificOutput>().toExtend<Sdk.SessionStartHookSpecificOutput>()
    expectTypeOf<Hook.UserPromptSubmitHookSpecificOutput>().toExtend<Sdk.UserPromptSubmitHookSpecificOutput>()
    expectTypeOf<Hook.PostToolUseHookSpecificOutput>().toExtend<Sdk.PostToolUseHookSpecificOutput>()
    expectTypeOf<Hook.PostToolUseFailureHookSpecificOutput>().toExtend<Sdk.PostToolUseFailureHookSpecificOutput>()
    expectTypeOf<Hook.StopHookSpecificOutput>().toExtend<Sdk.StopHookSpecificOutput>()
  })

  it("SDK outputs of these events decode", () => {
    expectTypeOf<Sdk.AsyncHookJSONOutput>().toExtend<typeof Hook.AsyncHookOutput.Encoded>()
    expectTypeOf<Sdk.SessionStartHookSpecificOutput>().toExtend<typeof Hook.SessionStartHookSpecificOutput.Encoded>()
    expectTypeOf<Sdk.StopHookSpecificOutput>().toExtend<typeof Hook.StopHookSpecificOutput.Encoded>()
  })
})
