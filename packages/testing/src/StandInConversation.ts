/**
 * Realistic conversations for the stand-in CLI: the scenario a real Claude Code session would
 * play (prompts, assistant frames with usage, tool calls and results, subagents, transcript
 * mirrors) and what `query()` yields for it. Re-exported by `StandInCli`.
 *
 * @since 0.1.0
 */
import { randomBytes, randomUUID, type UUID } from "node:crypto"
import { type PromptMessage, promptMessage } from "./StandInPrompt.js"
import type { StandInFrame, StandInScenario, StandInStep } from "./StandInScenario.js"
import { STANDIN_CLAUDE_CODE_VERSION } from "./StandInScenario.js"
import { expectResumeStep, type StoredTranscript } from "./StandInTranscript.js"

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

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const base62 = (length: number): string => Array.from(randomBytes(length), (byte) => BASE62[byte % 62]).join("")

const DEFAULT_CWD = "/home/dev/projects/acme-api"
const DEFAULT_MODEL = "claude-sonnet-4-5-20250929"
const TOOLS = [
  "Task",
  "Bash",
  "Glob",
  "Grep",
  "Read",
  "Edit",
  "Write",
  "NotebookEdit",
  "WebFetch",
  "TodoWrite",
  "WebSearch"
]

interface TurnFile {
  readonly file: string
  readonly test: string
  readonly lines: ReadonlyArray<string>
  readonly oldString: string
  readonly newString: string
  readonly failure: string
  readonly summary: string
}

const FILES: ReadonlyArray<TurnFile> = [
  {
    file: "src/dates.ts",
    test: "test/dates.test.ts",
    lines: [
      "export const parseDate = (input: string): Date => {",
      "  const [year, month, day] = input.split(\"-\").map(Number)",
      "  return new Date(year, month - 1, day)",
      "}",
      "",
      "export const formatDate = (date: Date): string => date.toISOString().slice(0, 10)"
    ],
    oldString: "  return new Date(year, month - 1, day)",
    newString: "  return new Date(Date.UTC(year, month - 1, day))",
    failure: " FAIL  test/dates.test.ts > parseDate > keeps the calendar day in UTC\n" +
      "AssertionError: expected '2024-03-09' to be '2024-03-10' // Object.is equality",
    summary: "`parseDate` now builds the date in UTC, so `formatDate(parseDate(s))` round-trips in every time zone."
  },
  {
    file: "src/routes/invoices.ts",
    test: "test/routes/invoices.test.ts",
    lines: [
      "import { parseDate } from \"../dates.js\"",
      "",
      "export const dueDate = (body: { readonly dueDate: string }): Date => parseDate(body.dueDate)",
      "",
      "export const isOverdue = (due: Date, now: Date): boolean => due.getTime() < now.getTime()"
    ],
    oldString: "due.getTime() < now.getTime()",
    newString: "due.getTime() + 86_400_000 <= now.getTime()",
    failure: "",
    summary: "an invoice is now overdue only once its whole due day has passed."
  },
  {
    file: "src/jobs/reminders.ts",
    test: "test/jobs/reminders.test.ts",
    lines: [
      "import { isOverdue } from \"../routes/invoices.js\"",
      "",
      "export const remindersFor = (rows: ReadonlyArray<{ readonly due: Date }>, now: Date) =>",
      "  rows.filter((row) => isOverdue(row.due, now))"
    ],
    oldString: "rows.filter((row) => isOverdue(row.due, now))",
    newString: "rows.filter((row) => isOverdue(row.due, now)).slice(0, 100)",
    failure: "",
    summary: "reminders are capped at 100 per run, matching the mail provider's batch limit."
  }
]

const numbered = (lines: ReadonlyArray<string>): string =>
  lines.map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join("\n")

interface Builder {
  readonly sessionId: string
  readonly cwd: string
  readonly model: string
  readonly mirror: boolean
  readonly steps: Array<StandInStep>
  readonly frames: Array<StandInFrame>
  readonly main: Array<StandInFrame>
  readonly subagents: Record<string, Array<StandInFrame>>
  readonly subagentIds: Array<string>
  pendingMain: Array<StandInFrame>
  lastMainUuid: string | null
  clock: number
}

const emitFrame = (b: Builder, frame: StandInFrame): StandInFrame => {
  b.steps.push({ emit: frame })
  b.frames.push(frame)
  return frame
}

const tick = (b: Builder, ms: number): string => {
  b.clock += ms
  return new Date(b.clock).toISOString()
}

const entryBase = (b: Builder, parentUuid: string | null, timestamp: string) => ({
  parentUuid,
  isSidechain: false,
  userType: "external",
  entrypoint: "sdk-ts",
  cwd: b.cwd,
  sessionId: b.sessionId,
  version: STANDIN_CLAUDE_CODE_VERSION,
  gitBranch: "main",
  timestamp
})

