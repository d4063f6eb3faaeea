/**
 * Spawns the BUILT `acx` binary (`node packages/cli/bin/acx.mjs`, bundled by the globalSetup)
 * asynchronously — an in-process Acontext emulator must keep answering while it runs — and
 * collects its exit code and output.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, expect } from "vitest"
import { removeTreeWhenIdle } from "./processes.js"

export const BIN = fileURLToPath(new URL("../../bin/acx.mjs", import.meta.url))

/** Vitest timeout for a test that spawns a few processes. */
export const TEST_TIMEOUT_MS = 120_000

/**
 * Every spawned process is killed after this long (the test then fails on the exit code): a guard
 * against a hang, as long as the test's own bound, never a judge of speed. 60 s killed a real run
 * on a loaded CI machine (load ≈ 35) that would have passed.
 */
export const SPAWN_TIMEOUT_MS = TEST_TIMEOUT_MS

export interface AcxResult {
  /** The exit code; `null` when the process was killed (timeout). */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The non-empty stderr lines. */
  readonly stderrLines: ReadonlyArray<string>
}

export interface AcxOptions {
  /** Extra environment (`undefined` removes a variable). */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /** Written to stdin, which is then closed (default: no stdin). */
  readonly input?: string
  /** Killed after this long (default {@link SPAWN_TIMEOUT_MS}): a test of a hang that must not be. */
  readonly timeoutMs?: number
  /**
   * Run as this user and group (no supplementary groups): what root's tests need to meet a file
   * its user may not read (see `./unprivileged.ts`).
   */
  readonly user?: { readonly uid: number; readonly gid: number }
}

// Variables a developer's shell may have set that would change what the CLI does.
const SCRUBBED = ["ACONTEXT_API_KEY", "ACONTEXT_BASE_URL", "CLAUDE_CONFIG_DIR"]

/** `ACX_HOME` of the spawned CLI when a test sets none: one scratch directory per test file. */
export const TEST_ACX_HOME = fs.mkdtempSync(path.join(os.tmpdir(), "acx-test-home-"))
// registered while the importing test file is collected: its suite removes the home when it ends
// a worker or a sync a command started detached may still be writing there
afterAll(() => removeTreeWhenIdle(TEST_ACX_HOME), 70_000)

export const acx = (args: ReadonlyArray<string>, options: AcxOptions = {}): Promise<AcxResult> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !SCRUBBED.includes(key) && key !== "FORCE_COLOR") env[key] = value
  }
  // acx's caches go to a scratch home unless a test names one, or a HOME whose ~/.acx it means
  // (never the developer's ~/.acx)
  const given = options.env ?? {}
  if (!("ACX_HOME" in given) && !("HOME" in given)) env["ACX_HOME"] = TEST_ACX_HOME
  // plain output unless a test asks otherwise (`NO_COLOR: undefined`, `FORCE_COLOR`)
  env["NO_COLOR"] = "1"
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      cwd: options.cwd ?? process.cwd(),
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? SPAWN_TIMEOUT_MS,
      killSignal: "SIGKILL",
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid })
    })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr!.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    if (options.input !== undefined) child.stdin?.end(options.input)
    child.on("close", (code, signal) => {
      const stdout = Buffer.concat(out).toString("utf8")
      const stderr = Buffer.concat(err).toString("utf8")
      resolve({
        code,
        signal,
        stdout,
        stderr,
        stderrLines: stderr.split("\n").filter((line) => line.trim() !== "")
      })
    })
  })
}

/** A failure of one `acx: …` line on stderr containing `text`, nothing on stdout, exit `code`. */
export const expectOneLine = (result: AcxResult, code: number, text: string): void => {
  expect(result.code, result.stderr).toBe(code)
  expect(result.stdout).toBe("")
  expect(result.stderrLines).toHaveLength(1)
  expect(result.stderrLines[0]).toMatch(/^acx: /)
  expect(result.stderrLines[0]).toContain(text)
}

/** Help output without ANSI styling. */
export const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "")

/** Parses `--json` output, with the output in the failure message when it is not JSON. */
export const parseJson = <A = any>(result: AcxResult): A => {
  try {
    return JSON.parse(result.stdout) as A
  } catch {
    throw new Error(
      `not JSON (exit ${result.code}): ${result.stdout.slice(0, 500)}\nstderr: ${result.stderr.slice(0, 500)}`
    )
  }
}

/** A fresh temp directory under the OS temp dir. */
export const tempDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `acx-cli-${prefix}-`))

export const removeDir = (dir: string): void => {
  fs.rmSync(dir, { recursive: true, force: true })
}

/** Every path under `dir` (relative, sorted), for before/after comparisons. */
export const listTree = (dir: string): Array<string> =>
  (fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) as Array<string>).sort()

/** The parseable JSON objects of a JSON Lines file (what a reader keeps). */
export const parseableLines = (file: string): Array<Record<string, unknown>> =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    if (line.trim() === "") return []
    try {
      const value = JSON.parse(line) as unknown
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? [value as Record<string, unknown>]
        : []
    } catch {
      return []
    }
  })

/**
 * Runs `command` with `args`, `input` on its stdin, and collects its exit code and output. A
 * process that stops reading its stdin early (a hook over its cap) leaves the rest unwritten.
 */
export const runWithInput = (
  command: string,
  args: ReadonlyArray<string>,
  input: string,
  env: Readonly<Record<string, string>>
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, [...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.on("error", () => {})
    child.stdin.end(input)
  })
