/**
 * The `acx hook <Event>` process: reads stdin, runs {@link HookRunner.runHook}, prints its JSON
 * line, its warning (stderr), starts the worker detached when events wait and none runs, and
 * always exits 0. Claude Code runs it on every tool call, so it loads as little as it can: it is
 * bundled on its own as CommonJS (`dist/hook.cjs`: no CLI framework, no Effect, no ES module
 * loader), reads stdin without `process.stdin` (`@acx/claude-code/HookInput`) and writes with
 * `fs.writeSync` (either stream on a pipe loads Node's socket modules), and loads
 * `node:child_process` only when it starts the worker (docs/memory.md, "Hook latency").
 *
 * @since 0.1.0
 */
import { type StdinSource, stdinSource } from "@acx/claude-code/HookInput"
import * as AcxHome from "@acx/environment/AcxHome"
import type * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as HookRunner from "./HookRunner.js"
import * as MemoryConfig from "./MemoryConfig.js"

/**
 * The command that starts the worker: `ACX_MEMORY_WORKER_BIN` (a script run with this Node), else
 * `acxBin` (the acx bin beside the hook's bundle), else the script this process was started as,
 * with `memory worker`.
 *
 * @since 0.1.0
 * @category worker
 */
export const workerCommand = (
  env: { readonly [name: string]: string | undefined } = process.env,
  acxBin?: string
): readonly [string, ReadonlyArray<string>] | undefined => {
  const script = env["ACX_MEMORY_WORKER_BIN"] ?? acxBin ?? process.argv[1]
  return script === undefined || script === "" ? undefined : [process.execPath, [script, "memory", "worker"]]
}

/**
 * Starts the worker detached (its own process group, stdin closed, output appended to the
 * worker log) and does not wait for it. Returns a warning line when it could not.
 *
 * @since 0.1.0
 * @category worker
 */
export const startWorker = (
  home: string,
  env: { readonly [name: string]: string | undefined } = process.env,
  acxBin?: string
): string | undefined => {
  const command = workerCommand(env, acxBin)
  if (command === undefined) return "cannot tell how to start the worker (set ACX_MEMORY_WORKER_BIN)"
  const files = MemoryConfig.paths(home)
  try {
    // required here, not imported: most hook calls start no worker (and the hook's code runs from
    // a V8 code cache, where `import()` has no loader to call)
    const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof ChildProcess
    AcxHome.makeHome(files.home)
    const log = AcxHome.openPrivateAppend(files.workerLog)
    try {
      const child = spawn(command[0], [...command[1]], {
        detached: true,
        stdio: ["ignore", log, log],
        env: { ...env, ACX_HOME: home },
        cwd: files.home
      })
      child.on("error", () => {})
      child.unref()
    } finally {
      fs.closeSync(log)
    }
    return undefined
  } catch (error) {
    return `could not start the worker: ${error instanceof Error ? error.message : String(error)}`
  }
}

/**
 * The event a hook process was started for: `acx hook <Event>` (through the acx bin) or
 * `hook.cjs <Event>` (the command `acx memory install` writes). No event is named `hook`.
 *
 * @since 0.1.0
 * @category running
 */
export const eventOf = (argv: ReadonlyArray<string>): string => (argv[2] === "hook" ? argv[3] : argv[2]) ?? ""

/** Writes all of `text` to `fd`, synchronously (the process exits right after). */
const writeAll = (fd: number, text: string): void => {
  try {
    fs.writeSync(fd, text)
  } catch {
    // a closed stdout or stderr: Claude Code stopped listening, nothing to tell it
  }
}

/**
 * Runs `acx hook <Event>` with `argv` as `process.argv` ({@link eventOf}); resolves to the exit
 * code (always 0). Stdin (`stdin`, else the process's own, read without a pending read that could hold the exit) is read with a deadline and a size cap
 * ({@link HookRunner.readInput}): a writer that keeps the pipe open or sends too much never holds
 * Claude Code up. Output goes to descriptors 1 and 2 synchronously, so the caller may exit at once.
 * `acxBin` is the acx bin that starts the worker ({@link workerCommand}): the hook's process may
 * have been started as its own bundle, not as the bin.
 *
 * @since 0.1.0
 * @category running
 */
export const main = async (
  argv: ReadonlyArray<string> = process.argv,
  stdin?: HookRunner.InputSource,
  acxBin?: string
): Promise<number> => {
  const env = process.env
  const event = eventOf(argv)
  // asked by a person, never by Claude Code: the help, not a hook's answer
  if (event === "--help" || event === "-h") {
    writeAll(1, HELP)
    return 0
  }
  const source = stdin ?? stdinSource()
  const outcome = await run(event, env, source)
  writeAll(1, `${outcome.stdout}\n`)
  const warnings = [outcome.warning]
  if (outcome.startWorker) warnings.push(startWorker(AcxHome.acxHome(env), env, acxBin))
  for (const warning of warnings) {
    if (warning !== undefined) writeAll(2, `${warning}\n`)
  }
  // a writer holding stdin open without finishing its input: the read Node cannot cancel would
  // keep the process (and Claude Code, which waits for it) until the writer closes; the answer is
  // written, so the process ends itself now
  if (stdin === undefined && (source as StdinSource).readPending()) process.kill(process.pid, "SIGKILL")
  return 0
}

const EVENTS = "SessionStart|UserPromptSubmit|PostToolUse|PostToolUseFailure|Stop|SessionEnd"

const HELP = `Usage: acx hook <${EVENTS}>

Records one Claude Code hook event for acx memory: reads the hook's JSON input on stdin and
answers Claude Code's JSON on stdout, always with exit 0 (a hook never blocks a session).
\`acx memory install\` writes these hooks into Claude Code's settings.
`

const run = async (
  event: string,
  env: { readonly [name: string]: string | undefined },
  stdin: HookRunner.InputSource
): Promise<HookRunner.HookOutcome> => {
  if (event === "") {
    return HookRunner.nothingRecorded(
      "",
      `which event? (acx hook ${EVENTS})`
    )
  }
  // the observer's own hooks record nothing: no reason to read what they are sent
  if (env[HookRunner.OBSERVER_ENV] === "1") {
    stdin.destroy?.()
    return HookRunner.runHook(event, "", { env })
  }
  const loaded = MemoryConfig.load(AcxHome.acxHome(env))
  const input = await HookRunner.readInput(stdin, {
    maxBytes: loaded.config.maxHookInputBytes,
    deadlineMs: HookRunner.STDIN_DEADLINE_MS
  })
  if (input.ending === "tooLarge") {
    return HookRunner.nothingRecorded(event, HookRunner.tooLargeWarning(loaded.config.maxHookInputBytes))
  }
  if (input.ending === "timedOut" && !isJson(input.text)) {
    return HookRunner.nothingRecorded(
      event,
      `stdin did not end within ${HookRunner.STDIN_DEADLINE_MS} ms (${input.bytes} bytes read): nothing recorded`
    )
  }
  return HookRunner.runHook(event, input.text, { env, loaded, exitsNext: true })
}

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
