/**
 * The writes of a `ClaudeProjects` service: appending entries to a transcript (under the writers'
 * lock of the projects directory) and deleting a session's files.
 */
import * as Effect from "effect/Effect"
import type { ClaudeProjectsError } from "../ClaudeProjectsError.js"
import type * as DirectoryLock from "./directoryLock.js"
import { isSafeSegment } from "./paths.js"
import { checkProject, checkSession, fail, inside, ioError, type ProjectsTree, sessionFile } from "./projectsTree.js"

// The main transcript, or `<sessionId>/<subpath>.jsonl` when `subpath` is a relative path of
// safe segments.
const appendTarget = (
  tree: ProjectsTree,
  operation: string,
  projectKey: string,
  sessionId: string,
  subpath: string | undefined
): Effect.Effect<string, ClaudeProjectsError> =>
  Effect.gen(function*() {
    yield* checkProject(operation, projectKey)
    yield* checkSession(operation, sessionId)
    if (subpath === undefined) return yield* inside(tree, operation, projectKey, `${sessionId}.jsonl`)
    const segments = subpath.split("/")
    if (tree.path.isAbsolute(subpath) || !segments.every((segment) => isSafeSegment(segment))) {
      return yield* Effect.fail(fail("PathEscape", operation, `invalid subpath: ${JSON.stringify(subpath)}`))
    }
    return yield* inside(tree, operation, projectKey, sessionId, `${subpath}.jsonl`)
  })

// One `\n`-terminated JSON line per entry; an entry JSON cannot write fails the whole batch.
const jsonLines = (operation: string, entries: ReadonlyArray<unknown>): Effect.Effect<string, ClaudeProjectsError> => {
  let text = ""
  for (const entry of entries) {
    const line = JSON.stringify(entry)
    if (typeof line !== "string") return Effect.fail(fail("Parse", operation, "an entry is not JSON-serialisable"))
    text += line + "\n"
  }
  return Effect.succeed(text)
}

/** Appends the entries as one write in append mode, holding the directory's writers' lock. */
export const appendEntries = (
  tree: ProjectsTree,
  directoryLock: DirectoryLock.DirectoryLock,
  projectKey: string,
  sessionId: string,
  entries: ReadonlyArray<unknown>,
  subpath?: string
): Effect.Effect<void, ClaudeProjectsError> =>
  Effect.gen(function*() {
    const operation = "appendEntries"
    const file = yield* appendTarget(tree, operation, projectKey, sessionId, subpath)
    if (entries.length === 0) return
    const text = yield* jsonLines(operation, entries)
    const { fs, path } = tree
    yield* directoryLock.withLock(Effect.gen(function*() {
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
        Effect.mapError(ioError(operation, path.dirname(file)))
      )
      yield* fs.writeFileString(file, text, { flag: "a" }).pipe(Effect.mapError(ioError(operation, file)))
    })).pipe(
      Effect.catchTag("DirectoryLockError", (error) => Effect.fail(fail("Io", operation, error.description, error)))
    )
  })

/** Deletes the main transcript and its `<sessionId>/` directory (missing ones are fine). */
export const deleteSession = (
  tree: ProjectsTree,
  projectKey: string,
  sessionId: string
): Effect.Effect<void, ClaudeProjectsError> =>
  Effect.gen(function*() {
    const file = yield* sessionFile(tree, "deleteSession", projectKey, sessionId)
    const dir = yield* inside(tree, "deleteSession", projectKey, sessionId)
    yield* tree.fs.remove(file, { force: true }).pipe(Effect.mapError(ioError("deleteSession", file)))
    yield* tree.fs.remove(dir, { recursive: true, force: true }).pipe(Effect.mapError(ioError("deleteSession", dir)))
  })
