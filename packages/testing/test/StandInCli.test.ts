/**
 * The stand-in CLI driven by the real Claude Agent SDK (0.3.330, no native binary): `query()`
 * spawns `src/internal/standin/cli.mjs`, which plays a scenario.
 *
 * Observed SDK behaviour these tests pin down (see also the module doc of `StandInCli.ts`):
 * - every stdout frame is yielded verbatim and in order, except control frames, `keep_alive`
 *   and `transcript_mirror` (swallowed; mirror entries go to `sessionStore.append`);
 * - argv is `--output-format stream-json --verbose --input-format stream-json`, plus
 *   `--session-mirror` with a `sessionStore` and `--resume=<sid>` on resume;
 * - a string prompt arrives as `{type:"user", session_id:"", message:{role:"user",
 *   content:[{type:"text",text}]}, parent_tool_use_id:null}` (no uuid) and stdin closes after the
 *   first `result`; streaming-input messages arrive verbatim;
 * - a non-zero exit rejects the iterator (after the frames written before it) with
 *   `Claude Code process exited with code N. stderr: …`.
 */
import { Decider } from "@acx/convert"
import { SdkMessage, Transcript } from "@acx/schema"
import {
  controlRequestsOf,
  failuresOf,
  framesOf,
  makeStandInCli,
  prepareStandInCli,
  type PrepareStandInCliOptions,
  projectKeyFor,
  promptMessage,
  promptsOf,
  promptStream,
  readStandInLog,
  realisticConversation,
  type StandInCli,
  StandInCliError,
  type StandInFrame,
  startsOf
} from "@acx/testing"
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk"
import { InMemorySessionStore, query } from "@anthropic-ai/claude-agent-sdk"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"

const BASE_ARGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]

const collect = async (messages: AsyncIterable<SDKMessage>): Promise<Array<StandInFrame>> => {
  const out: Array<StandInFrame> = []
  for await (const message of messages) out.push(message as unknown as StandInFrame)
  return out
}

/** Runs `body` with a prepared stand-in and removes its files afterwards. */
const withStandIn = async <A>(
  options: PrepareStandInCliOptions,
  body: (cli: StandInCli) => Promise<A>
): Promise<A> => {
  const cli = await prepareStandInCli(options)
  try {
    return await body(cli)
  } finally {
    await cli.cleanup()
  }
}

/** A fresh directory to use as `options.cwd` (its real path, so project keys are stable). */
const withCwd = async <A>(body: (cwd: string) => Promise<A>): Promise<A> => {
  const cwd = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "acx-standin-cwd-")))
  try {
    return await body(cwd)
  } finally {
    await fs.rm(cwd, { recursive: true, force: true })
  }
}

const decodeKnownEntry = Schema.decodeUnknownEither(Transcript.KnownTranscriptEntry)

/** Folds the decider over frames, as `ClaudeAgentStorage` would: the `Store` decisions. */
const storeDecisions = (frames: ReadonlyArray<unknown>) => {
  let state = Either.getOrThrow(Decider.initialState())
  const stored: Array<Extract<Decider.Decision, { readonly _tag: "Store" }>> = []
  for (const frame of frames) {
    const decision = Decider.decide(state, frame)
    if (decision._tag === "ResolveSession") {
      state = Decider.evolve(state, Decider.StorageEvent.SessionResolved({ id: decision.id }))
    } else if (decision._tag === "Store") {
      stored.push(decision)
      state = Decider.evolve(state, Decider.StorageEvent.MessageStored({ role: decision.role, uuid: decision.uuid }))
    }
  }
  return { stored, sessionId: state.sessionId }
}

