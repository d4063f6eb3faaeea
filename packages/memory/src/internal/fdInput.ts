/**
 * A file descriptor read as a stream of `data` events, for the hook's stdin: Claude Code hands a
 * hook its input on a pipe, and `process.stdin` on a pipe loads Node's socket and stream modules
 * (about a fifth of a hook's start-up) to read a few kilobytes once. Reads run on libuv's thread
 * pool one chunk at a time; `destroy` stops asking for more. A read still pending when the
 * process is done (a writer that never closes the pipe) cannot be cancelled: the hook's process
 * exits explicitly instead of waiting for it.
 */
import { EventEmitter } from "node:events"
import * as fs from "node:fs"

const CHUNK_BYTES = 64 * 1024
/** How long to wait before reading again when the descriptor is non-blocking and empty. */
const RETRY_MS = 2

/** `data` (Buffer), `end` and `error` events from `fd`, as `HookRunner.readInput` consumes them. */
export const fdStream = (fd: number): EventEmitter & { readonly destroy: () => void } => {
  const emitter = new EventEmitter()
  let stopped = false
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  const next = (): void => {
    if (stopped) return
    fs.read(fd, buffer, 0, CHUNK_BYTES, null, (error, bytesRead) => {
      if (stopped) return
      if (error !== null) {
        if (error.code === "EAGAIN") {
          setTimeout(next, RETRY_MS)
          return
        }
        // EBADF (no stdin at all), EISDIR…: the input ends here, as an empty one would
        stopped = true
        emitter.emit("end")
        return
      }
      if (bytesRead === 0) {
        stopped = true
        emitter.emit("end")
        return
      }
      emitter.emit("data", Buffer.from(buffer.subarray(0, bytesRead)))
      next()
    })
  }
  // listeners are attached in the same tick; the first read starts after them
  process.nextTick(next)
  return Object.assign(emitter, {
    destroy: () => {
      stopped = true
    }
  })
}
