/**
 * Opening a transcript the one safe way, without Effect (the stats worker threads load this and
 * nothing heavier): `O_NONBLOCK`, so opening a FIFO never waits for a writer, then `fstat` on the
 * opened descriptor, so only a regular file is ever read. `TranscriptReader` wraps it in typed
 * errors.
 *
 * @internal
 */
import * as fs from "node:fs"

/** The longest line kept (bytes); see `TranscriptReader.MAX_LINE_BYTES`. @internal */
export const MAX_LINE_BYTES = 256 * 1024 * 1024

/** `O_NONBLOCK`: opening a FIFO without a writer returns at once instead of waiting for one. @internal */
export const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK

/**
 * Why a file was not opened: `NotFound`, `NotAFile`, `Unreadable` (permission denied: a file a
 * reader skips and reads again next time, as it does a FIFO), `Io` (the file system failed).
 * @internal
 */
export interface Refusal {
  readonly reason: "NotFound" | "NotAFile" | "Unreadable" | "Io"
  readonly description: string
  readonly cause?: unknown
}

/** A regular file, opened. @internal */
export interface Opened {
  readonly fd: number
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

// The error codes a user can act on, in words (Node's message names the system call and the path)
const WORDS: { readonly [code: string]: string } = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "symlink loop",
  ENAMETOOLONG: "name too long",
  EIO: "input/output error"
}

/**
 * A file system error in the user's words: `permission denied`, `symlink loop`, …; else its
 * message (internal names, as an Effect `SystemError`'s, cut to the part after the last `: `
 * is the caller's to avoid: give this the underlying Node error).
 * @internal
 */
export const errorWords = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  const words = code === undefined ? undefined : WORDS[code]
  return words ?? (cause instanceof Error ? cause.message : String(cause))
}

/** The refusal for an error of `open` or `fstat`. @internal */
export const refusalOf = (cause: unknown): Refusal => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  return code === "ENOENT" || code === "ENOTDIR"
    ? { reason: "NotFound", description: "not found", cause }
    : code === "EACCES" || code === "EPERM"
    ? { reason: "Unreadable", description: errorWords(cause), cause }
    : { reason: "Io", description: `cannot be read (${errorWords(cause)})`, cause }
}

const kindOf = (stats: fs.Stats): string =>
  stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : stats.isDirectory()
    ? "a directory"
    : stats.isCharacterDevice() || stats.isBlockDevice()
    ? "a device"
    : "not a regular file"

/** The opened file, or why it is refused: anything but a regular file. @internal */
export const checked = (fd: number, stats: fs.Stats): Opened | Refusal =>
  stats.isFile()
    ? { fd, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino }
    : { reason: "NotAFile", description: `not a regular file (${kindOf(stats)}): skipped` }

/** Whether the result is a refusal. @internal */
export const isRefusal = (result: Opened | Refusal): result is Refusal => "reason" in result

/** Opens `file` synchronously; a refusal closes what it opened. @internal */
export const openRegularSync = (file: string): Opened | Refusal => {
  let fd: number
  try {
    fd = fs.openSync(file, OPEN_FLAGS)
  } catch (cause) {
    return refusalOf(cause)
  }
  let result: Opened | Refusal
  try {
    result = checked(fd, fs.fstatSync(fd))
  } catch (cause) {
    result = refusalOf(cause)
  }
  if (isRefusal(result)) fs.closeSync(fd)
  return result
}
