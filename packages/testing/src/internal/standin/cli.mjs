#!/usr/bin/env node
/**
 * A scriptable stand-in for the Claude Code CLI, spawned by the real Claude Agent SDK's `query()`
 * (`pathToClaudeCodeExecutable` = this file, `executable: "node"`). Private to
 * `@acx/testing` (see `StandInCli.ts` for the scenario format).
 *
 * Protocol (stream-json, one JSON object per line both ways):
 * - stdin: `control_request`s from the SDK (answered at once with a success `control_response`:
 *   `initialize` gets `scenario.initializeResponse`, any other subtype
 *   `scenario.controlResponses[subtype]`, default `{}`), user messages (queued for `awaitPrompt`
 *   steps), and `control_response`s answering requests this script sent (`request` / `hook` steps);
 * - stdout: the frames the scenario's steps emit.
 *
 * Environment: `ACX_STANDIN_SCENARIO` (path of the scenario JSON, required), `ACX_STANDIN_LOG`
 * (path of a JSONL log this script appends everything it observes to, optional).
 *
 * A failed expectation, a bounded wait that runs out, or stdin closing while a prompt is awaited
 * ends the process with exit code 2 and a one-line reason on stderr (the SDK puts it in the error
 * its iterator throws). Plain Node ESM with `node:` builtins only.
 */
import { randomUUID } from "node:crypto"
import { appendFileSync, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { homedir } from "node:os"
import { join, relative, resolve, sep } from "node:path"
import { isDeepStrictEqual } from "node:util"

const FAILURE_EXIT_CODE = 2
const DEFAULT_PROMPT_TIMEOUT_MS = 5_000
const DEFAULT_END_TIMEOUT_MS = 2_000
const DEFAULT_REQUEST_TIMEOUT_MS = 5_000
const LOGGED_ENV = [
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_CODE_ENTRYPOINT",
  "CLAUDE_AGENT_SDK_VERSION",
  "CLAUDE_CODE_PROJECT_DIR_NAME",
  "CLAUDE_CODE_SDK_READS_SESSION_STATE"
]

class ScenarioFailure extends Error {}

const fail = (message) => {
  throw new ScenarioFailure(message)
}

// ------------------------------------------------------------------------------------------------
// log
// ------------------------------------------------------------------------------------------------

const logFile = process.env.ACX_STANDIN_LOG

const log = (record) => {
  if (logFile === undefined || logFile === "") return
  appendFileSync(logFile, JSON.stringify({ ...record, at: Date.now() }) + "\n")
}

const preview = (value) => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 400 ? `${text.slice(0, 400)}…` : text
}

// ------------------------------------------------------------------------------------------------
// output
// ------------------------------------------------------------------------------------------------

const writeTo = (stream, text) =>
  new Promise((done) => {
    stream.write(text, () => done())
  })

const emit = async (frame) => {
  log({ kind: "stdout", frame })
  await writeTo(process.stdout, JSON.stringify(frame) + "\n")
}

const writeStderr = async (text) => {
  log({ kind: "stderr", text })
  await writeTo(process.stderr, text.endsWith("\n") ? text : text + "\n")
}

let exiting = false

const exit = async (code) => {
  if (exiting) return
  exiting = true
  log({ kind: "exit", code })
  process.exit(code)
}

// ------------------------------------------------------------------------------------------------
// scenario and environment
// ------------------------------------------------------------------------------------------------

