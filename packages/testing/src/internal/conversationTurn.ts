/**
 * The turns of a realistic conversation: the `system/init` that opens a run, and one turn per
 * prompt (the prompt's replay, reading a file, running its tests, optionally delegating to an
 * `Explore` subagent, editing, and the turn's `result`), each step a function of its own.
 */
import { randomBytes, randomUUID, type UUID } from "node:crypto"
import type { StandInFrame } from "../StandInScenario.js"
import { STANDIN_CLAUDE_CODE_VERSION } from "../StandInScenario.js"
import {
  addMainEntry,
  type ApiMessage,
  apiMessage,
  assistant,
  baseFor,
  type Builder,
  emitFrame,
  entryBase,
  flushMain,
  MAIN,
  record,
  text,
  type Thread,
  tick,
  toolResult,
  toolUse
} from "./conversationBuilder.js"
import { FILES, numbered, type TurnFile } from "./conversationFiles.js"

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

/** The `system/init` frame that opens a run. */
export const systemInit = (b: Builder): void => {
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

interface Task {
  readonly task: { readonly id: string; readonly assistantUuid: unknown }
  readonly agentId: string
  readonly description: string
  readonly prompt: string
  readonly agent: Thread & { readonly agent: NonNullable<Thread["agent"]> }
}

// The `Task` tool call and the `system/task_started` that opens the subagent.
const startTask = (b: Builder, taskSource: TurnFile, api: ApiMessage): Task => {
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
  return { task, agentId, description, prompt, agent: { parentToolUseId: task.id, agent: agentState } }
}

// The subagent's own thread: its prompt, one `Grep`, its answer.
const subagentSearch = (b: Builder, { agent, prompt, task }: Task): string => {
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
  return answer
}

// The subagent's transcript (mirrored), its `system/task_notification`, and the Task's result.
const finishTask = (b: Builder, { agent, agentId, description, prompt, task }: Task, answer: string): void => {
  const subpath = `subagents/agent-${agentId}`
  const entries = [
    ...agent.agent.entries,
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

const subagentTurn = (b: Builder, taskSource: TurnFile, api: ApiMessage): void => {
  const task = startTask(b, taskSource, api)
  finishTask(b, task, subagentSearch(b, task))
}

/** What one turn is made of. */
export interface TurnOptions {
  readonly index: number
  readonly text: string
  readonly uuid: UUID
  readonly thinking: boolean
  readonly subagent: boolean
  readonly rateLimit: boolean
}

// The prompt: awaited, replayed, and the transcript's user entry.
const promptStep = (b: Builder, options: TurnOptions): void => {
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
}

// Think (optionally), say what comes next, read the file; the file's content.
const readStep = (b: Builder, options: TurnOptions, source: TurnFile, api: ApiMessage): string => {
  const filePath = `${b.cwd}/${source.file}`
  if (options.thinking) {
    assistant(b, MAIN, api, {
      type: "thinking",
      thinking: `The user asked: "${options.text.slice(0, 120)}". I should read ${source.file} before changing ` +
        `anything, then run ${source.test} to see the current behaviour.`,
      signature: randomBytes(96).toString("base64")
    })
  }
  assistant(b, MAIN, api, text(`I'll start by reading \`${source.file}\` to see the current implementation.`))
  const read = toolUse(b, MAIN, api, "Read", { file_path: filePath })
  const content = source.lines.join("\n")
  toolResult(b, MAIN, read, numbered(source.lines), {
    type: "text",
    file: { filePath, content, numLines: source.lines.length, startLine: 1, totalLines: source.lines.length }
  })
  return content
}

// Run the tests (failing on the first turn when the file has a failure to show).
const testStep = (b: Builder, options: TurnOptions, source: TurnFile, api: ApiMessage): void => {
  const command = `pnpm vitest run ${source.test}`
  const bash = toolUse(b, MAIN, api, "Bash", { command, description: `Run ${source.test}` })
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
}

const rateLimitFrame = (b: Builder): void => {
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

// The `Edit` and its structured patch.
const editStep = (b: Builder, source: TurnFile, content: string, api: ApiMessage): void => {
  const filePath = `${b.cwd}/${source.file}`
  const edit = toolUse(b, MAIN, api, "Edit", {
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
}

// The turn's `result/success`: its API calls' tokens summed, priced at the model's rates.
const resultFrame = (b: Builder, apiCalls: ReadonlyArray<ApiMessage>, started: number, finalText: string): void => {
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

/** One turn: prompt, read, test, (subagent), (rate-limit warning), edit, answer, result. */
export const turn = (b: Builder, options: TurnOptions): void => {
  const source = FILES[options.index % FILES.length]
  const started = b.clock
  promptStep(b, options)
  const apiCalls: Array<ApiMessage> = []
  const api = (input: number, output: number) => {
    const message = apiMessage(input, output)
    apiCalls.push(message)
    return message
  }
  const content = readStep(b, options, source, api(3, 187))
  testStep(b, options, source, api(5, 96))
  flushMain(b)
  if (options.subagent) {
    subagentTurn(b, source, api(6, 212))
    flushMain(b)
  }
  if (options.rateLimit) rateLimitFrame(b)
  editStep(b, source, content, api(4, 161))
  const finalText = `Done: in \`${source.file}\`, ${source.summary}`
  assistant(b, MAIN, api(3, 74), text(finalText))
  if (options.index === 0) {
    addMainEntry(b, { type: "ai-title", aiTitle: "Fix date handling in invoices", sessionId: b.sessionId })
  }
  flushMain(b)
  resultFrame(b, apiCalls, started, finalText)
}
