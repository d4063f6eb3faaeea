/**
 * One hook invocation, start to end, as a function: the event name and stdin's text in; what to
 * print on stdout (only what Claude Code should read), the warning line for stderr, and whether
 * the worker should be started, out. It never throws and never waits for the worker or the
 * network: the worst a hook does is one line on stderr and exit 0.
 *
 * When the database stays locked past the busy timeout, the input is written to the spool
 * directory instead, and the worker records it later: a locked file loses nothing. The spool
 * holds the input redacted, its `<private>` parts removed, owner-only (0600 in a 0700
 * directory): nothing reaches the disk that the database would not hold.
 *
 * Plain TypeScript with no Effect import: `acx hook …` loads this and better-sqlite3 only.
 *
 * @since 0.1.0
 */
import * as HookInput from "@acx/claude-code/HookInput"
import * as AcxHome from "@acx/environment/AcxHome"
import type Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import type { CaptureResult, MemoryHookEvent } from "./HookCapture.js"
import { capture, needsPosition, spoolable } from "./HookCapture.js"
import * as HookStore from "./internal/hookStore.js"
import { crypto } from "./internal/lazyCrypto.js"
import * as Sqlite from "./internal/sqlite.js"
import type { MemoryPaths } from "./MemoryConfig.js"
import * as MemoryConfig from "./MemoryConfig.js"
import * as MemoryContext from "./MemoryContext.js"

/**
 * Set in the observer's environment: a hook that sees it records nothing (the observer's own
 * Claude Code must never feed the memory it writes).
 *
 * @since 0.1.0
 * @category constants
 */
export const OBSERVER_ENV = "ACX_MEMORY_OBSERVER"

/**
 * @since 0.1.0
 * @category models
 */
export interface HookRunOptions {
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  /** The environment the hook runs in (default `process.env`). */
  readonly env?: { readonly [name: string]: string | undefined } | undefined
  /** Now, in epoch ms (default `Date.now()`). */
  readonly now?: number | undefined
  /** How long a write waits for a locked database before spooling (ms). */
  readonly busyTimeoutMs?: number | undefined
  /**
   * Give the project's memory with a session's first prompt (UserPromptSubmit's
   * `additionalContext`), for hosts that never run SessionStart hooks: the Agent SDK's
   * programmatic hooks do not receive SessionStart.
   */
  readonly contextOnFirstPrompt?: boolean | undefined
  /** The settings, when the caller read them already (default: read from `config.json`). */
  readonly loaded?: MemoryConfig.LoadedConfig | undefined
  /**
   * The process exits right after this call (`acx hook`): the database is left open for the exit
   * to close without SQLite's checkpoint. Anything else (the SDK's in-process hooks) closes it.
   */
  readonly exitsNext?: boolean | undefined
}

/**
 * What the invocation produced.
 *
 * @since 0.1.0
 * @category models
 */
export interface HookOutcome {
  /** The JSON line for stdout. */
  readonly stdout: string
  /** One line for stderr, or `undefined`. */
  readonly warning: string | undefined
  /** Whether events wait and no worker is alive: the caller starts one, detached. */
  readonly startWorker: boolean
  /** Whether a new event was stored (false for duplicates and skips). */
  readonly recorded: boolean
  /** The input went to the spool (the database was locked). */
  readonly spooled: boolean
}

const output = (event: MemoryHookEvent | undefined, context: string | undefined): string =>
  JSON.stringify({
    continue: true,
    suppressOutput: true,
    ...((event === "SessionStart" || event === "UserPromptSubmit") && context !== undefined && context !== ""
      ? { hookSpecificOutput: { hookEventName: event, additionalContext: context } }
      : {})
  })

const describe = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300)

// Reading a hook's stdin (the deadline, the cap, a whole object ends it) is Claude Code's hook
// contract: `@acx/claude-code/HookInput`'s, which `acx hook`, the sync hook and the statusline share.

/**
 * How long a hook waits for stdin to end before it goes on with what it has (ms).
 *
 * @since 0.1.0
 * @category constants
 */
export const STDIN_DEADLINE_MS: number = HookInput.STDIN_DEADLINE_MS

/**
 * Where a hook's input comes from (`HookInput.InputSource`).
 *
 * @since 0.1.0
 * @category reading
 */
export type InputSource = HookInput.InputSource

/**
 * What reading a hook's stdin gave (`HookInput.StdinInput`).
 *
 * @since 0.1.0
 * @category models
 */
export type StdinInput = HookInput.StdinInput

/**
 * Reads a hook's stdin without ever blocking Claude Code (`HookInput.readInput`).
 *
 * @since 0.1.0
 * @category reading
 */
