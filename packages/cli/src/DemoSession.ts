/**
 * A realistic Claude Code 2.x session, generated for `acx demo` on machines that have no
 * `~/.claude`: a user prompt, thinking, tool_use/tool_result turns written one content block per
 * line (the way the CLI writes them, with `usage` repeated and growing on every fragment), a
 * subagent in the `<session>/subagents/` layout with its `.meta.json`, an automatic compaction
 * (boundary + summary) and work after it, then an AI title and a last-prompt entry.
 *
 * @since 0.1.0
 */
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { randomUUID } from "node:crypto"

/**
 * The generated session: where it belongs and its transcripts' entries.
 *
 * @since 0.1.0
 * @category models
 */
export interface DemoSession {
  readonly cwd: string
  readonly projectKey: string
  readonly sessionId: string
  readonly title: string
  readonly entries: ReadonlyArray<Record<string, unknown>>
  readonly subagent: {
    readonly agentId: string
    readonly meta: Record<string, unknown>
    readonly entries: ReadonlyArray<Record<string, unknown>>
  }
}

/**
 * Options: the working directory the session ran in, the start time, and the uuid generator
 * (fixed ones make the output reproducible).
 *
 * @since 0.1.0
 * @category models
 */
export interface DemoSessionOptions {
  readonly cwd?: string | undefined
  readonly start?: Date | undefined
  readonly uuid?: (() => string) | undefined
}

const MODEL = "claude-sonnet-4-5-20250929"
const VERSION = "2.1.39"

// What both transcripts share: where and when the session ran, and the id generators.
interface DemoContext {
  readonly cwd: string
  readonly sessionId: string
  readonly agentId: string
  readonly uuid: () => string
  /** Moves the clock `seconds` on and returns it as an ISO timestamp. */
  readonly tick: (seconds: number) => string
  readonly nextMessage: () => number
  readonly nextTool: () => number
}

const makeContext = (options: DemoSessionOptions): DemoContext => {
  const uuid = options.uuid ?? randomUUID
  let clock = (options.start ?? new Date(Date.UTC(2026, 10, 20, 9, 0, 0))).getTime()
  let messageCounter = 0
  let toolCounter = 0
  return {
    cwd: options.cwd ?? "/home/dev/acme-api",
    sessionId: uuid(),
    agentId: "a3f9c21",
    uuid,
    tick: (seconds) => new Date(clock += seconds * 1000).toISOString(),
    nextMessage: () => ++messageCounter,
    nextTool: () => ++toolCounter
  }
}

const envelope = (context: DemoContext, parentUuid: string | null, sidechain: boolean) => ({
  parentUuid,
  isSidechain: sidechain,
  userType: "external",
  cwd: context.cwd,
  sessionId: context.sessionId,
  version: VERSION,
  gitBranch: "fix/foo-test",
  ...(sidechain ? { agentId: context.agentId } : {})
})

// The `usage` figures of one API response: its final output count, spread over its fragments.
interface DemoUsage {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
}

/** A writer of one transcript: keeps the parent chain. */
const makeWriter = (context: DemoContext, sidechain: boolean) => {
  const { tick, uuid } = context
  const entries: Array<Record<string, unknown>> = []
  let last: string | null = null
  const push = (entry: Record<string, unknown>) => {
    entries.push(entry)
    if (typeof entry["uuid"] === "string") last = entry["uuid"]
    return entry
  }
  const user = (content: unknown, extra: Record<string, unknown> = {}) =>
    push({
      ...envelope(context, last, sidechain),
      type: "user",
      message: { role: "user", content },
      uuid: uuid(),
      timestamp: tick(3),
      ...extra
    })
  /** One API response written as one line per content block, usage growing per fragment. */
  const assistant = (blocks: ReadonlyArray<Record<string, unknown>>, usage: DemoUsage) => {
    const counter = String(context.nextMessage()).padStart(4, "0")
    const id = `msg_01Demo${counter}`
    const requestId = `req_01Demo${counter}`
    return blocks.map((block, i) =>
      push({
        ...envelope(context, last, sidechain),
        message: {
          model: MODEL,
          id,
          type: "message",
          role: "assistant",
          content: [block],
          stop_reason: i === blocks.length - 1 ? (block["type"] === "tool_use" ? "tool_use" : "end_turn") : null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: usage.cacheRead,
            output_tokens: Math.max(1, Math.round(usage.output * (i + 1) / blocks.length)),
            service_tier: "standard"
          }
        },
        requestId,
        type: "assistant",
        uuid: uuid(),
        timestamp: tick(2)
      })
    )
  }
  const toolUse = (name: string, input: Record<string, unknown>) => ({
    type: "tool_use",
    id: `toolu_01Demo${String(context.nextTool()).padStart(4, "0")}`,
    name,
    input
  })
  const toolResult = (use: Record<string, unknown>, content: string, extra: Record<string, unknown> = {}) => {
    const assistantUuid = last
    return user([{ tool_use_id: use["id"], type: "tool_result", content }], {
      toolUseResult: extra,
      sourceToolAssistantUUID: assistantUuid
    })
  }
  return { entries, user, assistant, toolUse, toolResult, last: () => last, push }
}

type DemoWriter = ReturnType<typeof makeWriter>

