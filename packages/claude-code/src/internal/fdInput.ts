/**
 * The hook's stdin as a source of `data` events, without `process.stdin`: Claude Code hands a
 * hook its input on a socket (a pipe from a shell), and `process.stdin` on either loads Node's
 * socket and stream modules (about 3.5 ms, a seventh of Node's own start) to read a few kilobytes
 * once.
 *
 * A pipe (Linux) is opened again through `/proc/self/fd/0`, non-blocking (a new open file
 * description: the writer's stays as it was), and read synchronously, waiting a few milliseconds
 * on a timer while it is empty. Anything else (a socket, a file, a terminal) is read on libuv's
 * thread pool one chunk at a time, which leaves a read pending while a writer holds its end open
 * without writing; Node joins the pool's threads when the process exits, so such a process could
 * not end until the writer closed: `readPending` tells the hook so, and it ends itself.
 */
import { EventEmitter } from "node:events"
import * as fs from "node:fs"

/**
 * Where a hook's input comes from: a readable stream (`process.stdin`) or anything emitting its
 * `data`, `end` and `error` events (the hook reads its stdin descriptor directly).
 *
 * @since 0.1.0
 */
export interface InputSource {
  readonly on: (event: "data" | "end" | "error", listener: (chunk: Buffer | string) => void) => unknown
  readonly removeListener: (event: "data" | "end" | "error", listener: (chunk: Buffer | string) => void) => unknown
  readonly destroy?: (() => void) | undefined
}

const CHUNK_BYTES = 64 * 1024
/** The longest wait between two reads of an empty pipe (ms); the first waits 1 ms. */
const MAX_WAIT_MS = 8

/**
 * A hook's stdin: its events, `destroy` to stop reading, and whether a read is still in progress.
 *
 * @since 0.1.0
 */
export type StdinSource = InputSource & {
  readonly destroy: () => void
  readonly readPending: () => boolean
}

/** `data` and `end` events from the non-blocking descriptor `fd`; never a read pending. */
const pollingSource = (fd: number): StdinSource => {
  const emitter = new EventEmitter()
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  let stopped = false
  let wait = 1
  const stop = () => {
    if (stopped) return
    stopped = true
    try {
      fs.closeSync(fd)
    } catch {
      // closed already
    }
  }
  const next = (): void => {
    if (stopped) return
    let bytesRead: number
    try {
      bytesRead = fs.readSync(fd, buffer, 0, CHUNK_BYTES, null)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        setTimeout(next, wait)
        wait = Math.min(wait * 2, MAX_WAIT_MS)
        return
      }
      // the input ends here, as an empty one would
      stop()
      emitter.emit("end")
      return
    }
    if (bytesRead === 0) {
      stop()
      emitter.emit("end")
      return
    }
    wait = 1
    emitter.emit("data", Buffer.from(buffer.subarray(0, bytesRead)))
    // the listener may have stopped it (a whole object arrived): then nothing more is read
    setImmediate(next)
  }
  // listeners are attached in the same tick; the first read comes after them
  process.nextTick(next)
  return Object.assign(emitter, { destroy: stop, readPending: () => false })
}

/** `data` and `end` events from `fd`, read on libuv's thread pool one chunk at a time. */
const threadPoolSource = (fd: number): StdinSource => {
  const emitter = new EventEmitter()
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  let stopped = false
  let pending = false
  const next = (): void => {
    if (stopped) return
    pending = true
    fs.read(fd, buffer, 0, CHUNK_BYTES, null, (error, bytesRead) => {
      pending = false
      if (stopped) return
      if (error !== null || bytesRead === 0) {
        // EBADF (no stdin at all), EISDIR…: the input ends here, as an empty one would
        stopped = true
        emitter.emit("end")
        return
      }
      emitter.emit("data", Buffer.from(buffer.subarray(0, bytesRead)))
      next()
    })
  }
  process.nextTick(next)
  return Object.assign(emitter, {
    destroy: () => {
      stopped = true
    },
    readPending: () => pending
  })
}

const isPipe = (fd: number): boolean => {
  try {
    return fs.fstatSync(fd).isFIFO()
  } catch {
    return false
  }
}

/** The hook's stdin: {@link pollingSource} for a pipe on Linux, else {@link threadPoolSource}. */
export const stdinSource = (): StdinSource => {
  if (process.platform === "linux" && isPipe(0)) {
    try {
      return pollingSource(fs.openSync("/proc/self/fd/0", fs.constants.O_RDONLY | fs.constants.O_NONBLOCK))
    } catch {
      // no /proc: read it as anything else
    }
  }
  return threadPoolSource(0)
}