export const readInput: typeof HookInput.readInput = HookInput.readInput

/**
 * The warning for a stdin over `memory.maxHookInputBytes`.
 *
 * @since 0.1.0
 * @category reading
 */
export const tooLargeWarning = (maxBytes: number): string =>
  `stdin is larger than ${maxBytes} bytes (memory.maxHookInputBytes): nothing recorded`

/**
 * The outcome of a hook that records nothing: the neutral answer and its warning line.
 *
 * @since 0.1.0
 * @category running
 */
export const nothingRecorded = (event: string, warning: string | undefined): HookOutcome => ({
  stdout: output(undefined, undefined),
  warning: warning === undefined ? undefined : `acx hook${event === "" ? "" : ` ${event}`}: ${warning}`,
  startWorker: false,
  recorded: false,
  spooled: false
})

/**
 * What a spool file holds: the event, the input as {@link spoolable} keeps it (JSON), the
 * idempotency key the hook computed from the input it received (the worker records the event
 * under it, so the event keeps its identity), and the transcript's position when the hook ran
 * (read later, the transcript has grown).
 *
 * @since 0.2.0
 * @category spool
 */
export interface Spooled {
  readonly event: string
  readonly raw: string
  readonly key?: string | undefined
  /** The transcript's size when the hook ran (a turn's position, when the call has no `prompt_id`). */
  readonly position?: number | undefined
}

/**
 * Writes a hook input to the spool directory for the worker to record: redacted and stripped of
 * `<private>` parts before any byte is written ({@link spoolable}), owner-only (the directory
 * 0700, the file 0600, whatever the umask) and atomic (written under a hidden temporary name,
 * then renamed). `input` is the parsed stdin.
 *
 * @since 0.1.0
 * @category spool
 */
export const spool = (
  dir: string,
  event: string,
  input: Record<string, unknown>,
  now: number,
  key?: string | undefined,
  position?: number | undefined
): string => {
  const spooled: Spooled = {
    event,
    raw: JSON.stringify(spoolable(input)),
    ...(key === undefined ? {} : { key }),
    ...(position === undefined ? {} : { position })
  }
  const final = path.join(dir, `${now}-${process.pid}-${crypto().randomBytes(4).toString("hex")}.json`)
  AcxHome.writePrivateFile(final, JSON.stringify(spooled))
  return final
}

/**
 * The transcript's size in bytes now (`undefined` when there is none or it cannot be read): the
 * position of a hook call without a `prompt_id` (see `HookCapture.turnOf`).
 *
 * @since 0.1.0
 * @category identity
 */
export const transcriptPosition = (input: unknown): number | undefined => {
  if (!needsPosition(input)) return undefined
  const file = (input as { transcript_path?: unknown }).transcript_path
  if (typeof file !== "string" || file === "") return undefined
  try {
    return fs.statSync(file).size
  } catch {
    return undefined
  }
}

const renderContext = (db: Database.Database, project: string, contextTokens: number): string =>
  MemoryContext.render(
    project,
    // an entry costs at least ~8 tokens: more rows than that could never fit
    HookStore.contextEntries(db, project, Math.max(20, Math.ceil(contextTokens / 8))),
    contextTokens
  )

/**
 * Runs a capture against an open database: records it, builds SessionStart's context, and says
 * whether a worker is needed. Throws what the database throws.
 */
const apply = (
  db: Database.Database,
  captured: CaptureResult & { _tag: "Capture" },
  contextTokens: number,
  now: number,
  contextOnFirstPrompt: boolean
) => {
  const { promptNumber, recorded } = HookStore.record(db, captured, now)
  const wantsContext = captured.wantsContext || (contextOnFirstPrompt && promptNumber === 1)
  const context = wantsContext ? renderContext(db, captured.project, contextTokens) : undefined
  const startWorker = HookStore.claimWorkerStart(db, now)
  return { recorded, context, startWorker }
}

/**
 * Runs one hook invocation. Never throws.
 *
 * @since 0.1.0
 * @category running
 */