describe("StandInCli", () => {
  it("single prompt: yields the scenario's frames in order; logs argv, control requests and the prompt", async () => {
    const sessionId = "5b1c6a0e-2f7d-4c39-9a51-0d3e8f7b2c41"
    await withStandIn({
      scenario: {
        sessionId,
        steps: [
          { emit: { type: "system", subtype: "init", session_id: "{{sessionId}}", cwd: "{{cwd}}", uuid: "{{uuid}}" } },
          { awaitPrompt: true, replay: true, uuid: "0c9f3b1e-8d2a-4f6b-b7c5-3e1a9d4f2b60", expectText: "hi" },
          { emit: { type: "keep_alive" } },
          { emit: { type: "transcript_mirror", filePath: "/elsewhere/x.jsonl", entries: [] } },
          { emit: { type: "brand_new_frame", session_id: "{{sessionId}}", uuid: "{{promptUuid}}" } },
          {
            emit: {
              type: "result",
              subtype: "success",
              is_error: false,
              result: "hello",
              session_id: "{{sessionId}}",
              uuid: "e2a3c4b5-6d7e-4f80-9a1b-2c3d4e5f6a7b"
            }
          }
        ]
      }
    }, async (cli) => {
      const cwd = process.cwd()
      const frames = await collect(query({ prompt: "hi", options: { ...cli.queryOptions } }))
      expect(frames).toEqual([
        { type: "system", subtype: "init", session_id: sessionId, cwd, uuid: expect.any(String) },
        {
          type: "user",
          message: { role: "user", content: [{ type: "text", text: "hi" }] },
          parent_tool_use_id: null,
          uuid: "0c9f3b1e-8d2a-4f6b-b7c5-3e1a9d4f2b60",
          session_id: sessionId,
          isReplay: true
        },
        // keep_alive and transcript_mirror are swallowed; an unknown type is yielded as is
        { type: "brand_new_frame", session_id: sessionId, uuid: "0c9f3b1e-8d2a-4f6b-b7c5-3e1a9d4f2b60" },
        {
          type: "result",
          subtype: "success",
          is_error: false,
          result: "hello",
          session_id: sessionId,
          uuid: "e2a3c4b5-6d7e-4f80-9a1b-2c3d4e5f6a7b"
        }
      ])
      const log = await cli.readLog()
      expect(failuresOf(log)).toEqual([])
      const [start] = startsOf(log)
      expect(start.argv).toEqual(BASE_ARGS)
      expect(start.env.CLAUDE_CONFIG_DIR).toBe(cli.configDir)
      expect(start.env.CLAUDE_CODE_ENTRYPOINT).toBe("sdk-ts")
      expect(start.sessionId).toBe(sessionId)
      expect(controlRequestsOf(log).map((request) => (request.request as StandInFrame).subtype)).toEqual(["initialize"])
      expect(promptsOf(log)).toEqual([
        {
          type: "user",
          session_id: "",
          message: { role: "user", content: [{ type: "text", text: "hi" }] },
          parent_tool_use_id: null
        }
      ])
      expect(framesOf(log).filter((frame) => frame.type === "control_response")).toMatchObject([
        { response: { subtype: "success", response: {} } }
      ])
      expect(log.some((record) => record.kind === "stdinClosed")).toBe(true)
      expect(log.at(-1)).toMatchObject({ kind: "exit", code: 0 })
    })
  })

  it("single prompt, realistic conversation: the frames match expectedFrames", async () => {
    const conversation = realisticConversation({ prompts: ["The date tests fail in CI, fix them"], thinking: true })
    await withStandIn({ scenario: conversation.scenario }, async (cli) => {
      const frames = await collect(
        query({ prompt: "The date tests fail in CI, fix them", options: { ...cli.queryOptions } })
      )
      expect(frames).toEqual(conversation.expectedFrames)
      expect(failuresOf(await cli.readLog())).toEqual([])
    })
  })

  it("streaming input: two prompts, replay echo, realistic frames an acx consumer can store", async () => {
    const conversation = realisticConversation({
      prompts: ["The date tests fail in CI, fix them", "Now make overdue invoices use whole days"],
      subagent: true,
      thinking: true
    })
    await withStandIn({ scenario: conversation.scenario }, async (cli) => {
      const frames = await collect(
        query({ prompt: promptStream(conversation.promptMessages), options: { ...cli.queryOptions } })
      )
      expect(frames).toEqual(conversation.expectedFrames)

      const log = await cli.readLog()
      expect(failuresOf(log)).toEqual([])
      expect(promptsOf(log)).toEqual(conversation.promptMessages)
      const replays = frames.filter((frame) => frame.isReplay === true)
      expect(replays.map((frame) => frame.uuid)).toEqual(conversation.promptMessages.map((message) => message.uuid))
      expect(replays.every((frame) => frame.session_id === conversation.sessionId)).toBe(true)

      // realistic shapes: every frame is a known SDK message
      for (const frame of frames) expect(Either.isRight(SdkMessage.decodeKnown(frame))).toBe(true)
      const kinds = new Set(
        frames.map((frame) => typeof frame.subtype === "string" ? `${frame.type}/${frame.subtype}` : frame.type)
      )
      expect([...kinds].sort()).toEqual([
        "assistant",
        "rate_limit_event",
        "result/success",
        "system/init",
        "system/task_notification",
        "system/task_started",
        "tool_progress",
        "user"
      ])
      // one content block per assistant frame; blocks of a response share message.id
      const assistants = frames.filter((frame) => frame.type === "assistant")
      expect(assistants.every((frame) => (frame.message as { content: Array<unknown> }).content.length === 1)).toBe(
        true
      )
      const ids = assistants.map((frame) => (frame.message as { id: string }).id)
      expect(new Set(ids).size).toBeLessThan(ids.length)
      const blocks = assistants.map((frame) => (frame.message as { content: Array<{ type: string }> }).content[0].type)
      expect(new Set(blocks)).toEqual(new Set(["thinking", "text", "tool_use"]))
      const subagentFrames = frames.filter((frame) => typeof frame.parent_tool_use_id === "string")
      expect(subagentFrames.length).toBeGreaterThanOrEqual(4)
      const toolResults = frames.flatMap((frame) =>
        frame.type === "user" && Array.isArray((frame.message as { content: unknown }).content)
          ? (frame.message as { content: Array<StandInFrame> }).content.filter((block) => block.type === "tool_result")
          : []
      )
      expect(toolResults.filter((block) => block.is_error === true)).toHaveLength(1)
      expect(toolResults.some((block) => typeof block.content === "string")).toBe(true)
      expect(toolResults.some((block) => Array.isArray(block.content))).toBe(true)

      // what acx's decider makes of it: the same as for the expected frames; session from init;
      // each prompt stored once (from its replay); thinking dropped by default
      const decided = storeDecisions(frames)
      expect(decided).toEqual(storeDecisions(conversation.expectedFrames))
      expect(decided.sessionId).toBe(conversation.sessionId)
      expect(decided.stored.filter((decision) => decision.isReplay).map((decision) => decision.uuid)).toEqual(
        conversation.promptMessages.map((message) => message.uuid)
      )
      expect(JSON.stringify(decided.stored.map((decision) => decision.blob))).not.toContain("\"thinking\"")
    })
  })

  it("mirroring: entries land in the SessionStore under the main key and the subagent subpath", async () => {
    await withCwd(async (cwd) => {
      const conversation = realisticConversation({
        prompts: ["The date tests fail in CI, fix them"],
        subagent: true,
        mirror: true,
        cwd
      })
      await withStandIn({ scenario: conversation.scenario, cwd }, async (cli) => {
        const store = new InMemorySessionStore()
        const frames = await collect(query({
          prompt: promptStream(conversation.promptMessages),
          options: { ...cli.queryOptions, sessionStore: store }
        }))
        expect(frames).toEqual(conversation.expectedFrames)

        const projectKey = projectKeyFor(cwd)
        const log = await cli.readLog()
        expect(failuresOf(log)).toEqual([])
        expect(startsOf(log)[0].projectKey).toBe(projectKey)
        expect(startsOf(log)[0].argv).toEqual([...BASE_ARGS, "--session-mirror"])

        const key = { projectKey, sessionId: conversation.sessionId }
        expect(store.getEntries(key)).toEqual(conversation.transcript.main)
        const [agentId] = conversation.subagentIds
        const subpath = `subagents/agent-${agentId}`
        expect(await store.listSubkeys(key)).toEqual([subpath])
        const subagentEntries = store.getEntries({ ...key, subpath })
        expect(subagentEntries).toEqual(conversation.transcript.subagents[subpath])
        expect(subagentEntries.at(-1)).toMatchObject({ type: "agent_metadata", agentType: "Explore" })

        // realistic entries: known transcript entries, one parentUuid chain, frames' uuids
        const main = conversation.transcript.main
        for (const entry of [...main, ...subagentEntries]) expect(Either.isRight(decodeKnownEntry(entry))).toBe(true)
        const chained = main.filter((entry) => entry.type === "user" || entry.type === "assistant")
        expect(chained[0].parentUuid).toBeNull()
        for (let index = 1; index < chained.length; index++) {
          expect(chained[index].parentUuid).toBe(chained[index - 1].uuid)
        }
        const frameUuids = new Set(frames.map((frame) => frame.uuid))
        expect(chained.every((entry) => frameUuids.has(entry.uuid))).toBe(true)
        expect(chained.every((entry) => entry.sessionId === conversation.sessionId && entry.cwd === cwd)).toBe(true)
        expect(subagentEntries.slice(0, -1).every((entry) => entry.isSidechain === true && entry.agentId === agentId))
          .toBe(true)
      })
    })
  })

  it("resume: the stand-in sees --resume=<sid> and the transcript the SDK materialised from the store", async () => {
    await withCwd(async (cwd) => {
      const store = new InMemorySessionStore()
      const first = realisticConversation({
        prompts: ["The date tests fail in CI, fix them"],
        subagent: true,
        mirror: true,
        cwd
      })
      await withStandIn({ scenario: first.scenario, cwd }, async (cli) => {
        await collect(query({
          prompt: promptStream(first.promptMessages),
          options: { ...cli.queryOptions, sessionStore: store }
        }))
        expect(failuresOf(await cli.readLog())).toEqual([])
      })

      const second = realisticConversation({
        prompts: ["Now make overdue invoices use whole days"],
        mirror: true,
        cwd,
        resumeOf: first
      })
      expect(second.scenario.steps.slice(0, 2)).toMatchObject([
        { expectArgs: { resume: first.sessionId } },
        { expectResumeTranscript: first.storedTranscript.main }
      ])
      await withStandIn({ scenario: second.scenario, cwd }, async (cli) => {
        const frames = await collect(query({
          prompt: promptStream(second.promptMessages),
          options: { ...cli.queryOptions, sessionStore: store, resume: first.sessionId }
        }))
        expect(frames).toEqual(second.expectedFrames)

        const log = await cli.readLog()
        expect(failuresOf(log)).toEqual([])
        const [start] = startsOf(log)
        expect(start.argv).toContain(`--resume=${first.sessionId}`)
        // the SDK resumes from a temporary config dir of its own, not the one we passed
        expect(start.configDir).not.toBe(cli.configDir)
        expect(log.filter((record) => record.kind === "assertion").map((record) => [record.name, record.ok]))
          .toEqual([
            ["expectArgs", true],
            ["expectResumeTranscript", true],
            ["awaitPrompt", true]
          ])

        // mirroring from the resumed run still lands under the original key
        const key = { projectKey: projectKeyFor(cwd), sessionId: first.sessionId }
        expect(store.getEntries(key)).toEqual(second.storedTranscript.main)
        expect(second.transcript.main[0].parentUuid).toBe(
          first.transcript.main.filter((e) => e.type === "assistant").at(-1)?.uuid
        )
      })
    })
  })

  it("resume: a transcript that differs from the expectation fails the run with the reason", async () => {
    await withCwd(async (cwd) => {
      const store = new InMemorySessionStore()
      const first = realisticConversation({ prompts: ["hi"], mirror: true, cwd })
      await withStandIn({ scenario: first.scenario, cwd }, async (cli) => {
        await collect(query({ prompt: "hi", options: { ...cli.queryOptions, sessionStore: store } }))
      })
      const sessionId = first.sessionId
      await withStandIn({
        scenario: { sessionId, steps: [{ expectResumeTranscript: first.transcript.main.slice(1) }] },
        cwd
      }, async (cli) => {
        const run = collect(
          query({ prompt: "again", options: { ...cli.queryOptions, sessionStore: store, resume: sessionId } })
        )
        await expect(run).rejects.toThrow(
          /exited with code 2.*expectResumeTranscript.*expected \d+ entries, found \d+/s
        )
        expect(failuresOf(await cli.readLog())).toHaveLength(2)
      })
    })
  })

  it("failure: an exit code surfaces as a rejection of the query iterator, after the frames before it", async () => {
    await withStandIn({
      scenario: {
        steps: [
          { emit: { type: "system", subtype: "init", session_id: "{{sessionId}}", uuid: "{{uuid}}" } },
          { awaitPrompt: true },
          { exit: 3, stderr: "simulated crash" }
        ]
      }
    }, async (cli) => {
      const seen: Array<StandInFrame> = []
      const run = (async () => {
        for await (const message of query({ prompt: "hi", options: { ...cli.queryOptions } })) {
          seen.push(message as unknown as StandInFrame)
        }
      })()
      await expect(run).rejects.toThrow(/Claude Code process exited with code 3.*simulated crash/s)
      expect(seen.map((frame) => frame.type)).toEqual(["system"])
      expect((await cli.readLog()).at(-1)).toMatchObject({ kind: "exit", code: 3 })
    })
  })

  it("failure: exiting before the initialize handshake rejects too, without hanging", async () => {
    await withStandIn({ scenario: { steps: [{ exit: 3 }] } }, async (cli) => {
      await expect(collect(query({ prompt: "hi", options: { ...cli.queryOptions } }))).rejects.toThrow(/code 3/)
    })
  })

  it("failure: an expectArgs mismatch is reported on stderr, in the log, and as exit code 2", async () => {
    await withStandIn({
      scenario: { steps: [{ expectArgs: { resume: "6f1d2c3b-4a59-4e8d-9c7b-1a2b3c4d5e6f", sessionMirror: true } }] }
    }, async (cli) => {
      const stderr: Array<string> = []
      const run = collect(
        query({ prompt: "hi", options: { ...cli.queryOptions, stderr: (data) => void stderr.push(data) } })
      )
      await expect(run).rejects.toThrow(
        /exited with code 2.*expected --resume=6f1d2c3b-4a59-4e8d-9c7b-1a2b3c4d5e6f, got no --resume; expected --session-mirror/s
      )
      expect(stderr.join("")).toContain("acx stand-in CLI: step 0 (expectArgs)")
      const log = await cli.readLog()
      expect(log.find((record) => record.kind === "assertion")).toMatchObject({ name: "expectArgs", ok: false })
      expect(failuresOf(log)).toHaveLength(2)
    })
  })

  it("failure: stdin closing while a prompt is awaited fails fast instead of hanging", async () => {
    await withStandIn({
      scenario: {
        steps: [
          { awaitPrompt: true },
          { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } },
          // a string prompt is a single turn: the SDK closes stdin after the first result
          { awaitPrompt: true }
        ]
      }
    }, async (cli) => {
      await expect(collect(query({ prompt: "hi", options: { ...cli.queryOptions } }))).rejects.toThrow(
        /step 2 \(awaitPrompt\): stdin closed before the awaited user message arrived/
      )
    })
  })

  it("failure: a prompt that never comes times out", async () => {
    await withStandIn(
      { scenario: { promptTimeoutMs: 200, steps: [{ awaitPrompt: true }, { awaitPrompt: true }] } },
      async (cli) => {
        let release = () => {}
        const held = new Promise<void>((resolve) => {
          release = resolve
        })
        try {
          const run = collect(
            query({ prompt: promptStream([promptMessage("only one")], held), options: { ...cli.queryOptions } })
          )
          await expect(run).rejects.toThrow(/step 1 \(awaitPrompt\): no user message on stdin within 200 ms/)
        } finally {
          release()
        }
      }
    )
  })

  it("hook step: calls the SDK's programmatic hooks through hook_callback control requests", async () => {
    const inputs: Array<unknown> = []
    await withStandIn({
      scenario: {
        steps: [
          { awaitPrompt: true },
          {
            hook: { event: "UserPromptSubmit", input: { prompt: "hi" } },
            expectOutputs: [
              { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "remembered: tabs" } }
            ]
          },
          { hook: { event: "PostToolUse", toolName: "Bash", toolUseId: "toolu_01", input: { tool_input: {} } } },
          { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } }
        ]
      }
    }, async (cli) => {
      await collect(query({
        prompt: "hi",
        options: {
          ...cli.queryOptions,
          hooks: {
            UserPromptSubmit: [{
              hooks: [async (input) => {
                inputs.push(input)
                return {
                  hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "remembered: tabs" }
                }
              }]
            }],
            PostToolUse: [{ matcher: "Edit|Write", hooks: [async () => ({})] }]
          }
        }
      }))
      const log = await cli.readLog()
      expect(failuresOf(log)).toEqual([])
      expect(inputs).toEqual([{
        session_id: cli.sessionId,
        transcript_path: expect.stringMatching(new RegExp(`/projects/[^/]+/${cli.sessionId}\\.jsonl$`)),
        cwd: process.cwd(),
        hook_event_name: "UserPromptSubmit",
        prompt: "hi"
      }])
      const hooks = log.filter((record) => record.kind === "hook")
      // PostToolUse's only matcher does not match Bash: no callback
      expect(hooks.map((record) => [record.event, record.callbackIds.length])).toEqual([
        ["UserPromptSubmit", 1],
        ["PostToolUse", 0]
      ])
    })
  })

  it("request step: sends a control request (can_use_tool) and checks the SDK's answer", async () => {
    const asked: Array<[string, unknown]> = []
    await withStandIn({
      scenario: {
        steps: [
          { awaitPrompt: true },
          {
            request: {
              subtype: "can_use_tool",
              tool_name: "Bash",
              input: { command: "rm -rf build" },
              tool_use_id: "toolu_01AbCdEfGhIjKlMnOpQrStUv"
            },
            expectResponse: {
              behavior: "deny",
              message: "no deletions",
              toolUseID: "toolu_01AbCdEfGhIjKlMnOpQrStUv"
            }
          },
          { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } }
        ]
      }
    }, async (cli) => {
      await collect(query({
        prompt: "hi",
        options: {
          ...cli.queryOptions,
          canUseTool: async (toolName, input) => {
            asked.push([toolName, input])
            return { behavior: "deny", message: "no deletions" }
          }
        }
      }))
      expect(failuresOf(await cli.readLog())).toEqual([])
      expect(asked).toEqual([["Bash", { command: "rm -rf build" }]])
    })
  })

  it("a consumer that stops early ends the stand-in: the SDK closes stdin, then SIGTERMs it after ~2 s", async () => {
    await withStandIn({
      scenario: {
        steps: [
          { emit: { type: "system", subtype: "init", session_id: "{{sessionId}}", uuid: "{{uuid}}" } },
          // longer than the test's timeout: only the SDK's SIGTERM ends it in time
          { sleepMs: 600_000 },
          { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } }
        ]
      }
    }, async (cli) => {
      for await (const message of query({ prompt: "hi", options: { ...cli.queryOptions } })) {
        expect(message.type).toBe("system")
        break
      }
      // `break` awaits the SDK's cleanup: stdin closed, a grace period, then SIGTERM (the exit
      // code 143 below: the stand-in did not end its step itself)
      // the signal may land a moment after `break` returns
      let log = await cli.readLog()
      for (let attempt = 0; attempt < 40 && log.at(-1)?.kind !== "exit"; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 25))
        log = await cli.readLog()
      }
      expect(log.slice(-2)).toMatchObject([{ kind: "signal", signal: "SIGTERM" }, { kind: "exit", code: 143 }])
      expect(log.some((record) => record.kind === "stdinClosed")).toBe(true)
    })
  })

  it("control requests the stand-in does not know are answered with {}; configured ones as configured", async () => {
    await withStandIn({
      scenario: {
        controlResponses: { mcp_status: { mcpServers: [] } },
        steps: [
          { awaitPrompt: true },
          { sleepMs: 300 },
          { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } }
        ]
      }
    }, async (cli) => {
      const q = query({ prompt: "hi", options: { ...cli.queryOptions } })
      const first = q.next()
      expect(await q.mcpServerStatus()).toEqual([])
      await q.setModel("claude-opus-4-5")
      await first
      await collect(q)
      const log = await cli.readLog()
      const subtypes = controlRequestsOf(log).map((request) => (request.request as StandInFrame).subtype)
      expect(subtypes).toEqual(["initialize", "mcp_status", "set_model"])
    })
  })

  it("makeStandInCli: a scoped Effect whose directory is removed with the scope", async () => {
    const dir = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const cli = yield* makeStandInCli({
        scenario: {
          steps: [
            { awaitPrompt: true, replay: true },
            { emit: { type: "result", subtype: "success", is_error: false, result: "", session_id: "{{sessionId}}" } }
          ]
        }
      })
      const frames = yield* Effect.promise(() => collect(query({ prompt: "hi", options: { ...cli.queryOptions } })))
      expect(frames.map((frame) => frame.type)).toEqual(["user", "result"])
      const log = yield* readStandInLog(cli)
      expect(failuresOf(log)).toEqual([])
      expect(existsSync(cli.dir)).toBe(true)
      return cli.dir
    })))
    expect(existsSync(dir)).toBe(false)
  })

  it("prepareStandInCli rejects a scenario that does not match the schema", async () => {
    const scenario = { steps: [{ emits: { type: "system" } }] } as unknown as PrepareStandInCliOptions["scenario"]
    await expect(prepareStandInCli({ scenario })).rejects.toBeInstanceOf(StandInCliError)
    await expect(prepareStandInCli({ scenario })).rejects.toMatchObject({ reason: "InvalidScenario" })
  })

  it("projectKeyFor follows the SDK's rule, hash suffix for long paths included", () => {
    expect(projectKeyFor("/srv/app/my.proj")).toBe("-srv-app-my-proj")
    const long = `/srv/${"a".repeat(250)}`
    const key = projectKeyFor(long)
    expect(key.slice(0, 201)).toBe(`${long.replace(/[^a-zA-Z0-9]/g, "-").slice(0, 200)}-`)
    expect(key.length).toBeGreaterThan(201)
  })
})
