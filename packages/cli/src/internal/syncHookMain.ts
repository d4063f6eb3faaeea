/**
 * The sync hook (`dist/sync-hook.cjs`, what `acx sync install` writes for Stop, SessionEnd and
 * PreCompact): reads the hook's input from stdin with the memory hook's deadline and cap, starts
 * `acx sync --background` detached for the config directory the session's transcript is in, and
 * returns. It never waits for the sync and always exits 0: Claude Code is never held up or failed
 * by it. Two hooks firing together start two syncs; the second finds the first's lock, marks it to
 * run once more and exits (`ClaudeSync`). Plain TypeScript, no Effect: it is bundled on its own.
 */
import * as HookInput from "@acx/claude-code/HookInput"
import * as AcxHome from "@acx/environment/AcxHome"
import type * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"

/** The most the hook reads from stdin: Claude Code's hook input for these events is a few hundred bytes. */
export const MAX_INPUT_BYTES = 1024 * 1024

/**
 * The config directory of a hook input's transcript (`HookInput.configDirOfTranscript`), else
 * `undefined` (the sync then reads `CLAUDE_CONFIG_DIR`, which Claude Code's hooks inherit).
 */
export const configDirOf = (input: string): string | undefined => {
  try {
    return HookInput.configDirOfTranscript(
      (JSON.parse(input) as { readonly transcript_path?: unknown } | null)?.transcript_path
    )
  } catch {
    return undefined
  }
}

/** The `acx sync` arguments for a hook's input and the hook's own arguments (`--to TARGET`). */
export const syncArgs = (input: string, hookArgs: ReadonlyArray<string>): Array<string> => {
  const configDir = configDirOf(input)
  return ["sync", "--background", ...(configDir === undefined ? [] : ["--config-dir", configDir]), ...hookArgs]
}

/**
 * Runs the hook: `argv` as `process.argv` (the hook's own arguments after the script), `acxBin`
 * the acx bin beside the bundle. Resolves to the exit code, always 0; a failure to start the sync
 * is one line on stderr (Claude Code shows it in verbose mode).
 */
export const main = async (argv: ReadonlyArray<string>, acxBin: string): Promise<number> => {
  // `process.stdin`, not the memory hook's descriptor reads: on a pipe it is a non-blocking libuv
  // handle, so a writer that keeps the pipe open without writing cannot keep this process from
  // exiting (a read pending on the thread pool does: Node waits for it at exit). Its socket
  // modules cost a few milliseconds, paid a few times per session, not on every tool call.
  const input = await HookInput.readInput(process.stdin, {
    maxBytes: MAX_INPUT_BYTES,
    deadlineMs: HookInput.STDIN_DEADLINE_MS
  })
  try {
    // required here: the hook loads node:child_process only when it spawns
    const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof ChildProcess
    const paths = AcxHome.paths()
    AcxHome.makeHome(paths.home)
    const log = AcxHome.openPrivateAppend(paths.syncLog)
    try {
      const child = spawn(process.execPath, [acxBin, ...syncArgs(input.text, argv.slice(2))], {
        detached: true,
        stdio: ["ignore", log, log],
        cwd: paths.home
      })
      child.on("error", () => {})
      child.unref()
    } finally {
      fs.closeSync(log)
    }
  } catch (error) {
    fs.writeSync(
      2,
      `acx sync hook: could not start the sync: ${error instanceof Error ? error.message : String(error)}\n`
    )
  }
  return 0
}
