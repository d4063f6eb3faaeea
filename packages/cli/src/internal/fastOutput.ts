/**
 * How the fast paths (`fastRead.ts`, `fastSync.ts`) write their answer: `FdWrite.writeAll`, and
 * a failure as the full path words it.
 */
import { writeAll } from "@acx/environment/FdWrite"
import * as fs from "node:fs"

/**
 * Prints a fast path's answer (`output`: text without its final newline, or bytes as they are
 * printed, the newline included) and says so on stderr under
 * `ACX_FAST_REPORT=1` (as `acx: fast path: <path>`, for tests); an output that cannot be written
 * is one line on stderr and exit code 1, as the full path has it. Returns `true` (answered).
 */
export const answer = (path: string, output: string | Uint8Array, env: NodeJS.ProcessEnv): true => {
  if (env["ACX_FAST_REPORT"] === "1") fs.writeSync(2, `acx: fast path: ${path}\n`)
  try {
    writeAll(1, typeof output === "string" ? `${output}\n` : output)
  } catch (error) {
    fs.writeSync(2, `acx: cannot write the output: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
  return true
}
