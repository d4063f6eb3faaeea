/**
 * What Claude Code hands a hook or the statusline on stdin, and how acx reads it without ever
 * holding Claude Code up: at most a cap of bytes, done as soon as a whole JSON object arrived,
 * and done at a deadline whatever the writer does. `acx hook`, the sync hook and `acx statusline`
 * all read through {@link readInput}. Plain TypeScript, no Effect: these entries start several
 * times a second.
 *
 * @since 0.5.0
 */
import * as path from "node:path"
import * as FdInput from "./internal/fdInput.js"

/**
 * How long a hook waits for stdin to end before it goes on with what it has (ms): Claude Code
 * writes the whole input at once, so only a stuck writer ever meets it.
 *
 * @since 0.5.0
 * @category constants
 */
export const STDIN_DEADLINE_MS = 2_000

/**
 * Where a hook's input comes from: a readable stream (`process.stdin`) or anything emitting its
 * `data`, `end` and `error` events (the hook reads its stdin descriptor directly).
 *
 * @since 0.5.0
 * @category reading
 */
export type InputSource = FdInput.InputSource

/**
 * A hook's stdin: its events, `destroy` to stop reading, and whether a read is still in progress.
 *
 * @since 0.5.0
 * @category reading
 */
export type StdinSource = FdInput.StdinSource

/**
 * The process's stdin as an {@link InputSource} without `process.stdin`: a pipe polled without
 * blocking, anything else read on the thread pool (`readPending` says whether a read is still out).
 *
 * @since 0.5.0
 * @category reading
 */
export const stdinSource: () => StdinSource = FdInput.stdinSource

/**
 * What reading a hook's stdin gave: the text, the bytes taken, and how the reading ended —
 * `"ended"` (end of input), `"complete"` (a whole JSON object arrived and the writer kept the
 * pipe open), `"tooLarge"` (more than the cap arrived: reading stopped there, the text is
 * empty), `"timedOut"` (the deadline passed first; the text is what arrived).
 *
 * @since 0.5.0
 * @category models
 */
export interface StdinInput {
  readonly text: string
  readonly bytes: number
  readonly ending: "ended" | "complete" | "tooLarge" | "timedOut"
}

/** Whether a chunk ends in `}` (white space aside): only such a chunk can finish an object. */
const endsAnObject = (chunk: Buffer): boolean => {
  let end = chunk.length - 1
  while (end >= 0 && (chunk[end] === 0x20 || chunk[end] === 0x0a || chunk[end] === 0x0d || chunk[end] === 0x09)) end--
  return end >= 0 && chunk[end] === 0x7d
}

/** Whether the text read so far is one whole JSON object (a writer may keep its end open). */
const isWholeObject = (chunks: ReadonlyArray<Buffer>): boolean => {
  if (!endsAnObject(chunks.at(-1)!)) return false
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * Reads a hook's stdin without ever blocking Claude Code: it stops as soon as more than
 * `maxBytes` arrived (never reading the rest), as soon as a whole JSON object arrived, and at
 * `deadlineMs` after the start whatever the writer does. The stream is destroyed when reading
 * stops early. Never rejects (a stream error ends the reading with what arrived).
 *
 * @since 0.5.0
 * @category reading
 */
export const readInput = (
  stream: InputSource,
  limits: { readonly maxBytes: number; readonly deadlineMs: number }
): Promise<StdinInput> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    let done = false
    const finish = (ending: StdinInput["ending"]) => {
      if (done) return
      done = true
      clearTimeout(timer)
      stream.removeListener("data", onData)
      stream.removeListener("end", onEnd)
      stream.removeListener("error", onEnd)
      if (ending !== "ended") stream.destroy?.()
      resolve({
        text: ending === "tooLarge" ? "" : Buffer.concat(chunks).toString("utf8"),
        bytes,
        ending
      })
    }
    // after a parse that failed, the next waits until the input has doubled: however the chunks
    // fall, the parsing stays within twice the input (the deadline or the end catches the rest)
    let parseFrom = 0
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      bytes += buffer.length
      if (bytes > limits.maxBytes) return finish("tooLarge")
      chunks.push(buffer)
      if (bytes < parseFrom) return
      if (isWholeObject(chunks)) return finish("complete")
      if (endsAnObject(buffer)) parseFrom = bytes * 2
    }
    const onEnd = () => finish("ended")
    const timer = setTimeout(() => finish("timedOut"), limits.deadlineMs)
    stream.on("data", onData)
    stream.on("end", onEnd)
    stream.on("error", onEnd)
  })

const PROJECTS = "projects"

/**
 * The config directory a transcript path lies in (`<dir>/projects/<project>/<session>.jsonl`),
 * else `undefined`: the hooks and the statusline are handed the session's `transcript_path`.
 *
 * @since 0.5.0
 * @category paths
 */
export const configDirOfTranscript = (transcript: unknown): string | undefined => {
  if (typeof transcript !== "string" || !path.isAbsolute(transcript) || !transcript.endsWith(".jsonl")) {
    return undefined
  }
  const projects = path.dirname(path.dirname(transcript))
  return path.basename(projects) === PROJECTS ? path.dirname(projects) : undefined
}
