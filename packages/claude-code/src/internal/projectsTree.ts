/**
 * The config directory a `ClaudeProjects` service works in, and the checks every operation
 * makes before it touches a path: ids validated, every resolved path inside
 * `<configDir>/projects`, file-system failures reported as `ClaudeProjectsError`s.
 */
import { isUuid } from "@acx/schema/SessionId"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { ClaudeProjectsError } from "../ClaudeProjectsError.js"
import type { SkipReason } from "../ConfigTree.js"
import type * as TranscriptReader from "../TranscriptReader.js"
import { isProjectKey, isSafeSegment } from "./paths.js"
import { errorWords } from "./regularFile.js"

/** Why a listing leaves a path out (`ClaudeProjects.SkippedPath`'s reasons). */
export type { SkipReason } from "../ConfigTree.js"

/** The directory a service works in, with what its steps need. */
export interface ProjectsTree {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly configDir: string
  readonly projectsDir: string
  readonly followSymlinks: boolean
  /** Tells the service's `onSkipped` of a path a listing left out. */
  readonly skip: (target: string, reason: SkipReason, description: string) => Effect.Effect<void>
}

/** An operation's error. */
export const fail = (
  reason: ClaudeProjectsError["reason"],
  operation: string,
  description: string,
  cause?: unknown
): ClaudeProjectsError =>
  new ClaudeProjectsError({
    reason,
    operation,
    description,
    ...(cause !== undefined ? { cause } : {})
  })

/** A transcript that could not be read, as the operation's error (a line cap is `Io`). */
export const readerError = (operation: string) => (cause: TranscriptReader.TranscriptReaderError) =>
  fail(
    cause.reason === "TooLarge" || cause.reason === "Unreadable" ? "Io" : cause.reason,
    operation,
    `${cause.reason === "NotFound" ? "not found" : cause.description}: ${cause.file}`,
    cause
  )

/**
 * A file-system failure in the user's words (`permission denied`, `symlink loop`): from the Node
 * error under an Effect platform error, whose own message names its internals
 * (`BadResource: FileSystem.stat`).
 */
export const failureWords = (cause: unknown): string =>
  errorWords(
    typeof cause === "object" && cause !== null && "cause" in cause && cause.cause !== undefined
      ? cause.cause
      : cause
  )

/** Whether a platform error is a permission denied. */
export const isPermissionDenied = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "reason" in cause && cause.reason === "PermissionDenied"

/** A file-system failure on `target`: `NotFound` when it does not exist, else `Io` with its cause in words. */
export const ioError = (operation: string, target: string) => (cause: unknown) => {
  const notFound = typeof cause === "object" && cause !== null && "reason" in cause && cause.reason === "NotFound"
  return fail(
    notFound ? "NotFound" : "Io",
    operation,
    notFound ? `not found: ${target}` : `I/O error: ${target}: ${failureWords(cause)}`,
    cause
  )
}

/** `<projectsDir>/<segments…>`, unless it would leave (or be) the projects directory. */
export const inside = (tree: ProjectsTree, operation: string, ...segments: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const { path, projectsDir } = tree
    const resolved = path.resolve(projectsDir, ...segments)
    const rel = path.relative(projectsDir, resolved)
    return rel === "" || rel.startsWith("..") || path.isAbsolute(rel)
      ? Effect.fail(fail("PathEscape", operation, `path escapes ${projectsDir}: ${segments.join("/")}`))
      : Effect.succeed(resolved)
  })

/** A project key is one safe path segment. */
export const checkProject = (operation: string, projectKey: string) =>
  isProjectKey(projectKey)
    ? Effect.void
    : Effect.fail(fail("PathEscape", operation, `invalid project key: ${JSON.stringify(projectKey)}`))

/** A session id is a UUID. */
export const checkSession = (operation: string, sessionId: string) =>
  isUuid(sessionId)
    ? Effect.void
    : Effect.fail(fail("InvalidSessionId", operation, `not a UUID: ${JSON.stringify(sessionId)}`))

/** An agent id is one safe path segment. */
export const checkAgent = (operation: string, agentId: string) =>
  isSafeSegment(agentId)
    ? Effect.void
    : Effect.fail(fail("InvalidAgentId", operation, `not a single path segment: ${JSON.stringify(agentId)}`))

/** `<projectsDir>/<projectKey>/<sessionId>.jsonl`, both checked. */
export const sessionFile = (tree: ProjectsTree, operation: string, projectKey: string, sessionId: string) =>
  checkProject(operation, projectKey).pipe(
    Effect.zipRight(checkSession(operation, sessionId)),
    Effect.zipRight(inside(tree, operation, projectKey, `${sessionId}.jsonl`))
  )

/** `<projectsDir>/<projectKey>/<sessionId>/subagents`, both checked. */
export const subagentsDir = (tree: ProjectsTree, operation: string, projectKey: string, sessionId: string) =>
  checkProject(operation, projectKey).pipe(
    Effect.zipRight(checkSession(operation, sessionId)),
    Effect.zipRight(inside(tree, operation, projectKey, sessionId, "subagents"))
  )
