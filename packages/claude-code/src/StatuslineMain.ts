/**
 * `acx statusline` (`dist/statusline.cjs` in `@acx/cli`): reads Claude Code's statusline input from stdin with
 * the hooks' deadline and cap, records its `rate_limits` readings, and prints one line from the
 * input and the cached totals (`StatuslineTotals`: never a transcript read here). A stale or
 * missing summary starts `acx statusline refresh` detached, at most one at a time per config
 * directory; this run shows what the cache has. Plain TypeScript, no Effect: it is bundled on its
 * own and runs several times a second. It always prints a line and exits 0 on bad input.
 *
 * @since 0.5.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import { writeAll } from "@acx/environment/FdWrite"
import type * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import * as HookInput from "./HookInput.js"
import { recordReadings } from "./internal/quotaAppend.js"
import * as StatuslineLine from "./StatuslineLine.js"
import * as StatuslinePayload from "./StatuslinePayload.js"
import * as StatusLineTotals from "./StatuslineTotals.js"

/**
 * The most read from stdin: Claude Code's statusline input is a few kilobytes.
 *
 * @since 0.5.0
 */
export const MAX_INPUT_BYTES = 1024 * 1024

/** How long a refresh may hold its lock before another statusline starts one anyway. */
const REFRESH_LOCK_MS = 60_000

/**
 * How long the wrapped command may run (`--wrap`): its output is dropped after this.
 *
 * @since 0.5.0
 */
export const WRAP_TIMEOUT_MS = 1_000

/**
 * The options of `acx statusline` (`--format T`, `--plain`, `--wrap CMD`, `--config-dir D`), or
 * `undefined` for any other command line.
 *
 * @since 0.5.0
 */
export interface StatuslineArgs {
  readonly format: string | undefined
  readonly plain: boolean
  readonly wrap: string | undefined
  readonly configDir: string | undefined
}

const OPTIONS = {
  format: { type: "string" },
  wrap: { type: "string" },
  "config-dir": { type: "string" },
  plain: { type: "boolean" }
} as const

/** `node:util`'s strict parse of the statusline's options, or `undefined` where it throws. */
const strictParse = (args: ReadonlyArray<string>) => {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false, tokens: true })
  } catch {
    return undefined
  }
}

/**
 * The statusline's options from the arguments after `statusline`, or `undefined`: exactly the
 * options it names, each at most once, in any order, `--name value` (never `--name=value`), no
 * value that looks like an option, nothing else.
 *
 * @since 0.5.0
 */
export const parseStatuslineArgs = (args: ReadonlyArray<string>): StatuslineArgs | undefined => {
  const parsed = strictParse(args)
  if (parsed === undefined) return undefined
  const names = new Set<string>()
  for (const token of parsed.tokens) {
    if (token.kind !== "option" || token.inlineValue === true || names.has(token.name)) return undefined
    if (token.value?.startsWith("-") === true) return undefined
    names.add(token.name)
  }
  const { format, plain, wrap } = parsed.values
  return { format, plain: plain === true, wrap, configDir: parsed.values["config-dir"] }
}

/**
 * The config directory whose totals the line shows: the transcript's, else the environment's.
 *
 * @since 0.5.0
 */
export const configDirFor = (
  payload: StatuslinePayload.Payload,
  args: StatuslineArgs,
  env: { readonly [name: string]: string | undefined }
): string => {
  const given = args.configDir ?? HookInput.configDirOfTranscript(payload.transcriptPath) ?? env["CLAUDE_CONFIG_DIR"]
  if (given === undefined || given === "") return path.join(os.homedir(), ".claude")
  return given.startsWith("~/") ? path.join(os.homedir(), given.slice(2)) : path.resolve(given)
}

const childProcess = (): typeof ChildProcess =>
  createRequire(import.meta.url)("node:child_process") as typeof ChildProcess

/**
 * Starts `acx statusline refresh --config-dir D` detached unless one holds the lock (a file
 * created exclusively beside the summary; one older than {@link REFRESH_LOCK_MS} is taken over).
 */
const startRefresh = (cacheDir: string, configDir: string, acxBin: string): void => {
  const lock = `${StatusLineTotals.summaryFile(cacheDir, configDir)}.lock`
  try {
    AcxHome.makePrivateDirectory(cacheDir)
    try {
      fs.closeSync(fs.openSync(lock, "wx", AcxHome.PRIVATE_FILE_MODE))
    } catch {
      if (Date.now() - fs.statSync(lock).mtimeMs < REFRESH_LOCK_MS) return
      fs.utimesSync(lock, new Date(), new Date())
    }
    const child = childProcess().spawn(
      process.execPath,
      [acxBin, "statusline", "refresh", "--config-dir", configDir],
      { detached: true, stdio: "ignore", cwd: cacheDir }
    )
    child.on("error", () => fs.rmSync(lock, { force: true }))
    child.unref()
  } catch {
    // no refresh this time: the next statusline tries again
  }
}

