/**
 * Hostile Claude config directories for the reader tests: sessions whose valid lines are mixed
 * with lines nested thousands deep, binary garbage, invalid UTF-8, CRLF endings, huge lines and a
 * torn last line, beside FIFOs named like transcripts, symbolic-link loops, dangling links and
 * directories named like transcripts. Each directory comes with what a reader must keep: the
 * valid entries of every session and subagent, in file order.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/** The kinds of line a session may hold besides valid ones. */
export type BadLine = "deep" | "garbage" | "invalidUtf8" | "crlf" | "huge" | "blank"

/** What one hostile directory holds. */
export interface HostileSpec {
  /** Per valid session: the kinds of extra line, in order (valid lines between them). */
  readonly sessions: ReadonlyArray<ReadonlyArray<BadLine>>
  /** Nesting of the deep lines. */
  readonly depth: number
  /** A torn last line at the end of the first session. */
  readonly torn: boolean
  readonly fifoMain: boolean
  readonly fifoSubagent: boolean
  readonly linkLoop: boolean
  readonly danglingLink: boolean
  readonly directoryTranscript: boolean
}

export interface BuiltSession {
  readonly sessionId: string
  readonly file: string
  /** The entries a reader must keep, in order. */
  readonly entries: ReadonlyArray<Record<string, unknown>>
  /** Lines ended by `\n`. */
  readonly lines: number
  readonly subagents: ReadonlyArray<
    { readonly agentId: string; readonly entries: ReadonlyArray<Record<string, unknown>> }
  >
  /** Agent ids named like subagents that are not regular files. */
  readonly fifoAgents: ReadonlyArray<string>
}

export interface HostileDir {
  readonly configDir: string
  readonly projectKey: string
  readonly sessions: ReadonlyArray<BuiltSession>
  /** Paths that are not regular files, named like transcripts. */
  readonly notFiles: ReadonlyArray<string>
}

/** A user entry. */
export const userEntry = (sessionId: string, n: number, text: string): Record<string, unknown> => ({
  type: "user",
  uuid: randomUUID(),
  parentUuid: null,
  sessionId,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  cwd: "/tmp/hostile",
  message: { role: "user", content: text }
})

/** A transcript line nested `depth` arrays deep (valid JSON, an object with a `type`). */
export const deepLine = (depth: number): string =>
  `{"type":"user","uuid":"${randomUUID()}","message":{"role":"user","content":${"[".repeat(depth)}${
    "]".repeat(depth)
  }}}`

/** Creates a FIFO (named pipe). */
export const mkfifo = (file: string): void => {
  execFileSync("mkfifo", [file])
}

const HUGE = 9 * 1024 * 1024

/**
 * Writes the directory under `root` (its config dir `root/claude`), as the project `projectKey`:
 * several specs built under one root with other keys are projects of one config dir.
 */
export const buildHostileDir = (root: string, spec: HostileSpec, projectKey = "-tmp-hostile"): HostileDir => {
  const configDir = path.join(root, "claude")
  const projectDir = path.join(configDir, "projects", projectKey)
  fs.mkdirSync(projectDir, { recursive: true })
  const notFiles: Array<string> = []
  const sessions = spec.sessions.map((bad, index): BuiltSession => {
    const sessionId = randomUUID()
    const file = path.join(projectDir, `${sessionId}.jsonl`)
    const parts: Array<Buffer> = []
    const entries: Array<Record<string, unknown>> = []
    let n = 0
    let lines = 0
    const valid = (text: string, ending = "\n") => {
      const entry = userEntry(sessionId, n++, text)
      entries.push(entry)
      parts.push(Buffer.from(JSON.stringify(entry) + ending))
      lines++
    }
    valid(`first prompt of session ${index}`)
    for (const kind of bad) {
      switch (kind) {
        case "deep":
          parts.push(Buffer.from(deepLine(spec.depth) + "\n"))
          break
        case "garbage":
          parts.push(Buffer.from([0x00, 0xff, 0x7b, 0x22, 0xfe, 0x5b, 0x5b, 0x0a]))
          break
        case "blank":
          parts.push(Buffer.from("   \n"))
          break
        case "crlf":
          valid("a line ended by CRLF", "\r\n")
          break
        case "huge":
          valid("x".repeat(HUGE))
          break
        case "invalidUtf8": {
          // a valid entry whose text holds bytes that are not UTF-8: kept, with U+FFFD in their place
          const entry = userEntry(sessionId, n++, "BAD")
          const [before, after] = JSON.stringify(entry).split("BAD") as [string, string]
          const bytes = Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xc3]), Buffer.from(after + "\n")])
          entries.push(JSON.parse(bytes.toString("utf8")) as Record<string, unknown>)
          parts.push(bytes)
          break
        }
      }
      if (kind !== "crlf" && kind !== "huge") lines++
      valid(`after a ${kind} line`)
    }
    if (index === 0 && spec.torn) parts.push(Buffer.from(`{"type":"user","uuid":"${randomUUID()}","mess`))
    fs.writeFileSync(file, Buffer.concat(parts))
    const subagentsDir = path.join(projectDir, sessionId, "subagents")
    const subagents: Array<{ agentId: string; entries: Array<Record<string, unknown>> }> = []
    const fifoAgents: Array<string> = []
    if (index === 0) {
      fs.mkdirSync(subagentsDir, { recursive: true })
      const agentEntries = [userEntry(sessionId, 100, "a subagent's prompt")]
      fs.writeFileSync(
        path.join(subagentsDir, "agent-ok.jsonl"),
        agentEntries.map((e) => JSON.stringify(e) + "\n").join("")
      )
      subagents.push({ agentId: "ok", entries: agentEntries })
      if (spec.fifoSubagent) {
        const fifo = path.join(subagentsDir, "agent-fifo.jsonl")
        mkfifo(fifo)
        notFiles.push(fifo)
        fifoAgents.push("fifo")
        // a FIFO as a valid subagent's metadata sidecar: no metadata, never waited on
        mkfifo(path.join(subagentsDir, "agent-ok.meta.json"))
      }
      if (spec.linkLoop) {
        // a directory linking to its parent, and a link to itself
        fs.symlinkSync("..", path.join(subagentsDir, "loop"))
        fs.symlinkSync("agent-self.jsonl", path.join(subagentsDir, "agent-self.jsonl"))
      }
    }
    return { sessionId, file, entries, lines, subagents, fifoAgents }
  })
  if (spec.fifoMain) {
    const fifo = path.join(projectDir, `${randomUUID()}.jsonl`)
    mkfifo(fifo)
    notFiles.push(fifo)
  }
  if (spec.danglingLink) fs.symlinkSync("missing.jsonl", path.join(projectDir, `${randomUUID()}.jsonl`))
  if (spec.directoryTranscript) fs.mkdirSync(path.join(projectDir, `${randomUUID()}.jsonl`))
  return { configDir, projectKey, sessions, notFiles }
}