export const runHook = (event: string, raw: string, options: HookRunOptions = {}): HookOutcome => {
  const env = options.env ?? process.env
  const now = options.now ?? Date.now()
  const quiet = (warning: string | undefined): HookOutcome => nothingRecorded(event, warning)
  if (env[OBSERVER_ENV] === "1") return quiet(undefined)
  const home = options.home ?? AcxHome.acxHome(env)
  const { config } = options.loaded ?? MemoryConfig.load(home)
  if (Buffer.byteLength(raw) > config.maxHookInputBytes) {
    return quiet(tooLargeWarning(config.maxHookInputBytes))
  }
  if (raw.trim() === "") return quiet("stdin is empty: nothing recorded")
  let input: unknown
  try {
    input = JSON.parse(raw)
  } catch {
    return quiet("stdin is not JSON: nothing recorded")
  }
  const position = transcriptPosition(input)
  const captured = capture(event, input, raw, config, position)
  if (captured._tag === "Skip") return quiet(captured.warning)
  const files: MemoryPaths = MemoryConfig.paths(home)
  let db: Database.Database | undefined
  try {
    AcxHome.makeHome(home)
    db = Sqlite.open(files.database, { busyTimeoutMs: options.busyTimeoutMs ?? 3_000 })
    const { context, recorded, startWorker } = apply(
      db,
      captured,
      config.contextTokens,
      now,
      options.contextOnFirstPrompt === true
    )
    return { stdout: output(captured.event, context), warning: undefined, startWorker, recorded, spooled: false }
  } catch (error) {
    if (Sqlite.isBusy(error)) {
      try {
        // capture only succeeds on a JSON object
        spool(files.spool, event, input as Record<string, unknown>, now, captured.queued?.idempotencyKey, position)
        return {
          ...quiet("the memory database is locked: the event waits in the spool for the worker"),
          startWorker: true,
          spooled: true
        }
      } catch (spoolError) {
        return quiet(`the memory database is locked and the spool is not writable (${describe(spoolError)})`)
      }
    }
    return quiet(`not recorded: ${describe(error)} (database ${files.database})`)
  } finally {
    // a process that exits next leaves the database open: the last connection's close checkpoints
    // the WAL into the file and deletes it (1–3 ms, and the next hook creates it again); the
    // commit is already in the WAL, which the worker or a later commit checkpoints
    if (options.exitsNext !== true) db?.close()
  }
}

/**
 * Records a spooled input (the worker's side of {@link spool}); returns false when the input is
 * no longer one the memory records. `key`, when the spool file has one, is the event's
 * idempotency key as the hook computed it. Throws what the database throws (the file stays for
 * later).
 *
 * @since 0.1.0
 * @category spool
 */
export const recordSpooled = (
  db: Database.Database,
  event: string,
  raw: string,
  config: MemoryConfig.MemoryConfig,
  now: number,
  key?: string | undefined,
  position?: number | undefined
): boolean => {
  let input: unknown
  try {
    input = JSON.parse(raw)
  } catch {
    return false
  }
  const captured = capture(event, input, raw, config, position)
  if (captured._tag !== "Capture") return false
  const queued = captured.queued === undefined || typeof key !== "string" || key === ""
    ? captured.queued
    : { ...captured.queued, idempotencyKey: key }
  return HookStore.record(db, { ...captured, queued }, now).recorded
}

/**
 * The context SessionStart would inject for a project now (`""` when there is nothing yet):
 * the hook's own query and rendering, for `acx memory context`. Throws what the database throws.
 *
 * @since 0.1.0
 * @category context
 */
export const contextFor = (home: string, project: string): string => {
  const { config } = MemoryConfig.load(home)
  const file = MemoryConfig.paths(home).database
  if (!fs.existsSync(file)) return ""
  const db = Sqlite.open(file)
  try {
    return renderContext(db, path.resolve(project), config.contextTokens)
  } finally {
    db.close()
  }
}

/**
 * A project's context and what `acx memory context` prints for it.
 *
 * @since 0.1.0
 * @category context
 */
export interface ContextReport {
  /** What SessionStart injects ({@link contextFor}; `""`: nothing). */
  readonly context: string
  /** What `acx memory context` prints, without the final newline: the context, or a line saying there is none yet. */
  readonly text: string
}

/**
 * A project's context and what `acx memory context` prints for it (one read). Throws what the
 * database throws.
 *
 * @since 0.1.0
 * @category context
 */
export const contextReport = (home: string, project: string): ContextReport => {
  const dir = path.resolve(project)
  const context = contextFor(home, dir)
  return { context, text: context === "" ? `(nothing remembered for ${dir} yet)` : context }
}

/**
 * Whether the memory has nothing left to do: no pending event and no live worker (a database
 * that does not exist yet is idle). For tools that must wait for the worker, never for hooks.
 *
 * @since 0.1.0
 * @category worker
 */
export const isIdle = (home: string, now: number = Date.now()): boolean => {
  const file = MemoryConfig.paths(home).database
  if (!fs.existsSync(file)) return true
  const db = Sqlite.open(file)
  try {
    return !HookStore.hasPendingWork(db) && HookStore.liveWorkerPid(db, now) === undefined
  } finally {
    db.close()
  }
}
