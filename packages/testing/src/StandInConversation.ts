/**
 * Realistic conversations for the stand-in CLI: the scenario a real Claude Code session would
 * play (prompts, assistant frames with usage, tool calls and results, subagents, transcript
 * mirrors) and what `query()` yields for it. Re-exported by `StandInCli`.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import type { Builder } from "./internal/conversationBuilder.js"
import { systemInit, turn } from "./internal/conversationTurn.js"
import { type PromptMessage, promptMessage } from "./StandInPrompt.js"
import type { StandInFrame, StandInScenario } from "./StandInScenario.js"
import { expectResumeStep, type StoredTranscript } from "./StandInTranscript.js"

// The turns are written in `internal/conversationTurn.ts`, on the builder and primitives of
// `internal/conversationBuilder.ts`, over the files of `internal/conversationFiles.ts`.

// -------------------------------------------------------------------------------------------------
// realistic conversations
// -------------------------------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface RealisticConversationOptions {
  /** The session id (default: a fresh UUID; with `resumeOf`, its session id). */
  readonly sessionId?: string
  /** One turn per prompt (at least one). */
  readonly prompts: ReadonlyArray<string>
  /** The first turn delegates to an `Explore` subagent through the `Task` tool. */
  readonly subagent?: boolean
  /** Each turn opens with a signed thinking block. */
  readonly thinking?: boolean
  /**
   * Emit `transcript_mirror` frames (main transcript and subagent), so `sessionStore` receives
   * the entries. `projectKey` defaults to the SDK's key for the stand-in's cwd.
   */
  readonly mirror?: boolean | { readonly projectKey?: string }
  /** The `cwd` the frames and entries claim (default `/home/dev/projects/acme-api`). */
  readonly cwd?: string
  /** Default `claude-sonnet-4-5-20250929`. */
  readonly model?: string
  /** Timestamp of the first entry (default: now). */
  readonly startTime?: Date
  /**
   * Continue that conversation's session: the scenario first asserts `--resume=<sid>` and that
   * the SDK materialised `resumeOf.storedTranscript`; the new entries chain onto its last one.
   */
  readonly resumeOf?: RealisticConversation
}

/**
 * A scripted multi-turn coding session and what should come out of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RealisticConversation {
  readonly sessionId: string
  readonly scenario: StandInScenario
  /** The prompts as streaming-input messages; their uuids are the replays' uuids. */
  readonly promptMessages: ReadonlyArray<PromptMessage>
  /**
   * What `query()` yields, in order, when the prompts are sent as `promptMessages` (or, for one
   * prompt, as a plain string): every frame except the swallowed `transcript_mirror` ones.
   */
  readonly expectedFrames: ReadonlyArray<StandInFrame>
  /** The transcript entries this run writes (mirrored when `mirror` is set). */
  readonly transcript: StoredTranscript
  /** `resumeOf`'s stored transcript followed by this run's: what a store holds afterwards. */
  readonly storedTranscript: StoredTranscript
  /** The subagents' ids (`subagents/agent-<id>`). */
  readonly subagentIds: ReadonlyArray<string>
}

const DEFAULT_CWD = "/home/dev/projects/acme-api"
const DEFAULT_MODEL = "claude-sonnet-4-5-20250929"

const lastUuid = (entries: ReadonlyArray<StandInFrame>): string | null => {
  for (let index = entries.length - 1; index >= 0; index--) {
    const uuid = entries[index].uuid
    if (typeof uuid === "string") return uuid
  }
  return null
}

/**
 * A scenario for a realistic multi-turn coding session, with the frames `query()` should yield
 * and the transcript entries it writes. Per prompt: await the prompt and replay it; assistant
 * frames of one content block each, sharing `message.id` within a response (a signed thinking
 * block with `thinking`, text, `Read` / `Bash` / `Edit` tool_use); user tool_result frames with
 * `tool_use_result` (string and array content; the first turn's test run fails with
 * `is_error: true`); a `tool_progress`; and a `result/success`. The first turn also has, with
 * `subagent`, a `Task` tool_use, `system/task_started`, the subagent's user/assistant frames
 * (`parent_tool_use_id` = the Task id), `system/task_notification` and the Task's tool_result;
 * and a `rate_limit_event`. A `system/init` opens the run.
 *
 * Transcript entries look like the CLI's (`parentUuid` chain, `sessionId`, `cwd`, `timestamp`,
 * `requestId`, `toolUseResult`, `sourceToolAssistantUUID`, `isSidechain` + `agentId` in the
 * subagent, which ends with an `agent_metadata` entry, plus an `ai-title` entry); their uuids are
 * the frames' uuids. With `mirror`, they are mirrored in three batches per turn (before the
 * subagent, the subagent's file, the rest), all before the turn's `result`.
 *
 * Send the prompts as `promptMessages` (e.g. `promptStream(conversation.promptMessages)`), or a
 * single prompt as a plain string: replays then match `expectedFrames`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const realisticConversation = (options: RealisticConversationOptions): RealisticConversation => {
  if (options.prompts.length === 0) throw new Error("realisticConversation: at least one prompt is needed")
  const previous = options.resumeOf
  const sessionId = previous?.sessionId ?? options.sessionId ?? randomUUID()
  const mirror = options.mirror === undefined ? false : options.mirror !== false
  const projectKey = typeof options.mirror === "object" ? options.mirror.projectKey : undefined
  const b: Builder = {
    sessionId,
    cwd: options.cwd ?? DEFAULT_CWD,
    model: options.model ?? DEFAULT_MODEL,
    mirror,
    steps: [],
    frames: [],
    main: [],
    subagents: {},
    subagentIds: [],
    pendingMain: [],
    lastMainUuid: previous === undefined ? null : lastUuid(previous.storedTranscript.main),
    clock: (options.startTime ?? new Date()).getTime()
  }
  if (previous !== undefined) {
    b.steps.push({ expectArgs: { resume: sessionId } }, expectResumeStep(previous.storedTranscript))
  }
  systemInit(b)
  const offset = previous?.promptMessages.length ?? 0
  const promptMessages = options.prompts.map((prompt) => promptMessage(prompt))
  for (const [index, message] of promptMessages.entries()) {
    turn(b, {
      index: offset + index,
      text: message.message.content[0].text,
      uuid: message.uuid,
      thinking: options.thinking === true,
      subagent: options.subagent === true && index === 0,
      rateLimit: index === 0
    })
  }
  const transcript: StoredTranscript = { main: b.main, subagents: b.subagents }
  const storedTranscript: StoredTranscript = previous === undefined ? transcript : {
    main: [...previous.storedTranscript.main, ...b.main],
    subagents: { ...previous.storedTranscript.subagents, ...b.subagents }
  }
  return {
    sessionId,
    scenario: { sessionId, ...(projectKey === undefined ? {} : { projectKey }), steps: b.steps },
    promptMessages,
    expectedFrames: b.frames,
    transcript,
    storedTranscript,
    subagentIds: b.subagentIds
  }
}
