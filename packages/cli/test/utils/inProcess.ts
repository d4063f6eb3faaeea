/**
 * Runs `acx` IN this test process: `run` of `src/Cli.ts`, the function the built binary's entry
 * (`src/bin.ts`) calls, with a fake `CommandIo` (stdout and stderr collected, the environment and
 * directory the test names, stdout not a terminal) — the same {@link AcxResult} a spawned
 * `acx(…)` gives. A spawned process costs about 0.3 s of CPU to start (Effect and the bundle) on
 * top of its work; a test that checks many command lines of one promise (every help page, every
 * kind of parse error, a report per grouping) runs them here, and keeps one spawned `acx` per
 * promise for what only a process shows (the bundle, exit codes, stdout/stderr as pipes, the
 * CommonJS bundles of the store and config-dir reads).
 *
 * What differs from a spawned run, on purpose: stdout is not a terminal unless `isTTY` says so. The io is all a
 * run is given: the process's streams, console, environment and directory are left alone, so runs
 * with different environments and directories go at once (`Promise.all`). The time zone is the
 * process's (`TZ` in `env` changes nothing here). Not for commands that read stdin, start
 * background processes or run until stopped: those are the binary's.
 */
import type { CommandIo } from "../../src/CommandIo.js"
import { type AcxOptions, type AcxResult, BIN, TEST_ACX_HOME } from "./acx.js"

/** `acx args` run in this process with its own io; `options.input` and `timeoutMs` are not taken. */
export const acxInProcess = async (
  args: ReadonlyArray<string>,
  options: Pick<AcxOptions, "env" | "cwd"> & {
    /** Whether the run's stdout is a terminal (`io.isTTY`); default not. */
    readonly isTTY?: boolean
  } = {}
): Promise<AcxResult> => {
  // loaded on first use: a file that never runs acx in process does not pay for the CLI's modules
  const { run } = await import("../../src/Cli.js")
  const out: Array<string> = []
  const err: Array<string> = []
  const argv = [process.execPath, BIN, ...args]
  const io: CommandIo = {
    stdout: async (text) => {
      out.push(text)
    },
    stderr: (text) => {
      err.push(text)
    },
    env: environment(options.env ?? {}),
    cwd: options.cwd ?? process.cwd(),
    get stdin() {
      return process.stdin
    },
    isTTY: options.isTTY === true,
    stderrIsTTY: false,
    argv
  }
  const code = await run(argv, io)
  const stdout = out.join("")
  const stderr = err.join("")
  return {
    code,
    signal: null,
    stdout,
    stderr,
    stderrLines: stderr.split("\n").filter((line) => line.trim() !== "")
  }
}

/** The environment a run sees: the process's, as `acx(…)` gives a spawned one, with the test's. */
const environment = (given: { readonly [name: string]: string | undefined }) => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    ...given
  }
  // as `acx(…)`: a scratch ACX_HOME unless the test names one (or a HOME whose ~/.acx it means)
  if (!("ACX_HOME" in given) && !("HOME" in given)) env["ACX_HOME"] = TEST_ACX_HOME
  for (const key of ["ACONTEXT_API_KEY", "ACONTEXT_BASE_URL", "CLAUDE_CONFIG_DIR"]) {
    if (!(key in given)) env[key] = undefined
  }
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined))
}
