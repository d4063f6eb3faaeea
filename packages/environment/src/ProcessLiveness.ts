/**
 * The one rule for "is the process that recorded this pid still that process", wherever a pid
 * decides in acx (the memory worker's lock, the directory lock of import and sync, an agent's
 * Claude Code process). `process.kill(pid, 0)` alone cannot say: it succeeds on a zombie (a
 * process killed and not yet reaped by its parent, which without an init in a container may be
 * never) and on a pid the kernel has given to an unrelated process since.
 *
 * The rule, on Linux (where `/proc` is mounted):
 * - `/proc/<pid>/stat` missing: exited (confirmed with `kill(pid, 0)`, so a `/proc` mounted with
 *   `hidepid` that hides another user's process does not make it dead);
 * - its state `Z` (zombie) or `X` (dead): dead, whoever its parent is;
 * - its start time (field 22, clock ticks since boot) differing from the one recorded beside the
 *   pid when it was recorded ({@link startTime}): another process has the pid now, dead;
 * - else alive. A record without a start time (written before acx recorded one) is judged by
 *   the state alone: a zombie is caught, a reused pid is not (the record's own staleness bound —
 *   a heartbeat, a lock's age — still ends it).
 *
 * Without `/proc` (macOS and the BSDs) it is `kill(pid, 0)`: a zombie and a reused pid both look
 * alive there, and only the record's staleness bound ends them (documented limit; reading the
 * state there would mean spawning `ps`, too slow for a hook).
 *
 * A pid that is this process's own is alive, unless the start time recorded with it says it was
 * another process's with the same pid (a container restarted reuses low pids).
 *
 * The check is one read of a small file (about as cheap as the signal it replaces), made for the
 * hook path: no Effect, nothing loaded.
 *
 * @since 0.3.0
 */
import * as fs from "node:fs"

/**
 * What `/proc/<pid>/stat` says about a process: its state letter and its start time.
 *
 * @since 0.3.0
 * @category models
 */
export interface ProcStat {
  /** The state letter: `R`, `S`, `D`, `T`, `t`, `Z` (zombie), `X` (dead), … */
  readonly state: string
  /** Its parent's pid (field 4). */
  readonly ppid: number
  /** When it started, in clock ticks since boot (field 22). */
  readonly startTime: number
}

/**
 * Why a recorded process counts as dead: it exited (its pid is free), it is a zombie (exited,
 * not reaped), or its pid now belongs to another process.
 *
 * @since 0.3.0
 * @category models
 */
export type DeadReason = "Exited" | "Zombie" | "Reused"

/**
 * The verdict on a recorded pid.
 *
 * @since 0.3.0
 * @category models
 */
export type Liveness =
  | { readonly _tag: "Alive" }
  | { readonly _tag: "Dead"; readonly reason: DeadReason }

const ALIVE: Liveness = { _tag: "Alive" }
const dead = (reason: DeadReason): Liveness => ({ _tag: "Dead", reason })

/** The field after the comm's closing parenthesis that holds the start time: field 22 is the 20th. */
const START_TIME_INDEX = 22 - 3

/**
 * Parses the content of `/proc/<pid>/stat`. The second field (the command, in parentheses) may
 * itself hold spaces and parentheses, so the fields are read after the LAST `)`. `undefined` for
 * text that is not a stat line.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseStat = (text: string): ProcStat | undefined => {
  const close = text.lastIndexOf(")")
  if (close < 0 || text.indexOf("(") < 0 || text.indexOf("(") > close) return undefined
  const fields = text.slice(close + 1).trim().split(/\s+/)
  const state = fields[0]
  const parent = fields[1]
  const start = fields[START_TIME_INDEX]
  if (
    state === undefined || !/^[A-Za-z]$/.test(state) || start === undefined || !/^\d+$/.test(start) ||
    parent === undefined || !/^\d+$/.test(parent)
  ) {
    return undefined
  }
  const startTime = Number(start)
  const ppid = Number(parent)
  return Number.isSafeInteger(startTime) && Number.isSafeInteger(ppid) ? { state, ppid, startTime } : undefined
}

let procMounted: boolean | undefined

/** Whether `/proc` describes processes here (Linux); read once. */
const hasProc = (): boolean => (procMounted ??= fs.existsSync("/proc/self/stat"))