/** The prompt, thinking, and the failing test run. */
const writeFailingTest = (main: DemoWriter): void => {
  main.user("The foo test fails: expected 4, got 0. Please fix it.", {
    thinkingMetadata: { maxThinkingTokens: 31999 },
    permissionMode: "acceptEdits"
  })
  const runTests = main.toolUse("Bash", { command: "npm test -- foo", description: "Run the failing test" })
  main.assistant([
    {
      type: "thinking",
      thinking:
        "The test expects 4 and gets 0. I should run it first to see the failure, then find where foo is computed.",
      signature: "EqQBCkgIBxABGAIqQDemoSignature"
    },
    { type: "text", text: "Let me run the failing test first." },
    runTests
  ], { input: 4, output: 180, cacheRead: 12_400 })
  main.toolResult(runTests, "FAIL test/foo.test.ts\n  ✕ adds two and two (3 ms)\n    Expected: 4\n    Received: 0", {
    stdout: "FAIL test/foo.test.ts",
    stderr: "",
    interrupted: false
  })
}

/** The Explore subagent's run (its own transcript) and its report back to the main session. */
const writeExploration = (context: DemoContext, main: DemoWriter, sub: DemoWriter): void => {
  const explore = main.toolUse("Task", {
    description: "Find where foo is computed",
    prompt: "Find the implementation of foo() and explain why it could return 0.",
    subagent_type: "Explore"
  })
  main.assistant([{ type: "text", text: "I'll have an Explore agent look for the implementation." }, explore], {
    input: 6,
    output: 95,
    cacheRead: 13_100
  })

  sub.user("Find the implementation of foo() and explain why it could return 0.")
  const grep = sub.toolUse("Grep", { pattern: "function foo", path: "src" })
  sub.assistant([grep], { input: 3, output: 40, cacheRead: 4_200 })
  sub.toolResult(grep, "src/math.ts:12:export function foo(a: number, b: number) {", { numFiles: 1 })
  const read = sub.toolUse("Read", { file_path: `${context.cwd}/src/math.ts` })
  sub.assistant([read], { input: 3, output: 35, cacheRead: 4_600 })
  sub.toolResult(read, "12 export function foo(a: number, b: number) {\n13   return a * 0 + b * 0\n14 }", {
    type: "text"
  })
  const report =
    "foo() is in src/math.ts:12. It returns `a * 0 + b * 0`, which is always 0: the operands are multiplied by zero instead of added."
  sub.assistant([{ type: "text", text: report }], { input: 3, output: 60, cacheRead: 5_000 })

  main.toolResult(explore, report, {
    status: "completed",
    agentId: context.agentId,
    totalDurationMs: 9_400,
    totalTokens: 13_900
  })
}

/** The one-line edit that fixes foo. */
const writeFix = (context: DemoContext, main: DemoWriter): void => {
  const edit = main.toolUse("Edit", {
    file_path: `${context.cwd}/src/math.ts`,
    old_string: "return a * 0 + b * 0",
    new_string: "return a + b"
  })
  main.assistant([{ type: "text", text: "Found it: foo multiplies by zero. Fixing." }, edit], {
    input: 5,
    output: 120,
    cacheRead: 14_000
  })
  main.toolResult(edit, "The file src/math.ts has been updated.", { filePath: `${context.cwd}/src/math.ts` })
}

/** An automatic compaction: the boundary, then the summary that continues the session. */
const writeCompaction = (context: DemoContext, main: DemoWriter): void => {
  const beforeCompaction = main.last()
  const boundary = context.uuid()
  main.push({
    ...envelope(context, null, false),
    logicalParentUuid: beforeCompaction,
    type: "system",
    subtype: "compact_boundary",
    content: "Conversation compacted",
    isMeta: false,
    timestamp: context.tick(30),
    uuid: boundary,
    level: "info",
    compactMetadata: { trigger: "auto", preTokens: 154_210 }
  })
  main.user(
    "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary: the foo test failed because foo() in src/math.ts multiplied its operands by zero; it was changed to `return a + b`.",
    { isCompactSummary: true, isVisibleInTranscriptOnly: true }
  )
}

/** The work after the compaction: the whole suite run, and the closing answer. */
const writeSuiteRun = (main: DemoWriter): void => {
  main.user("Now run the whole test suite.")
  const suite = main.toolUse("Bash", { command: "npm test", description: "Run all tests" })
  main.assistant([suite], { input: 4, output: 30, cacheRead: 3_900 })
  main.toolResult(suite, "Test Files  12 passed (12)\n     Tests  87 passed (87)", { stdout: "87 passed", stderr: "" })
  main.assistant([{
    type: "text",
    text: "All 87 tests pass. The fix was a one-line change in src/math.ts: `foo` now adds its operands."
  }], {
    input: 4,
    output: 45,
    cacheRead: 4_300
  })
}

/**
 * Generates the session; see the module docs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generateDemoSession = (options: DemoSessionOptions = {}): DemoSession => {
  const context = makeContext(options)
  const main = makeWriter(context, false)
  const sub = makeWriter(context, true)
  writeFailingTest(main)
  writeExploration(context, main, sub)
  writeFix(context, main)
  writeCompaction(context, main)
  writeSuiteRun(main)
  const title = "Fix foo() returning 0"
  main.push({ type: "ai-title", aiTitle: title, sessionId: context.sessionId })
  main.push({ type: "last-prompt", lastPrompt: "Now run the whole test suite.", sessionId: context.sessionId })
  return {
    cwd: context.cwd,
    projectKey: encodeProjectDir(context.cwd),
    sessionId: context.sessionId,
    title,
    entries: main.entries,
    subagent: {
      agentId: context.agentId,
      meta: { agentType: "Explore", description: "Find where foo is computed" },
      entries: sub.entries
    }
  }
}
