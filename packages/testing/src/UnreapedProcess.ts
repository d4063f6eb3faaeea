/**
 * A process whose parent never waits for it, for tests of liveness checks: once killed, it stays
 * a zombie (state `Z`) for as long as its parent lives, as it does under a PID 1 that reaps
 * nothing (a container started without an init). `kill(pid, 0)` still reaches a zombie.
 *
 * A shell starts the command in the background, prints its pid, then `exec`s into a `sleep`
 * that never reaps it. The parent, the command and whatever the command starts share one process
 * group of their own, which {@link UnreapedProcess.stop} kills. Linux only (it reads `/proc`).
 *
 * @since 0.4.0
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"

/**
 * A started process and its never-waiting parent.
 *
 * @since 0.4.0
 * @category models
 */
export interface UnreapedProcess {
  /** The command's pid. */
  readonly pid: number
  /** The parent's pid (a `sleep`), also the process group's id. */
  readonly parent: number
  /** Kills the command with SIGKILL and resolves once it is a zombie. */
  readonly kill: () => Promise<void>
  /** The command's state letter from `/proc` (`Z` for a zombie), `undefined` once it is gone. */
  readonly state: () => string | undefined
  /** Kills the whole process group (the parent too, which lets the zombie be reaped). */
  readonly stop: () => void
}

/**
 * Options for {@link start}: the command's environment, working directory, and a file its
 * stderr is appended to (default: discarded).
 *
 * @since 0.4.0
 * @category models
 */
export interface UnreapedOptions {
  readonly env?: Record<string, string | undefined> | undefined
  readonly cwd?: string | undefined
  readonly stderrFile?: string | undefined
}

const SCRIPT = "\"$@\" 2>>\"$ACX_UNREAPED_STDERR\" </dev/null & echo $!; exec sleep 2147483647"

/** The state letter in `/proc/<pid>/status` (a file of `Name: value` lines, unlike `stat`). */
const stateOf = (pid: number): string | undefined => {
  try {
    return /^State:\s*(\S)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  } catch {
    return undefined
  }
}

const nameOf = (pid: number): string | undefined => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim()
  } catch {
    return undefined
  }
}

const until = async (what: string, check: () => boolean, timeoutMillis = 30_000) => {
  const deadline = Date.now() + timeoutMillis
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`UnreapedProcess: timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * Starts `command args…` under a parent that never waits for it; resolves once the parent has
 * become the `sleep` (before that, the shell could still reap it).
 *
 * @since 0.4.0
 * @category constructors
 */
export const start = async (
  command: string,
  args: ReadonlyArray<string>,
  options: UnreapedOptions = {}
): Promise<UnreapedProcess> => {
  const child = spawn("sh", ["-c", SCRIPT, "sh", command, ...args], {
    env: { ...(options.env ?? process.env), ACX_UNREAPED_STDERR: options.stderrFile ?? "/dev/null" },
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "ignore"]
  })
  const parent = child.pid!
  const stop = () => {
    try {
      process.kill(-parent, "SIGKILL")
    } catch {
      // gone
    }
  }
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.once("data", (data) => resolve(String(data)))
      child.once("error", reject)
    })
    const pid = Number(line.trim())
    await until("the parent to become a sleep", () => nameOf(parent) === "sleep")
    child.stdout!.destroy()
    child.unref()
    const kill = async () => {
      process.kill(pid, "SIGKILL")
      await until(`process ${pid} to be a zombie`, () => stateOf(pid) === "Z")
    }
    return { pid, parent, kill, state: () => stateOf(pid), stop }
  } catch (error) {
    stop()
    throw error
  }
}
