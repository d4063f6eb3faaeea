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
  const sessionCount = Math.max(1, Math.floor(options.sessions ?? 200))
  const totalBytes = Math.max(10_000, options.bytes ?? 100_000_000)
  const cwds = options.cwds !== undefined && options.cwds.length > 0 ? options.cwds : undefined
  const projectCount = cwds?.length ?? Math.max(1, Math.floor(options.projects ?? 12))
  const subagentEvery = Math.max(1, Math.floor(options.subagentEvery ?? 4))
  const seed = options.seed ?? 1
  const end = Date.parse(`${options.endDate ?? "2026-11-01"}T18:00:00.000Z`)
  const perSession = totalBytes / sessionCount
  const rand = random(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(" ")
  // Tool output is most of a real transcript's bytes; long runs of varied lines.
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

  let lines = 0
  let bytes = 0
  let subagents = 0
  fs.mkdirSync(path.join(configDir, "projects"), { recursive: true })

  const writeTranscript = (
    file: string,
    ids: { readonly sessionId: string; readonly cwd: string; readonly agentId?: string },
    budget: number,
    startMs: number,
    name: string
  ): number => {
    const out: Array<string> = []
    let size = 0
    let parent: string | null = null
    let clock = startMs
    let turn = 0
    const push = (entry: Record<string, unknown>) => {
      const text = JSON.stringify(entry)
      out.push(text)
      size += text.length + 1
    }
    const base = (uuid: string) => ({
      parentUuid: parent,
      isSidechain: ids.agentId !== undefined,
      userType: "external",
      cwd: ids.cwd,
      sessionId: ids.sessionId,
      version: "2.0.31",
      gitBranch: "main",
      ...(ids.agentId === undefined ? {} : { agentId: ids.agentId }),
      uuid,
      timestamp: new Date(clock).toISOString()
    })
    const model = MODELS[Math.floor(rand() * 10) < 6 ? 0 : Math.floor(rand() * 10) < 7 ? 2 : 1]!
    if (ids.agentId === undefined) {
      push({
        type: "queue-operation",
        operation: "enqueue",
        timestamp: new Date(clock).toISOString(),
        sessionId: ids.sessionId,
        content: words(8)
      })
    }
    while (size < budget) {
      const tag = `${name}/${turn}`
      const userUuid = uuidOf(`${tag}/user`)
      const slash = turn === 0 && rand() < 0.2
      push({
        ...base(userUuid),
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
      parent = userUuid
      if (ids.agentId === undefined) {
        push({
          type: "file-history-snapshot",
          messageId: userUuid,
          snapshot: { messageId: userUuid, trackedFileBackups: {}, timestamp: new Date(clock).toISOString() },
          isSnapshotUpdate: false
        })
      }
      const steps = 1 + Math.floor(rand() * 4)
      for (let step = 0; step < steps && size < budget; step++) {
        clock += 2_000 + Math.floor(rand() * 20_000)
        const messageId = idOf("msg_", `${tag}/${step}`)
        const requestId = idOf("req_", `${tag}/${step}`)
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
        // the streamed fragments of one API message: same id, the last carries the final output count
        const fragment = (uuid: string, content: unknown, stopReason: string | null, outputTokens: number) => {
          push({
            ...base(uuid),
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
          parent = uuid
        }
        fragment(uuidOf(`${tag}/${step}/text`), { type: "text", text: words(15 + Math.floor(rand() * 40)) }, null, 1)
        const tool = pick(TOOLS)
        const toolUseId = idOf("toolu_", `${tag}/${step}`)
        fragment(
          uuidOf(`${tag}/${step}/tool`),
          {
            type: "tool_use",
            id: toolUseId,
            name: tool,
            input: tool === "Bash"
              ? { command: `pnpm ${pick(WORDS)}` }
              : { file_path: `${ids.cwd}/src/${pick(WORDS)}.ts` }
          },
          "tool_use",
          finalOutput
        )
        clock += 500 + Math.floor(rand() * 5_000)
        const resultUuid = uuidOf(`${tag}/${step}/result`)
        // mostly short outputs, one in ten long: real transcripts average about 1.5 KB a line
        const text = output(rand() < 0.9 ? 200 + Math.floor(rand() * 2_800) : 5_000 + Math.floor(rand() * 25_000))
        push({
          ...base(uuidOf(`${tag}/${step}/progress`)),
          type: "progress",
          toolUseID: toolUseId,
          parentToolUseID: toolUseId,
          data: { type: "bash_progress", output: words(20), elapsedTimeSeconds: 2 }
        })
        push({
          ...base(resultUuid),
          type: "user",
          message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content: text }] },
          toolUseResult: { stdout: text.slice(0, 2_000), stderr: "", interrupted: false, isImage: false }
        })
        parent = resultUuid
      }
      if (ids.agentId === undefined && turn === 3 && rand() < 0.3) {
        const boundary = uuidOf(`${tag}/compact`)
        push({
          ...base(boundary),
          type: "system",
          subtype: "compact_boundary",
          content: "Conversation compacted",
          level: "info",
          compactMetadata: { trigger: "auto", preTokens: 150_000 + Math.floor(rand() * 20_000) }
        })
        parent = boundary
      }
      clock += 30_000 + Math.floor(rand() * 600_000)
      turn++
    }
    if (ids.agentId === undefined) {
      push({ type: "custom-title", customTitle: `${words(4)}`, sessionId: ids.sessionId })
    }
    const text = out.join("\n") + "\n"
    fs.writeFileSync(file, text)
    lines += out.length
    bytes += Buffer.byteLength(text)
    return clock
  }

  const daysBack = Math.max(1, Math.ceil(sessionCount / 60))
  for (let i = 0; i < sessionCount; i++) {
    const project = i % projectCount
    const cwd = cwds?.[project] ?? `/home/dev/src/project-${project}`
    const projectKey = cwd.replace(/[^A-Za-z0-9]/g, "-")
    const sessionId = uuidOf(`session/${seed}/${i}`)
    const dir = path.join(configDir, "projects", projectKey)
    fs.mkdirSync(dir, { recursive: true })
    const startMs = end - Math.floor(((sessionCount - i) / sessionCount) * daysBack * 86_400_000)
    const withAgent = i % subagentEvery === subagentEvery - 1
    const mainBudget = withAgent ? perSession * 0.8 : perSession
    writeTranscript(path.join(dir, `${sessionId}.jsonl`), { sessionId, cwd }, mainBudget, startMs, `s${seed}/${i}`)
    if (withAgent) {
      const agentId = idOf("a", `agent/${seed}/${i}`).slice(0, 8).toLowerCase()
      const agentDir = path.join(dir, sessionId, "subagents")
      fs.mkdirSync(agentDir, { recursive: true })
      writeTranscript(
        path.join(agentDir, `agent-${agentId}.jsonl`),
        { sessionId, cwd, agentId },
        perSession * 0.2,
        startMs + 60_000,
        `a${seed}/${i}`
      )
      fs.writeFileSync(
        path.join(agentDir, `agent-${agentId}.meta.json`),
        JSON.stringify({ agentType: "Explore", description: words(5) })
      )
      subagents++
    }
  }
  const result = { configDir, sessions: sessionCount, subagents, lines, bytes }
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
