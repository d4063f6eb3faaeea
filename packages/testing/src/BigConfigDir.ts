/**
 * A synthetic Claude Code config directory of any size, for benchmarks at the scale of a heavy
 * user (hundreds of sessions, gigabytes): `projects/<key>/<sessionId>.jsonl` transcripts in Claude
 * Code 2.x's line format, with what real ones hold — prompts (some of them slash commands),
 * streamed assistant fragments sharing a message id (the last one carries the final output
 * count), tool calls and results with large outputs, usage with 5-minute and 1-hour cache writes,
 * several models, uuid-less `file-history-snapshot` and `queue-operation` lines, a title, now and
 * then a compaction boundary, and subagent transcripts with their `.meta.json` under
 * `<sessionId>/subagents/`.
 *
 * Deterministic: the same options write the same bytes (a seeded generator, fixed clock), so
 * runs and machines can be compared; a directory already generated with the same options (a
 * marker file written last says so) is reused as it is, and one generated with others replaced. Sessions are spread over `projects` projects and over the
 * days before `endDate`.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { random } from "./SeededRandom.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface BigConfigDirOptions {
  /** The config directory to write (created; `projects/` inside it). */
  readonly dir: string
  /** Main sessions to write; default 200. */
  readonly sessions?: number | undefined
  /** Approximate total size of all transcripts in bytes; default 100 MB. */
  readonly bytes?: number | undefined
  /** Projects the sessions are spread over; default 12. */
  readonly projects?: number | undefined
  /**
   * The working directories of the projects, in order (session `i` is in `cwds[i % length]`);
   * they set how many projects there are, overriding `projects`. Default
   * `/home/dev/src/project-<n>`: a test whose sessions must sit in real directories (a git
   * repository with a remote, say) names its own.
   */
  readonly cwds?: ReadonlyArray<string> | undefined
  /** One session in this many gets a subagent transcript; default 4. */
  readonly subagentEvery?: number | undefined
  /** Seed of the generator; default 1. */
  readonly seed?: number | undefined
  /** The newest session's day; sessions go back one day per `sessions / 60`; default 2026-11-01. */
  readonly endDate?: string | undefined
}

/**
 * What was written.
 *
 * @since 0.1.0
 * @category models
 */
export interface BigConfigDir {
  readonly configDir: string
  readonly sessions: number
  readonly subagents: number
  /** Lines written, subagent transcripts included. */
  readonly lines: number
  /** Bytes of all `.jsonl` files. */
  readonly bytes: number
}

// Written last: the same options find a complete directory and reuse it.
const MARKER = ".acx-big-config-dir.json"

const MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"] as const

const TOOLS = ["Bash", "Read", "Edit", "Grep", "Glob"] as const

const WORDS = (
  "the a build test file error module function returns value config session store import stream " +
  "cache token cost model request parse line entry index query effect layer schema retry timeout " +
  "lock write read append ledger offset worker thread process commit branch project prompt tool"
).split(" ")

