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

/**
 * Prints a fast path's answer (`output`, without its final newline) and says so on stderr under
 * `ACX_FAST_REPORT=1` (as `acx: fast path: <path>`, for tests); an output that cannot be written
 * is one line on stderr and exit code 1, as the full path has it. Returns `true` (answered).
 */
export const answer = (path: string, output: string, env: NodeJS.ProcessEnv): true => {
  if (env["ACX_FAST_REPORT"] === "1") fs.writeSync(2, `acx: fast path: ${path}\n`)
  try {
    writeAll(1, `${output}\n`)
  } catch (error) {
    fs.writeSync(2, `acx: cannot write the output: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
  return true
}
