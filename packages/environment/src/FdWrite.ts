/**
 * Output of the small entries (the fast read path, the statusline) written with `fs.writeSync`:
 * `process.stdout` on a pipe loads the stream and socket modules, a few milliseconds of a start
 * that must stay short. A reader that closed the pipe (`| head`) ends the output, as the full
 * path's EPIPE handler does; a full non-blocking pipe is waited on, a millisecond at a time.
 *
 * @since 0.5.0
 */
import * as fs from "node:fs"

const pause = new Int32Array(new SharedArrayBuffer(4))

/**
 * Writes all of `text` (or bytes) to `fd`; throws Node's error for anything but EPIPE and EAGAIN.
 *
 * @since 0.5.0
 * @category output
 */
export const writeAll = (fd: number, text: string | Uint8Array): void => {
  const bytes = typeof text === "string" ? Buffer.from(text) : text
  let offset = 0
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(fd, bytes, offset)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "EPIPE") return
      if (code !== "EAGAIN") throw error
      Atomics.wait(pause, 0, 0, 1)
    }
  }
}