const uuidOf = (name: string): string => {
  const h = createHash("sha256").update(name).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const idOf = (prefix: string, name: string): string =>
  `${prefix}${createHash("sha256").update(name).digest("base64url").slice(0, 24)}`

// The seeded generator and the text it makes: the same seed draws the same numbers in the same
// order, so every step below draws in a fixed order.
interface Draw {
  readonly rand: () => number
  readonly pick: <A>(xs: ReadonlyArray<A>) => A
  readonly words: (n: number) => string
  /** Tool output: long runs of varied lines (most of a real transcript's bytes). */
  readonly output: (approx: number) => string
}

const makeDraw = (seed: number): Draw => {
  const rand = random(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(" ")
  const output = (approx: number): string => {
    const parts: Array<string> = []
    let size = 0
    while (size < approx) {
      const line = `${words(6 + Math.floor(rand() * 10))} ${Math.floor(rand() * 1e6)}`
      parts.push(line)
      size += line.length + 1
    }
    return parts.join("\n")
  }
  return { rand, pick, words, output }
}

// Whose transcript is written: a main session's, or (with `agentId`) its subagent's.
interface TranscriptIds {
  readonly sessionId: string
  readonly cwd: string
  readonly agentId?: string
}

// One transcript being written: its lines so far, their size, the last entry's uuid (the next
// one's parent), the clock, and the fields every entry carries.
interface TranscriptWriter {
  readonly ids: TranscriptIds
  readonly draw: Draw
  readonly out: Array<string>
  size: number
  parent: string | null
  clock: number
}

const push = (writer: TranscriptWriter, entry: Record<string, unknown>): void => {
  const text = JSON.stringify(entry)
  writer.out.push(text)
  writer.size += text.length + 1
}

const base = (writer: TranscriptWriter, uuid: string) => ({
  parentUuid: writer.parent,
  isSidechain: writer.ids.agentId !== undefined,
  userType: "external",
  cwd: writer.ids.cwd,
  sessionId: writer.ids.sessionId,
  version: "2.0.31",
  gitBranch: "main",
  ...(writer.ids.agentId === undefined ? {} : { agentId: writer.ids.agentId }),
  uuid,
  timestamp: new Date(writer.clock).toISOString()
})

/** A turn's prompt (the first one, now and then, a slash command) and, in a main session, its file-history snapshot. */
const writePrompt = (writer: TranscriptWriter, tag: string, turn: number): void => {
  const { rand, words } = writer.draw
  const userUuid = uuidOf(`${tag}/user`)
  const slash = turn === 0 && rand() < 0.2
  push(writer, {
    ...base(writer, userUuid),
    type: "user",
    message: {
      role: "user",
      content: slash
        ? `<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>${
          words(5)
        }</command-args>`
        : `${words(12 + Math.floor(rand() * 30))}?`
    }
  })
  writer.parent = userUuid
  if (writer.ids.agentId === undefined) {
    push(writer, {
      type: "file-history-snapshot",
      messageId: userUuid,
      snapshot: { messageId: userUuid, trackedFileBackups: {}, timestamp: new Date(writer.clock).toISOString() },
      isSnapshotUpdate: false
    })
  }
}

/** One API message's streamed fragments (a text, then a tool call): same id, the last carries the final output count. */
const writeAssistantMessage = (writer: TranscriptWriter, model: string, stepTag: string): string => {
  const { pick, rand, words } = writer.draw
  const messageId = idOf("msg_", stepTag)
  const requestId = idOf("req_", stepTag)
  const input = 3 + Math.floor(rand() * 200)
  const cacheRead = Math.floor(rand() * 60_000)
  const write5m = Math.floor(rand() * 4_000)
  const write1h = rand() < 0.2 ? Math.floor(rand() * 2_000) : 0
  const finalOutput = 20 + Math.floor(rand() * 900)
  const usage = (outputTokens: number) => ({
    input_tokens: input,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    output_tokens: outputTokens,
    service_tier: "standard"
  })
  const fragment = (uuid: string, content: unknown, stopReason: string | null, outputTokens: number) => {
    push(writer, {
      ...base(writer, uuid),
      type: "assistant",
      requestId,
      message: {
        id: messageId,
        type: "message",
        role: "assistant",
        model,
        content: [content],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usage(outputTokens)
      }
    })
    writer.parent = uuid
  }
  fragment(uuidOf(`${stepTag}/text`), { type: "text", text: words(15 + Math.floor(rand() * 40)) }, null, 1)
  const tool = pick(TOOLS)
  const toolUseId = idOf("toolu_", stepTag)
  const toolInput = tool === "Bash"
    ? { command: `pnpm ${pick(WORDS)}` }
    : { file_path: `${writer.ids.cwd}/src/${pick(WORDS)}.ts` }
  fragment(
    uuidOf(`${stepTag}/tool`),
    { type: "tool_use", id: toolUseId, name: tool, input: toolInput },
    "tool_use",
    finalOutput
  )
  return toolUseId
}

/** The tool's progress line and its result (mostly short, one in ten long: real lines average about 1.5 KB). */
const writeToolResult = (writer: TranscriptWriter, stepTag: string, toolUseId: string): void => {
  const { output, rand, words } = writer.draw
  writer.clock += 500 + Math.floor(rand() * 5_000)
  const resultUuid = uuidOf(`${stepTag}/result`)
  const text = output(rand() < 0.9 ? 200 + Math.floor(rand() * 2_800) : 5_000 + Math.floor(rand() * 25_000))
  push(writer, {
    ...base(writer, uuidOf(`${stepTag}/progress`)),
    type: "progress",
    toolUseID: toolUseId,
    parentToolUseID: toolUseId,
    data: { type: "bash_progress", output: words(20), elapsedTimeSeconds: 2 }
  })
  push(writer, {
    ...base(writer, resultUuid),
    type: "user",
    message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content: text }] },
    toolUseResult: { stdout: text.slice(0, 2_000), stderr: "", interrupted: false, isImage: false }
  })
  writer.parent = resultUuid
}