const addMainEntry = (b: Builder, entry: StandInFrame): void => {
  b.pendingMain.push(entry)
  if (typeof entry.uuid === "string") b.lastMainUuid = entry.uuid
}

const flushMain = (b: Builder): void => {
  if (b.pendingMain.length === 0) return
  if (b.mirror) b.steps.push({ mirror: { entries: b.pendingMain } })
  b.main.push(...b.pendingMain)
  b.pendingMain = []
}

interface ApiMessage {
  readonly id: string
  readonly requestId: string
  readonly usage: StandInFrame
}

const apiMessage = (inputTokens: number, outputTokens: number): ApiMessage => {
  const variation = randomBytes(1)[0] % 7
  const cacheCreation = 1_200 + variation * 137
  return {
    id: `msg_01${base62(22)}`,
    requestId: `req_011C${base62(20)}`,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: 18_432 + variation * 911,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: cacheCreation },
      output_tokens: outputTokens,
      service_tier: "standard"
    }
  }
}

interface Thread {
  /** `null` on the main thread, the `Task` tool_use id in a subagent. */
  readonly parentToolUseId: string | null
  /** The subagent's id and entries, in a subagent. */
  readonly agent?: { readonly id: string; readonly entries: Array<StandInFrame>; lastUuid: string | null }
}

const record = (b: Builder, thread: Thread, entry: StandInFrame): void => {
  if (thread.agent === undefined) {
    addMainEntry(b, entry)
  } else {
    thread.agent.entries.push(entry)
    if (typeof entry.uuid === "string") thread.agent.lastUuid = entry.uuid
  }
}

const baseFor = (b: Builder, thread: Thread, timestamp: string) =>
  thread.agent === undefined
    ? entryBase(b, b.lastMainUuid, timestamp)
    : { ...entryBase(b, thread.agent.lastUuid, timestamp), isSidechain: true, agentId: thread.agent.id }

/** One assistant frame (and entry) per content block; the blocks of a response share its id. */
const assistant = (b: Builder, thread: Thread, api: ApiMessage, block: StandInFrame): StandInFrame => {
  const message = {
    model: b.model,
    id: api.id,
    type: "message",
    role: "assistant",
    content: [block],
    stop_reason: null,
    stop_sequence: null,
    usage: api.usage
  }
  const frame = emitFrame(b, {
    type: "assistant",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 900)),
    type: "assistant",
    message,
    requestId: api.requestId,
    uuid: frame.uuid
  })
  return frame
}

const toolResult = (
  b: Builder,
  thread: Thread,
  toolUse: { readonly id: string; readonly assistantUuid: unknown },
  content: string | ReadonlyArray<StandInFrame>,
  toolUseResult: unknown,
  isError = false
): StandInFrame => {
  const message = {
    role: "user",
    content: [{ tool_use_id: toolUse.id, type: "tool_result", content, ...(isError ? { is_error: true } : {}) }]
  }
  const frame = emitFrame(b, {
    type: "user",
    message,
    parent_tool_use_id: thread.parentToolUseId,
    session_id: b.sessionId,
    uuid: randomUUID(),
    tool_use_result: toolUseResult
  })
  record(b, thread, {
    ...baseFor(b, thread, tick(b, 1_400)),
    type: "user",
    message,
    uuid: frame.uuid,
    toolUseResult,
    sourceToolAssistantUUID: toolUse.assistantUuid
  })
  return frame
}

const toolUse = (
  b: Builder,
  thread: Thread,
  api: ApiMessage,
  name: string,
  input: StandInFrame
): { readonly id: string; readonly assistantUuid: unknown } => {
  const id = `toolu_01${base62(22)}`
  const frame = assistant(b, thread, api, { type: "tool_use", id, name, input })
  return { id, assistantUuid: frame.uuid }
}

const text = (value: string): StandInFrame => ({ type: "text", text: value })

const MAIN: Thread = { parentToolUseId: null }

const systemInit = (b: Builder): void => {
  emitFrame(b, {
    type: "system",
    subtype: "init",
    cwd: b.cwd,
    session_id: b.sessionId,
    tools: TOOLS,
    mcp_servers: [],
    model: b.model,
    permissionMode: "default",
    slash_commands: ["compact", "context", "cost", "init", "review", "security-review"],
    apiKeySource: "none",
    claude_code_version: STANDIN_CLAUDE_CODE_VERSION,
    output_style: "default",
    agents: ["general-purpose", "statusline-setup", "output-style-setup", "Explore", "Plan"],
    skills: [],
    plugins: [],
    uuid: randomUUID()
  })
}