/** The cached totals of `configDir` for the line, asking for a refresh when they are stale. */
const totalsFor = (home: string, configDir: string, nowMs: number, acxBin: string): StatuslineLine.Totals => {
  const cacheDir = AcxHome.paths(home).cache
  const summary = StatusLineTotals.readSummary(StatusLineTotals.summaryFile(cacheDir, configDir), configDir)
  const today = StatusLineTotals.today(nowMs)
  if (StatusLineTotals.isStale(summary, nowMs, today)) startRefresh(cacheDir, configDir, acxBin)
  const block = summary?.block ?? null
  return {
    todayCostUSD: summary !== undefined && summary.day === today ? summary.todayCostUSD : undefined,
    block: block === null ? undefined : { ...block, burnUSDPerHour: block.burnUSDPerHour ?? undefined }
  }
}

/**
 * Runs the wrapped statusline command with `input` on its stdin; resolves to its first line as
 * soon as it is printed (empty when the command prints none within {@link WRAP_TIMEOUT_MS}).
 */
const runWrapped = (command: string, input: string): Promise<string> =>
  new Promise((resolve) => {
    let out = ""
    let settled = false
    // its own process group: a command that outlives its line is killed with what it started
    const child = childProcess().spawn("/bin/sh", ["-c", command], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true
    })
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // ended already
      }
    }
    const done = (line: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(line.replace(/\r$/, ""))
    }
    const timer = setTimeout(() => {
      stop()
      done("")
    }, WRAP_TIMEOUT_MS)
    child.on("error", () => done(""))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const end = out.indexOf("\n")
      // the first line is all acx shows: the rest is not waited for
      if (end !== -1 || out.length > 64 * 1024) {
        stop()
        done(end === -1 ? "" : out.slice(0, end))
      }
    })
    child.on("close", () => done(out))
    child.stdin.on("error", () => {})
    child.stdin.end(input)
  })

/**
 * How long the statusline waits for input that never completes: the hooks' deadline, or
 * `ACX_STDIN_DEADLINE_MS` (a positive integer) where given. Input that arrives whole is used at
 * once whatever the deadline.
 *
 * @since 0.5.0
 */
export const stdinDeadlineMs = (env: { readonly [name: string]: string | undefined }): number => {
  const given = Number(env["ACX_STDIN_DEADLINE_MS"] ?? "")
  return Number.isSafeInteger(given) && given > 0 ? given : HookInput.STDIN_DEADLINE_MS
}

const isSocket = (fd: number): boolean => {
  try {
    return fs.fstatSync(fd).isSocket()
  } catch {
    return false
  }
}

/**
 * Runs the statusline with `args`, the arguments after the command; resolves to the exit code (2 for options it
 * does not take, else 0). `acxBin` starts the refresh. Output goes to descriptor 1 synchronously,
 * so the caller may exit at once.
 *
 * @since 0.5.0
 */
export const main = async (
  args: ReadonlyArray<string>,
  acxBin: string,
  env: { readonly [name: string]: string | undefined } = process.env
): Promise<number> => {
  const parsed = parseStatuslineArgs(args)
  if (parsed === undefined) {
    writeAll(2, "acx: statusline takes --format TEMPLATE, --plain, --wrap COMMAND and --config-dir DIR (each once)\n")
    return 2
  }
  // a socket (how Node and Bun hand a child its stdin pipe) is read through `process.stdin`: a
  // non-blocking handle, so a writer that never closes it cannot hold the exit, and the process
  // exits 0 (the descriptor reads of `acx hook` would leave a read pending there, ended by SIGKILL)
  const source: HookInput.InputSource = isSocket(0) ? process.stdin : HookInput.stdinSource()
  const input = await HookInput.readInput(source, {
    maxBytes: MAX_INPUT_BYTES,
    deadlineMs: stdinDeadlineMs(env)
  })
  const wrapped = parsed.wrap === undefined ? undefined : runWrapped(parsed.wrap, input.text)
  const nowMs = Date.now()
  let json: unknown
  try {
    json = JSON.parse(input.text)
  } catch {
    json = undefined
  }
  const payload = StatuslinePayload.fromJson(json)
  const home = AcxHome.acxHome(env)
  const options: StatuslineLine.Options = {
    color: !parsed.plain && (env["NO_COLOR"] ?? "") === "",
    template: parsed.format,
    nowMs
  }
  let totals: StatuslineLine.Totals = { todayCostUSD: undefined, block: undefined }
  try {
    totals = totalsFor(home, configDirFor(payload, parsed, env), nowMs, acxBin)
    recordReadings(home, json, nowMs)
  } catch {
    // the line shows what Claude Code sent: the cache and the readings are extras
  }
  // input with none of the line's fields (`{}`) shows what is known without it: never an empty line
  const rendered = payload === StatuslinePayload.empty ? "" : StatuslineLine.render(payload, totals, options)
  const ours = rendered === "" ? StatuslineLine.minimal(totals, options) : rendered
  const theirs = wrapped === undefined ? "" : await wrapped
  writeAll(1, `${theirs === "" ? ours : `${theirs} │ ${ours}`}\n`)
  // a writer holding stdin open: the read Node cannot cancel would keep the process alive
  if (source !== process.stdin && (source as HookInput.StdinSource).readPending()) process.kill(process.pid, "SIGKILL")
  return 0
}