/** A compaction boundary, now and then after a main session's fourth turn. */
const maybeWriteCompaction = (writer: TranscriptWriter, tag: string, turn: number): void => {
  const { rand } = writer.draw
  if (writer.ids.agentId !== undefined || turn !== 3 || !(rand() < 0.3)) return
  const boundary = uuidOf(`${tag}/compact`)
  push(writer, {
    ...base(writer, boundary),
    type: "system",
    subtype: "compact_boundary",
    content: "Conversation compacted",
    level: "info",
    compactMetadata: { trigger: "auto", preTokens: 150_000 + Math.floor(rand() * 20_000) }
  })
  writer.parent = boundary
}

/** One turn: the prompt, one to four steps of assistant message and tool result, maybe a compaction. */
const writeTurn = (writer: TranscriptWriter, model: string, tag: string, turn: number, budget: number): void => {
  const { rand } = writer.draw
  writePrompt(writer, tag, turn)
  const steps = 1 + Math.floor(rand() * 4)
  for (let step = 0; step < steps && writer.size < budget; step++) {
    writer.clock += 2_000 + Math.floor(rand() * 20_000)
    const toolUseId = writeAssistantMessage(writer, model, `${tag}/${step}`)
    writeToolResult(writer, `${tag}/${step}`, toolUseId)
  }
  maybeWriteCompaction(writer, tag, turn)
  writer.clock += 30_000 + Math.floor(rand() * 600_000)
}

/** A transcript of about `budget` bytes written to `file`: its lines and bytes. */
const writeTranscript = (
  draw: Draw,
  file: string,
  ids: TranscriptIds,
  budget: number,
  startMs: number,
  name: string
): { readonly lines: number; readonly bytes: number } => {
  const { rand, words } = draw
  const writer: TranscriptWriter = { ids, draw, out: [], size: 0, parent: null, clock: startMs }
  const model = MODELS[Math.floor(rand() * 10) < 6 ? 0 : Math.floor(rand() * 10) < 7 ? 2 : 1]!
  if (ids.agentId === undefined) {
    push(writer, {
      type: "queue-operation",
      operation: "enqueue",
      timestamp: new Date(writer.clock).toISOString(),
      sessionId: ids.sessionId,
      content: words(8)
    })
  }
  for (let turn = 0; writer.size < budget; turn++) writeTurn(writer, model, `${name}/${turn}`, turn, budget)
  if (ids.agentId === undefined) {
    push(writer, { type: "custom-title", customTitle: `${words(4)}`, sessionId: ids.sessionId })
  }
  const text = writer.out.join("\n") + "\n"
  fs.writeFileSync(file, text)
  return { lines: writer.out.length, bytes: Buffer.byteLength(text) }
}

// The options with their defaults applied.
interface Plan {
  readonly configDir: string
  readonly sessionCount: number
  readonly perSession: number
  readonly cwds: ReadonlyArray<string> | undefined
  readonly projectCount: number
  readonly subagentEvery: number
  readonly seed: number
  readonly end: number
  readonly daysBack: number
}

const planOf = (options: BigConfigDirOptions, configDir: string): Plan => {
  const sessionCount = Math.max(1, Math.floor(options.sessions ?? 200))
  const totalBytes = Math.max(10_000, options.bytes ?? 100_000_000)
  const cwds = options.cwds !== undefined && options.cwds.length > 0 ? options.cwds : undefined
  return {
    configDir,
    sessionCount,
    perSession: totalBytes / sessionCount,
    cwds,
    projectCount: cwds?.length ?? Math.max(1, Math.floor(options.projects ?? 12)),
    subagentEvery: Math.max(1, Math.floor(options.subagentEvery ?? 4)),
    seed: options.seed ?? 1,
    end: Date.parse(`${options.endDate ?? "2026-11-01"}T18:00:00.000Z`),
    daysBack: Math.max(1, Math.ceil(sessionCount / 60))
  }
}

