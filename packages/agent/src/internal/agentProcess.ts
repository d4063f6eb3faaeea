/**
 * The process-level steps of an `AgentSession`, none of which touches the session's state: finding
 * the binary and the store, loading the SDK, waiting for a process to exit, and the errors a
 * start that failed is reported with. `AgentSession.make` wires them to its driver.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as ClaudeBinary from "@acx/environment/ClaudeBinary"
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { AgentError } from "../AgentError.js"
import { describe } from "./describe.js"

/** Where the default store lives in acx's home. */
export const storePathIn = (home: string): string => AcxHome.paths(home).agentDatabase

export const STDERR_KEPT = 4096
export const GRACEFUL_EXIT = Duration.seconds(10)

/**
 * Whether the process is still to be waited for: running, or a zombie that is this process's own
 * child (the SDK spawns Claude Code): Node reaps it and emits its `exit`, which the SDK's query
 * awaits, so returning before the reap leaves that wait behind (the chat then never ended).
 */
const stillRunning = (pid: number, pidStart: number | undefined): boolean => {
  const liveness = ProcessLiveness.check(pid, pidStart)
  return liveness._tag === "Alive" ||
    (liveness.reason === "Zombie" && ProcessLiveness.parentOf(pid) === process.pid)
}

/**
 * Waits (polling) until the process has exited; kills it after the grace period. Exited means
 * `ProcessLiveness`'s rule: another process's zombie has (no grace period waited), our own
 * child's only once Node reaped it, and a pid that another process has since (its start time is
 * not `pidStart`) is not waited for nor killed.
 */
export const awaitExit = (pid: number, pidStart: number | undefined): Effect.Effect<void> =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(GRACEFUL_EXIT)
    while (stillRunning(pid, pidStart)) {
      if (Date.now() >= deadline) {
        yield* Effect.sync(() => process.kill(pid, "SIGKILL")).pipe(Effect.ignore)
        return
      }
      yield* Effect.sleep(Duration.millis(10))
    }
  })

export const loadSdk = Effect.tryPromise({
  try: () => import("@anthropic-ai/claude-agent-sdk"),
  catch: (cause) =>
    new AgentError({
      reason: "StartFailed",
      description: "the Claude Agent SDK is not installed: npm install @anthropic-ai/claude-agent-sdk",
      cause
    })
})

/** The store the SDK mirrors into: given, from context, or the default SQLite file. */
export const resolveStore = (options: {
  readonly sessionStore?: Sdk.SessionStore | null | undefined
  readonly acxHome?: string | undefined
}): Effect.Effect<Sdk.SessionStore | undefined, AgentError, Scope.Scope> =>
  Effect.gen(function*() {
    if (options.sessionStore === null) return undefined
    if (options.sessionStore !== undefined) return options.sessionStore
    const fromContext = yield* Effect.serviceOption(SessionStore.SessionStore)
    if (Option.isSome(fromContext)) return yield* SessionStore.toSdkWithRuntime(fromContext.value)
    const home = options.acxHome ?? AcxHome.acxHome()
    const filename = storePathIn(home)
    // owner-only (home 0700, agent.db and its -wal/-shm 0600): the store holds the conversations
    const store = yield* Effect.try(() => {
      AcxHome.makeHome(home)
      AcxHome.preparePrivateFile(filename)
    }).pipe(
      Effect.zipRight(SqliteSessionStore.make({ filename })),
      Effect.mapError((cause) =>
        new AgentError({
          reason: "StartFailed",
          description: `cannot open the session store ${filename}: ${describe(cause)}`,
          cause
        })
      )
    )
    return yield* SessionStore.toSdkWithRuntime(store)
  })

/** The Claude Code binary: the option, else the one lookup acx uses everywhere. */
export const resolveBinary = (options: {
  readonly pathToClaudeCodeExecutable?: string | undefined
}): Effect.Effect<string, AgentError> =>
  options.pathToClaudeCodeExecutable !== undefined
    ? Effect.succeed(options.pathToClaudeCodeExecutable)
    // acx's own setting (ACX_CLAUDE_PATH) is read from this process, not from the CLI's `env`
    : ClaudeBinary.find().pipe(
      Effect.map((binary) => binary.path),
      Effect.mapError((cause) => new AgentError({ reason: "StartFailed", description: cause.message, cause }))
    )

/** A process of session `sessionId` (the one it was to resume, if any) that could not start. */
export const startFailed = (sessionId: string | undefined) => (description: string, cause?: unknown) =>
  new AgentError({
    reason: "StartFailed",
    description,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(cause === undefined ? {} : { cause })
  })

// the CLI's last stderr lines, unless the description quotes them already (the SDK's error for
// a process that exited does)
export const withStderr = (description: string, stderr: string) => {
  const tail = stderr.trim().split("\n").slice(-3).map((line) => line.trim()).filter((line) => line !== "")
  return tail.length === 0 || tail.every((line) => description.includes(line))
    ? description
    : `${description} (stderr: ${tail.join(" | ")})`
}