const loadScenario = () => {
  const file = process.env.ACX_STANDIN_SCENARIO
  if (file === undefined || file === "") fail("ACX_STANDIN_SCENARIO is not set (path of the scenario JSON)")
  let scenario
  try {
    scenario = JSON.parse(readFileSync(file, "utf8"))
  } catch (error) {
    fail(`cannot read the scenario ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof scenario !== "object" || scenario === null || !Array.isArray(scenario.steps)) {
    fail(`scenario ${file} has no "steps" array`)
  }
  return scenario
}

// The SDK's project-dir rule (docs/transcripts.md, "Project directories"): realpath of the cwd,
// every non-alphanumeric character replaced by "-", names over 200 characters truncated and
// suffixed with a hash.
const MAX_PROJECT_KEY = 200

const hashPath = (text) => {
  let hash = 0
  for (let index = 0; index < text.length; index++) hash = ((hash << 5) - hash + text.charCodeAt(index)) | 0
  return Math.abs(hash).toString(36)
}

const projectKeyFor = (cwd) => {
  let path = resolve(cwd)
  try {
    path = realpathSync(path)
  } catch {
    // keep the resolved path, as the SDK does
  }
  path = path.normalize("NFC")
  const key = path.replace(/[^a-zA-Z0-9]/g, "-")
  return key.length <= MAX_PROJECT_KEY ? key : `${key.slice(0, MAX_PROJECT_KEY)}-${hashPath(path)}`
}

const overrideProjectKey = () => {
  const name = process.env.CLAUDE_CODE_PROJECT_DIR_NAME
  return process.env.CLAUDE_CONFIG_DIR !== undefined && name !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(name)
    ? name
    : undefined
}

const scenarioOrFailure = (() => {
  try {
    return { scenario: loadScenario() }
  } catch (error) {
    return { failure: error }
  }
})()

const scenario = scenarioOrFailure.scenario ?? { steps: [] }
const sessionId = typeof scenario.sessionId === "string" ? scenario.sessionId : randomUUID()
const cwd = process.cwd()
const configDir = (process.env.CLAUDE_CONFIG_DIR ?? join(homedir(), ".claude")).normalize("NFC")
const projectKey = typeof scenario.projectKey === "string"
  ? scenario.projectKey
  : overrideProjectKey() ?? projectKeyFor(cwd)
const argv = process.argv.slice(2)

const transcriptPath = (sid, subpath) =>
  join(configDir, "projects", projectKey, subpath === undefined ? `${sid}.jsonl` : join(sid, `${subpath}.jsonl`))

// ------------------------------------------------------------------------------------------------
// placeholders
// ------------------------------------------------------------------------------------------------

let lastPromptUuid = ""

const placeholder = (name) => {
  switch (name) {
    case "sessionId":
      return sessionId
    case "projectKey":
      return projectKey
    case "configDir":
      return configDir
    case "cwd":
      return cwd
    case "transcriptPath":
      return transcriptPath(sessionId)
    case "promptUuid":
      return lastPromptUuid
    case "now":
      return new Date().toISOString()
    case "uuid":
      return randomUUID()
    default:
      return undefined
  }
}

const fill = (value) => {
  if (typeof value === "string") {
    return value.includes("{{")
      ? value.replace(/\{\{(\w+)\}\}/g, (match, name) => placeholder(name) ?? match)
      : value
  }
  if (Array.isArray(value)) return value.map(fill)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]))
  }
  return value
}

// ------------------------------------------------------------------------------------------------
// stdin
// ------------------------------------------------------------------------------------------------

const prompts = []
let promptsReceived = 0
let stdinClosed = false
let initializeRequest
const responses = new Map()
let waiters = []

const notify = () => {
  const current = waiters
  waiters = []
  for (const wake of current) wake()
}

/** Resolves with `ready()`'s first non-`undefined` value, or `undefined` after `timeoutMs`. */
const waitUntil = async (ready, timeoutMs) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = ready()
    if (value !== undefined) return value
    const remaining = deadline - Date.now()
    if (remaining <= 0) return undefined
    await new Promise((wake) => {
      const timer = setTimeout(wake, remaining)
      waiters.push(() => {
        clearTimeout(timer)
        wake()
      })
    })
  }
}

const answerControlRequest = (message) => {
  const request = typeof message.request === "object" && message.request !== null ? message.request : {}
  const subtype = typeof request.subtype === "string" ? request.subtype : ""
  if (subtype === "initialize") initializeRequest = request
  const configured = subtype === "initialize" ? scenario.initializeResponse : scenario.controlResponses?.[subtype]
  const response = fill(configured ?? {})
  void emit({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response } })
}

const onLine = (line) => {
  if (line.trim() === "") return
  let message
  try {
    message = JSON.parse(line)
  } catch {
    log({ kind: "stdin", raw: line })
    return
  }
  log({ kind: "stdin", message })
  if (typeof message !== "object" || message === null) return
  switch (message.type) {
    case "control_request":
      answerControlRequest(message)
      break
    case "control_response": {
      const id = message.response?.request_id
      if (typeof id === "string") responses.set(id, message.response)
      break
    }
    case "user":
      prompts.push(message)
      promptsReceived++
      break
    default:
      break
  }
  notify()
}

let pending = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  pending += chunk
  for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
    const line = pending.slice(0, newline)
    pending = pending.slice(newline + 1)
    onLine(line)
  }
})
const onStdinClosed = () => {
  if (stdinClosed) return
  if (pending !== "") onLine(pending)
  pending = ""
  stdinClosed = true
  log({ kind: "stdinClosed" })
  notify()
}
process.stdin.on("end", onStdinClosed)
process.stdin.on("close", onStdinClosed)
process.stdin.on("error", onStdinClosed)
process.stdout.on("error", () => {
  // the SDK went away: nothing left to talk to
  void exit(FAILURE_EXIT_CODE)
})
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    log({ kind: "signal", signal })
    void exit(signal === "SIGTERM" ? 143 : 130)
  })
}

// ------------------------------------------------------------------------------------------------
// steps
// ------------------------------------------------------------------------------------------------

const assertion = (index, name, ok, detail) => {
  log({ kind: "assertion", index, name, ok, detail })
  if (!ok) fail(`step ${index} (${name}): ${detail}`)
}

const promptText = (message) => {
  const content = message?.message?.content
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .filter((block) => block !== null && typeof block === "object" && block.type === "text")
    .map((block) => block.text)
    .join("\n")
}

const awaitPrompt = async (index, step) => {
  const timeoutMs = step.timeoutMs ?? scenario.promptTimeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS
  const next = await waitUntil(() => (prompts.length > 0 ? prompts.shift() : stdinClosed ? null : undefined), timeoutMs)
  if (next === undefined) fail(`step ${index} (awaitPrompt): no user message on stdin within ${timeoutMs} ms`)
  if (next === null) {
    fail(
      `step ${index} (awaitPrompt): stdin closed before the awaited user message arrived ` +
        `(${promptsReceived} user message(s) received and consumed before it)`
    )
  }
  const uuid = typeof next.uuid === "string" && next.uuid !== "" ? next.uuid : step.uuid ?? randomUUID()
  lastPromptUuid = uuid
  if (step.expectText !== undefined) {
    const text = promptText(next)
    assertion(
      index,
      "awaitPrompt",
      text === step.expectText,
      text === step.expectText
        ? "prompt text as expected"
        : `expected prompt text ${preview(step.expectText)}, got ${preview(text)}`
    )
  }
  if (step.replay === true) {
    await emit({
      type: "user",
      message: next.message,
      parent_tool_use_id: next.parent_tool_use_id ?? null,
      uuid,
      session_id: sessionId,
      isReplay: true
    })
  }
}

const argValue = (name) => {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === `--${name}`) return argv[index + 1] ?? ""
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3)
  }
  return undefined
}

const expectArgs = (index, expected) => {
  const problems = []
  if (expected.resume !== undefined) {
    const actual = argValue("resume")
    if (expected.resume === null && actual !== undefined) problems.push(`expected no --resume, got --resume=${actual}`)
    if (expected.resume !== null && actual !== expected.resume) {
      problems.push(`expected --resume=${expected.resume}, got ${actual === undefined ? "no --resume" : actual}`)
    }
  }
  if (expected.sessionMirror !== undefined && argv.includes("--session-mirror") !== expected.sessionMirror) {
    problems.push(expected.sessionMirror ? "expected --session-mirror" : "expected no --session-mirror")
  }
  for (const arg of expected.includes ?? []) if (!argv.includes(arg)) problems.push(`missing argument ${arg}`)
  for (const arg of expected.excludes ?? []) if (argv.includes(arg)) problems.push(`unexpected argument ${arg}`)
  assertion(
    index,
    "expectArgs",
    problems.length === 0,
    problems.length === 0 ? "arguments as expected" : `${problems.join("; ")} (argv: ${argv.join(" ")})`
  )
}

const readJsonl = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))

const compareEntries = (what, actual, expected) => {
  if (isDeepStrictEqual(actual, expected)) return undefined
  if (actual.length !== expected.length) {
    return `${what}: expected ${expected.length} entries, found ${actual.length}`
  }
  const index = actual.findIndex((entry, position) => !isDeepStrictEqual(entry, expected[position]))
  return `${what}: entry ${index} differs: expected ${preview(expected[index])}, found ${preview(actual[index])}`
}

const listSubagentFiles = (sessionDir) => {
  if (!existsSync(sessionDir)) return []
  return readdirSync(sessionDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl"))
    .map((entry) => relative(sessionDir, join(entry.parentPath ?? entry.path, entry.name)))
    .map((file) => file.slice(0, -".jsonl".length).split(sep).join("/"))
    .sort()
}

const expectResumeTranscript = (index, step) => {
  const sid = step.sessionId ?? sessionId
  const problems = []
  const main = transcriptPath(sid)
  if (!existsSync(main)) {
    problems.push(`no materialised transcript at ${main}`)
  } else {
    const problem = compareEntries(main, readJsonl(main), fill(step.expectResumeTranscript))
    if (problem !== undefined) problems.push(problem)
  }
  if (step.subagents !== undefined) {
    const expected = Object.keys(step.subagents).sort()
    const actual = listSubagentFiles(join(configDir, "projects", projectKey, sid))
    if (!isDeepStrictEqual(actual, expected)) {
      problems.push(`expected subagent transcripts ${preview(expected)}, found ${preview(actual)}`)
    }
    for (const subpath of expected) {
      const file = transcriptPath(sid, subpath)
      if (!existsSync(file)) continue
      const problem = compareEntries(file, readJsonl(file), fill(step.subagents[subpath]))
      if (problem !== undefined) problems.push(problem)
    }
  }
  for (const [subpath, meta] of Object.entries(step.agentMetadata ?? {})) {
    const file = join(configDir, "projects", projectKey, sid, `${subpath}.meta.json`)
    if (!existsSync(file)) {
      problems.push(`no agent metadata at ${file}`)
      continue
    }
    const actual = JSON.parse(readFileSync(file, "utf8"))
    if (!isDeepStrictEqual(actual, fill(meta))) {
      problems.push(`${file}: expected ${preview(fill(meta))}, found ${preview(actual)}`)
    }
  }
  assertion(
    index,
    "expectResumeTranscript",
    problems.length === 0,
    problems.length === 0 ? `transcript at ${main} as expected` : problems.join("; ")
  )
}

let requestCounter = 0

const sendRequest = async (index, name, request, timeoutMs) => {
  const requestId = `standin-${++requestCounter}`
  await emit({ type: "control_request", request_id: requestId, request })
  const response = await waitUntil(() => responses.get(requestId) ?? (stdinClosed ? null : undefined), timeoutMs)
  if (response === undefined) {
    fail(`step ${index} (${name}): no control_response to ${requestId} within ${timeoutMs} ms`)
  }
  if (response === null) fail(`step ${index} (${name}): stdin closed before the control_response to ${requestId}`)
  return response
}

const controlRequest = async (index, step) => {
  const timeoutMs = step.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const response = await sendRequest(index, "request", fill(step.request), timeoutMs)
  if (step.expectResponse !== undefined) {
    const ok = response.subtype === "success" && isDeepStrictEqual(response.response, fill(step.expectResponse))
    assertion(
      index,
      "request",
      ok,
      ok ? "response as expected" : `expected ${preview(fill(step.expectResponse))}, got ${preview(response)}`
    )
  }
}

const matcherApplies = (matcher, toolName) => {
  if (matcher === undefined || matcher === null || matcher === "" || matcher === "*") return true
  if (toolName === undefined) return true
  if (matcher === toolName) return true
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName)
  } catch {
    return false
  }
}

const hook = async (index, step) => {
  const timeoutMs = step.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  const initialize = await waitUntil(() => initializeRequest, timeoutMs)
  if (initialize === undefined) fail(`step ${index} (hook): no initialize request within ${timeoutMs} ms`)
  const { event, input, toolName, toolUseId } = step.hook
  const matchers = Array.isArray(initialize.hooks?.[event]) ? initialize.hooks[event] : []
  const callbackIds = matchers
    .filter((matcher) => matcherApplies(matcher.matcher, toolName))
    .flatMap((matcher) => (Array.isArray(matcher.hookCallbackIds) ? matcher.hookCallbackIds : []))
  const hookInput = {
    session_id: sessionId,
    transcript_path: transcriptPath(sessionId),
    cwd,
    hook_event_name: event,
    ...(toolName === undefined ? {} : { tool_name: toolName }),
    ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId }),
    ...fill(input ?? {})
  }
  const outputs = []
  for (const callbackId of callbackIds) {
    const request = {
      subtype: "hook_callback",
      callback_id: callbackId,
      input: hookInput,
      ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId })
    }
    const response = await sendRequest(index, "hook", request, timeoutMs)
    outputs.push(response.subtype === "success" ? response.response : { error: response.error })
  }
  log({ kind: "hook", index, event, callbackIds, input: hookInput, outputs })
  if (step.expectOutputs !== undefined) {
    const expected = fill(step.expectOutputs)
    const ok = isDeepStrictEqual(outputs, expected)
    assertion(
      index,
      "hook",
      ok,
      ok ? "hook outputs as expected" : `expected ${preview(expected)}, got ${preview(outputs)}`
    )
  }
}

const mirror = async (step) => {
  const { entries, sessionId: sid, subpath } = step.mirror
  await emit({ type: "transcript_mirror", filePath: transcriptPath(sid ?? sessionId, subpath), entries: fill(entries) })
}

// Each step is named by its one defining key; `exit` goes first because an exit step may also
// carry a `stderr` text.
const STEP_NAMES = [
  "exit",
  "emit",
  "awaitPrompt",
  "mirror",
  "expectArgs",
  "expectResumeTranscript",
  "sleepMs",
  "request",
  "hook",
  "stderr"
]

const stepName = (step) =>
  STEP_NAMES.find((name) => step !== null && typeof step === "object" && name in step) ?? "unknown"

const play = async (index, step) => {
  const name = stepName(step)
  log({ kind: "step", index, name })
  switch (name) {
    case "emit":
      return emit(fill(step.emit))
    case "awaitPrompt":
      return awaitPrompt(index, step)
    case "mirror":
      return mirror(step)
    case "expectArgs":
      return expectArgs(index, step.expectArgs)
    case "expectResumeTranscript":
      return expectResumeTranscript(index, step)
    case "sleepMs":
      return new Promise((wake) => setTimeout(wake, step.sleepMs))
    case "stderr":
      return writeStderr(step.stderr)
    case "request":
      return controlRequest(index, step)
    case "hook":
      return hook(index, step)
    case "exit":
      if (step.stderr !== undefined) await writeStderr(step.stderr)
      return exit(step.exit)
    default:
      return fail(`step ${index}: unknown step ${preview(step)}`)
  }
}

const main = async () => {
  log({
    kind: "start",
    argv,
    cwd,
    pid: process.pid,
    sessionId,
    projectKey,
    configDir,
    env: Object.fromEntries(
      [...LOGGED_ENV, ...(Array.isArray(scenario.logEnv) ? scenario.logEnv : [])]
        .filter((name) => process.env[name] !== undefined)
        .map((name) => [name, process.env[name]])
    )
  })
  if (scenarioOrFailure.failure !== undefined) throw scenarioOrFailure.failure
  for (const [index, step] of scenario.steps.entries()) {
    await play(index, step)
    if (exiting) return
  }
  const endTimeoutMs = scenario.endTimeoutMs ?? DEFAULT_END_TIMEOUT_MS
  const closed = await waitUntil(() => (stdinClosed ? true : undefined), endTimeoutMs)
  if (closed === undefined) log({ kind: "note", message: `stdin still open ${endTimeoutMs} ms after the last step` })
  if (prompts.length > 0) log({ kind: "note", message: `${prompts.length} user message(s) were never awaited` })
  await exit(0)
}

main().catch(async (error) => {
  const message = error instanceof ScenarioFailure
    ? error.message
    : `internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`
  log({ kind: "error", message })
  await writeTo(process.stderr, `acx stand-in CLI: ${message}\n`)
  await exit(FAILURE_EXIT_CODE)
})