/** Session `i` and, one in `subagentEvery`, its subagent with its `.meta.json`: lines, bytes and subagents written. */
const writeSession = (plan: Plan, draw: Draw, i: number) => {
  const { seed, sessionCount } = plan
  const project = i % plan.projectCount
  const cwd = plan.cwds?.[project] ?? `/home/dev/src/project-${project}`
  const sessionId = uuidOf(`session/${seed}/${i}`)
  const dir = path.join(plan.configDir, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"))
  fs.mkdirSync(dir, { recursive: true })
  const startMs = plan.end - Math.floor(((sessionCount - i) / sessionCount) * plan.daysBack * 86_400_000)
  const withAgent = i % plan.subagentEvery === plan.subagentEvery - 1
  const mainBudget = withAgent ? plan.perSession * 0.8 : plan.perSession
  const main = writeTranscript(
    draw,
    path.join(dir, `${sessionId}.jsonl`),
    { sessionId, cwd },
    mainBudget,
    startMs,
    `s${seed}/${i}`
  )
  if (!withAgent) return { ...main, subagents: 0 }
  const agentId = idOf("a", `agent/${seed}/${i}`).slice(0, 8).toLowerCase()
  const agentDir = path.join(dir, sessionId, "subagents")
  fs.mkdirSync(agentDir, { recursive: true })
  const agent = writeTranscript(
    draw,
    path.join(agentDir, `agent-${agentId}.jsonl`),
    { sessionId, cwd, agentId },
    plan.perSession * 0.2,
    startMs + 60_000,
    `a${seed}/${i}`
  )
  fs.writeFileSync(
    path.join(agentDir, `agent-${agentId}.meta.json`),
    JSON.stringify({ agentType: "Explore", description: draw.words(5) })
  )
  return { lines: main.lines + agent.lines, bytes: main.bytes + agent.bytes, subagents: 1 }
}

/**
 * Writes the directory; see the module docs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generateBigConfigDir = (options: BigConfigDirOptions): BigConfigDir => {
  const configDir = path.resolve(options.dir)
  const marker = path.join(configDir, MARKER)
  const wanted = JSON.stringify({ ...options, dir: configDir, version: 1 })
  try {
    const previous = JSON.parse(fs.readFileSync(marker, "utf8")) as { options: string; result: BigConfigDir }
    if (previous.options === wanted) return previous.result
  } catch {
    // no usable marker: generate
  }
  fs.rmSync(path.join(configDir, "projects"), { recursive: true, force: true })
  const plan = planOf(options, configDir)
  const draw = makeDraw(plan.seed)
  fs.mkdirSync(path.join(configDir, "projects"), { recursive: true })
  let lines = 0
  let bytes = 0
  let subagents = 0
  for (let i = 0; i < plan.sessionCount; i++) {
    const written = writeSession(plan, draw, i)
    lines += written.lines
    bytes += written.bytes
    subagents += written.subagents
  }
  const result = { configDir, sessions: plan.sessionCount, subagents, lines, bytes }
  fs.writeFileSync(marker, JSON.stringify({ options: wanted, result }))
  return result
}

/**
 * The generated dir the benchmarks share: `ACX_BENCH_SESSIONS` sessions (default 200) of
 * `ACX_BENCH_BYTES` bytes in all (default 552 MB), kept in the OS temp dir under a name holding
 * both, so every bench (and every run) generates it once.
 *
 * @since 0.4.0
 * @category generators
 */
export const benchConfigDir = (env: NodeJS.ProcessEnv = process.env): BigConfigDir => {
  const sessions = Number(env["ACX_BENCH_SESSIONS"] ?? 200)
  const bytes = Number(env["ACX_BENCH_BYTES"] ?? 552_000_000)
  return generateBigConfigDir({
    dir: path.join(os.tmpdir(), `acx-bench-big-config-${sessions}-${bytes}`),
    sessions,
    bytes
  })
}
