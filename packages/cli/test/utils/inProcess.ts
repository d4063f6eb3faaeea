/**
 * Runs `acx` IN this test process: `run` of `src/Cli.ts`, the function the built binary's entry
 * (`src/bin.ts`) calls, with its output collected — the same {@link AcxResult} a spawned
 * `acx(…)` gives. A spawned process costs about 0.3 s of CPU to start (Effect and the bundle) on
 * top of its work; a test that checks many command lines of one promise (every help page, every
 * kind of parse error, a report per grouping) runs them here, and keeps one spawned `acx` per
 * promise for what only a process shows (the bundle, exit codes, stdout/stderr as pipes, the
 * fast paths of `bin/acx.mjs`).
 *
 * What differs from a spawned run, on purpose: no `bin/acx.mjs` (no fast read path: this is the
 * full path the fast ones are compared with), stdout is never a terminal. Runs one at a time
 * (the process's stdout, stderr, console, argv, environment and, with `cwd`, working directory
 * are borrowed while one runs; vitest's default `forks` pool lets a test file change directory,
 * a worker thread could not). Not for commands that read stdin, start background processes or
 * run until stopped: those are the binary's.
 */
import { Console } from "node:console"
import { Writable } from "node:stream"
import { type AcxOptions, type AcxResult, BIN, TEST_ACX_HOME } from "./acx.js"

// a console's stream: what it writes joins `chunks` at once (in order with direct writes)
const collector = (chunks: Array<string>) =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === "string" ? chunk : chunk.toString("utf8"))
      done()
    }
  })

// the write functions collect strings and buffers alike; a callback (last argument) is called
const collectingWrite = (chunks: Array<string>) => (chunk: string | Uint8Array, ...rest: Array<unknown>): boolean => {
  chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
  const done = rest.at(-1)
  if (typeof done === "function") queueMicrotask(() => (done as () => void)())
  return true
}

let queue: Promise<unknown> = Promise.resolve()

/** `acx args` run in this process (one at a time); `options.input` and `timeoutMs` are not taken. */
export const acxInProcess = (
  args: ReadonlyArray<string>,
  options: Pick<AcxOptions, "env" | "cwd"> = {}
): Promise<AcxResult> => {
  const next = queue.then(() => runOnce(args, options))
  queue = next.catch(() => undefined)
  return next
}

const runOnce = async (args: ReadonlyArray<string>, options: Pick<AcxOptions, "env" | "cwd">): Promise<AcxResult> => {
  // loaded on first use: a file that never runs acx in process does not pay for the CLI's modules
  const { run } = await import("../../src/Cli.js")
  const given = options.env ?? {}
  const env: Record<string, string | undefined> = { NO_COLOR: "1", FORCE_COLOR: undefined, ...given }
  // as `acx(…)`: a scratch ACX_HOME unless the test names one (or a HOME whose ~/.acx it means)
  if (!("ACX_HOME" in given) && !("HOME" in given)) env["ACX_HOME"] = TEST_ACX_HOME
  for (const key of ["ACONTEXT_API_KEY", "ACONTEXT_BASE_URL", "CLAUDE_CONFIG_DIR"]) {
    if (!(key in given)) env[key] = undefined
  }
  const savedEnv = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]))
  const out: Array<string> = []
  const err: Array<string> = []
  const stdoutWrite = process.stdout.write
  const stderrWrite = process.stderr.write
  const stdoutTty = Object.getOwnPropertyDescriptor(process.stdout, "isTTY")
  const savedConsole = globalThis.console
  const cwd = process.cwd()
  const argv = process.argv
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
  try {
    setEnv(env)
    // what a command that names itself reads (`memory install` registers `node <argv[1]> memory mcp`)
    process.argv = [process.execPath, BIN, ...args]
    if (options.cwd !== undefined) process.chdir(options.cwd)
    process.stdout.write = collectingWrite(out) as typeof process.stdout.write
    process.stderr.write = collectingWrite(err) as typeof process.stderr.write
    Object.defineProperty(process.stdout, "isTTY", { value: false, configurable: true })
    // Effect's default Console calls the global console when it logs
    globalThis.console = new Console({ stdout: collector(out), stderr: collector(err) })
    const code = await run(process.argv)
    const stdout = out.join("")
    const stderr = err.join("")
    return {
      code,
      signal: null,
      stdout,
      stderr,
      stderrLines: stderr.split("\n").filter((line) => line.trim() !== "")
    }
  } finally {
    globalThis.console = savedConsole
    process.argv = argv
    process.stdout.write = stdoutWrite
    process.stderr.write = stderrWrite
    if (stdoutTty === undefined) delete (process.stdout as { isTTY?: boolean }).isTTY
    else Object.defineProperty(process.stdout, "isTTY", stdoutTty)
    if (options.cwd !== undefined) process.chdir(cwd)
    setEnv(savedEnv)
  }
}
