/**
 * Runs `acx` IN this test process: `run` of `src/Cli.ts`, the function the built binary's entry
 * (`src/bin.ts`) calls, with a fake `CommandIo` (stdout and stderr collected, the environment and
 * directory the test names, stdout not a terminal) — the same {@link AcxResult} a spawned
 * `acx(…)` gives. A spawned process costs about 0.3 s of CPU to start (Effect and the bundle) on
 * top of its work; a test that checks many command lines of one promise (every help page, every
 * kind of parse error, a report per grouping) runs them here, and keeps one spawned `acx` per
 * promise for what only a process shows (the bundle, exit codes, stdout/stderr as pipes, the
 * fast answers of `sessions`, `stats` and `sync`).
 *
 * What differs from a spawned run, on purpose: `ACX_NO_FAST=1` unless the test names it (this is
 * the full path the fast answers are compared with), stdout is never a terminal. Runs one at a
 * time: what a command's deeper code reads and writes without the io (Effect's console, modules
 * that write to `process.stdout`, read `process.env` or the working directory) is borrowed from
 * the process while one runs — its stdout, stderr, console, argv, environment and, with `cwd`,
 * working directory (vitest's default `forks` pool lets a test file change directory, a worker
 * thread could not). Not for commands that read stdin, start background processes or run until
 * stopped: those are the binary's.
 */
import { Console } from "node:console"
import { Writable } from "node:stream"
import type { CommandIo } from "../../src/CommandIo.js"
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
  const env: Record<string, string | undefined> = { NO_COLOR: "1", FORCE_COLOR: undefined, ACX_NO_FAST: "1", ...given }
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
    const io: CommandIo = {
      stdout: async (text) => {
        out.push(text)
      },
      stderr: (text) => {
        err.push(text)
      },
      env: { ...process.env },
      cwd: process.cwd(),
      get stdin() {
        return process.stdin
      },
      isTTY: false,
      argv: process.argv
    }
    const code = await run(process.argv, io)
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