// A stat line is about 300 bytes (the command at most 64): one read into a buffer kept for it.
// `readFileSync` costs several times more here: /proc files say they are empty, so it stats the
// file and then reads in chunks.
const statBuffer = Buffer.allocUnsafe(4096)

/** The stat of `pid`: `undefined` when it has none (exited, or hidden), `null` without `/proc`. */
const readStat = (pid: number): ProcStat | undefined | null => {
  if (!hasProc()) return null
  let length: number
  try {
    const fd = fs.openSync(`/proc/${pid}/stat`, "r")
    try {
      length = fs.readSync(fd, statBuffer, 0, statBuffer.length, 0)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return undefined
  }
  return parseStat(statBuffer.toString("latin1", 0, length))
}

/** `kill(pid, 0)`: whether a process with this pid exists (one we may not signal exists too). */
const signalReaches = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const isPid = (pid: number) => Number.isSafeInteger(pid) && pid > 0

/**
 * The start time of process `pid` in clock ticks since boot, to record beside its pid:
 * `undefined` where `/proc` is absent (macOS) or the process is not there.
 *
 * @since 0.3.0
 * @category identity
 */
export const startTime = (pid: number): number | undefined => {
  if (!isPid(pid)) return undefined
  const stat = pid === process.pid ? ownStat() : readStat(pid)
  return stat?.startTime ?? undefined
}

let own: ProcStat | undefined | null | false = false

/** This process's stat, read once (its start time never changes). */
const ownStat = (): ProcStat | undefined | null => own === false ? (own = readStat(process.pid)) : own

/**
 * Whether the process that recorded `pid` (with `recordedStart`, its {@link startTime} then, when
 * the record has one) is still that process and still running. See the module doc for the rule.
 *
 * @since 0.3.0
 * @category liveness
 */
export const check = (pid: number, recordedStart?: number | null): Liveness => {
  if (!isPid(pid)) return dead("Exited")
  const recorded = recordedStart ?? undefined
  if (pid === process.pid) {
    const mine = ownStat()?.startTime
    return recorded !== undefined && mine !== undefined && recorded !== mine ? dead("Reused") : ALIVE
  }
  const stat = readStat(pid)
  // no /proc: the signal is all there is
  if (stat === null) return signalReaches(pid) ? ALIVE : dead("Exited")
  // no stat: exited, unless the signal reaches it (a /proc mounted with hidepid hides it)
  if (stat === undefined) return signalReaches(pid) ? ALIVE : dead("Exited")
  if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return dead("Zombie")
  if (recorded !== undefined && recorded !== stat.startTime) return dead("Reused")
  return ALIVE
}

/**
 * The pid of `pid`'s parent, from `/proc` (`undefined` without `/proc`, or when `pid` is gone).
 * A zombie whose parent is this process is a child Node has not reaped yet: its `exit` event is
 * still to come, so a caller that waits for that event waits for the reap, not only the exit.
 *
 * @since 0.4.0
 * @category liveness
 */
export const parentOf = (pid: number): number | undefined => {
  if (!isPid(pid)) return undefined
  return readStat(pid)?.ppid ?? undefined
}

/**
 * {@link check} as a boolean.
 *
 * @since 0.3.0
 * @category liveness
 */
export const isAlive = (pid: number, recordedStart?: number | null): boolean =>
  check(pid, recordedStart)._tag === "Alive"

/**
 * Words for a dead reason, for messages: `exited`, `zombie`, `pid reused`.
 *
 * @since 0.3.0
 * @category liveness
 */
export const describeDead = (reason: DeadReason): string =>
  reason === "Exited" ? "exited" : reason === "Zombie" ? "zombie" : "pid reused"
