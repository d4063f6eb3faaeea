/**
 * How the fast paths (`fastRead.ts`, `fastDir.ts`) write their answer: with `fs.writeSync`
 * (process.stdout on a pipe loads the stream and socket modules); a reader that closed the pipe
 * (`| head`) ends the output, as the full path's EPIPE handler does.
 */
import * as fs from "node:fs"

const pause = new Int32Array(new SharedArrayBuffer(4))

/** Writes all of `text` to `fd`, waiting out `EAGAIN` (a non-blocking pipe that is full). */
export const writeAll = (fd: number, text: string): void => {
  const bytes = Buffer.from(text)
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