const subagentTurn = (b: Builder, taskSource: TurnFile, api: ApiMessage): void => {
  const description = "Find callers of the changed function"
  const prompt = `Find every caller of the function defined in ${taskSource.file} under src/ and report, ` +
    "for each one, how it uses the returned value. Do not modify any file."
  const task = toolUse(b, MAIN, api, "Task", { description, prompt, subagent_type: "Explore" })
  const agentId = `a${randomBytes(8).toString("hex")}`
  b.subagentIds.push(agentId)
  emitFrame(b, {
    type: "system",
    subtype: "task_started",
    task_id: agentId,
    tool_use_id: task.id,
    description,
    subagent_type: "Explore",
    task_type: "local_agent",
    prompt,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  const agentState = { id: agentId, entries: [] as Array<StandInFrame>, lastUuid: null as string | null }
  const agent: Thread = { parentToolUseId: task.id, agent: agentState }
  const promptMessage = { role: "user", content: [text(prompt)] }
  const promptFrame = emitFrame(b, {
    type: "user",
    message: promptMessage,
    parent_tool_use_id: task.id,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  record(b, agent, { ...baseFor(b, agent, tick(b, 300)), type: "user", message: promptMessage, uuid: promptFrame.uuid })
  const grepApi = apiMessage(4, 96)
  const grep = toolUse(b, agent, grepApi, "Grep", {
    pattern: "parseDate\\(",
    path: `${b.cwd}/src`,
    output_mode: "content",
    "-n": true
  })
  const matches = "src/routes/invoices.ts:3:export const dueDate = (body: { readonly dueDate: string }): Date => " +
    "parseDate(body.dueDate)\nsrc/jobs/reminders.ts:4:  rows.filter((row) => isOverdue(row.due, now))"
  toolResult(b, agent, grep, matches, {
    mode: "content",
    numFiles: 0,
    filenames: [],
    content: matches,
    numLines: 2
  })
  const answer = "`parseDate` has one direct caller, `dueDate` in src/routes/invoices.ts, whose result feeds " +
    "`isOverdue`; src/jobs/reminders.ts reaches it indirectly through `isOverdue`. Both compare whole days, so " +
    "a UTC date is what they expect."
  assistant(b, agent, apiMessage(5, 148), text(answer))
  const subpath = `subagents/agent-${agentId}`
  const entries = [
    ...agentState.entries,
    { type: "agent_metadata", agentType: "Explore", toolUseId: task.id, description }
  ]
  b.subagents[subpath] = entries
  if (b.mirror) b.steps.push({ mirror: { entries, subpath } })
  emitFrame(b, {
    type: "system",
    subtype: "task_notification",
    task_id: agentId,
    tool_use_id: task.id,
    status: "completed",
    output_file: "",
    summary: "Found the callers of parseDate",
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  const usage = {
    input_tokens: 15,
    cache_creation_input_tokens: 9_923,
    cache_read_input_tokens: 12_118,
    output_tokens: 244,
    service_tier: "standard"
  }
  toolResult(b, MAIN, task, [text(answer)], {
    status: "completed",
    prompt,
    agentId,
    content: [text(answer)],
    totalDurationMs: 8_423,
    totalTokens: 22_300,
    totalToolUseCount: 1,
    usage
  })
}

interface TurnOptions {
  readonly index: number
  readonly text: string
  readonly uuid: UUID
  readonly thinking: boolean
  readonly subagent: boolean
  readonly rateLimit: boolean
}

const turn = (b: Builder, options: TurnOptions): void => {
  const source = FILES[options.index % FILES.length]
  const filePath = `${b.cwd}/${source.file}`
  const started = b.clock
  b.steps.push({ awaitPrompt: true, replay: true, uuid: options.uuid, expectText: options.text })
  const promptContent = [text(options.text)]
  b.frames.push({
    type: "user",
    message: { role: "user", content: promptContent },
    parent_tool_use_id: null,
    uuid: options.uuid,
    session_id: b.sessionId,
    isReplay: true
  })
  addMainEntry(b, {
    ...entryBase(b, b.lastMainUuid, tick(b, 2_000)),
    type: "user",
    message: { role: "user", content: promptContent },
    uuid: options.uuid,
    permissionMode: "default"
  })
  const apiCalls: Array<ApiMessage> = []
  const api = (input: number, output: number) => {
    const message = apiMessage(input, output)
    apiCalls.push(message)
    return message
  }

  // 1. think, say what comes next, read the file
  const first = api(3, 187)
  if (options.thinking) {
    assistant(b, MAIN, first, {
      type: "thinking",
      thinking: `The user asked: "${options.text.slice(0, 120)}". I should read ${source.file} before changing ` +
        `anything, then run ${source.test} to see the current behaviour.`,
      signature: randomBytes(96).toString("base64")
    })
  }
  assistant(b, MAIN, first, text(`I'll start by reading \`${source.file}\` to see the current implementation.`))
  const read = toolUse(b, MAIN, first, "Read", { file_path: filePath })
  const content = source.lines.join("\n")
  toolResult(b, MAIN, read, numbered(source.lines), {
    type: "text",
    file: { filePath, content, numLines: source.lines.length, startLine: 1, totalLines: source.lines.length }
  })

  // 2. run the tests (failing on the first turn)
  const bashApi = api(5, 96)
  const command = `pnpm vitest run ${source.test}`
  const bash = toolUse(b, MAIN, bashApi, "Bash", { command, description: `Run ${source.test}` })
  emitFrame(b, {
    type: "tool_progress",
    tool_use_id: bash.id,
    tool_name: "Bash",
    parent_tool_use_id: null,
    elapsed_time_seconds: 3,
    session_id: b.sessionId,
    uuid: randomUUID()
  })
  if (options.index === 0 && source.failure !== "") {
    const output = `Exit code 1\n${source.failure}\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)`
    toolResult(b, MAIN, bash, [text(output)], `Error: ${output}`, true)
  } else {
    const stdout = ` ✓ ${source.test} (5 tests) 12ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)`
    toolResult(b, MAIN, bash, [text(stdout)], { stdout, stderr: "", interrupted: false, isImage: false })
  }
  flushMain(b)

  // 3. delegate to a subagent
  if (options.subagent) {
    subagentTurn(b, source, api(6, 212))
    flushMain(b)
  }
  if (options.rateLimit) {
    emitFrame(b, {
      type: "rate_limit_event",
      rate_limit_info: {
        status: "allowed_warning",
        resetsAt: Math.floor(b.clock / 1000) + 3 * 3600,
        rateLimitType: "five_hour",
        utilization: 0.82
      },
      session_id: b.sessionId,
      uuid: randomUUID()
    })
  }

  // 4. edit, then report
  const editApi = api(4, 161)
  const edit = toolUse(b, MAIN, editApi, "Edit", {
    file_path: filePath,
    old_string: source.oldString,
    new_string: source.newString
  })
  const lineIndex = source.lines.findIndex((line) => line.includes(source.oldString))
  toolResult(b, MAIN, edit, `The file ${filePath} has been updated successfully.`, {
    filePath,
    oldString: source.oldString,
    newString: source.newString,
    originalFile: content,
    structuredPatch: [{
      oldStart: lineIndex + 1,
      oldLines: 1,
      newStart: lineIndex + 1,
      newLines: 1,
      lines: [`-${source.lines[lineIndex]}`, `+${source.lines[lineIndex].replace(source.oldString, source.newString)}`]
    }],
    userModified: false,
    replaceAll: false
  })
  const finalApi = api(3, 74)
  const finalText = `Done: in \`${source.file}\`, ${source.summary}`
  assistant(b, MAIN, finalApi, text(finalText))
  if (options.index === 0) {
    addMainEntry(b, { type: "ai-title", aiTitle: "Fix date handling in invoices", sessionId: b.sessionId })
  }
  flushMain(b)

  // 5. the turn's result
  const sum = (pick: (usage: StandInFrame) => unknown) =>
    apiCalls.reduce((total, call) => total + Number(pick(call.usage)), 0)
  const inputTokens = sum((usage) => usage.input_tokens)
  const outputTokens = sum((usage) => usage.output_tokens)
  const cacheRead = sum((usage) => usage.cache_read_input_tokens)
  const cacheCreation = sum((usage) => usage.cache_creation_input_tokens)
  const cost = Number(((inputTokens * 3 + outputTokens * 15 + cacheRead * 0.3 + cacheCreation * 3.75) / 1e6).toFixed(6))
  const duration = Math.max(1, b.clock - started)
  emitFrame(b, {
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: duration,
    duration_api_ms: Math.round(duration * 0.8),
    num_turns: apiCalls.length,
    result: finalText,
    stop_reason: "end_turn",
    session_id: b.sessionId,
    total_cost_usd: cost,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: cacheRead,
      output_tokens: outputTokens,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: "standard"
    },
    modelUsage: {
      [b.model]: {
        inputTokens,
        outputTokens,
        cacheReadInputTokens: cacheRead,
        cacheCreationInputTokens: cacheCreation,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: 200_000,
        maxOutputTokens: 64_000
      }
    },
    permission_denials: [],
    uuid: randomUUID()
  })
}

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
