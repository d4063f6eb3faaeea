/**
 * The walks of a `ClaudeProjects` service: its project directories, the main transcripts of
 * each (with their size and mtime), and the subagent transcripts under a session. A path that is
 * not what it should be (a directory named like a transcript, a FIFO, a link leading out of the
 * config directory, a file `stat` cannot read) is left out and told to the service's `skip`.
 */
import { isUuid } from "@acx/schema/SessionId"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ClaudeProjectsError } from "../ClaudeProjectsError.js"
import { META_BYTES, metaOfText } from "../PlainListing.js"
import type * as SessionIndex from "../SessionIndex.js"
import * as TranscriptReader from "../TranscriptReader.js"
import { isSafeSegment } from "./paths.js"
import { checkProject, fail, failureWords, ioError, isPermissionDenied, type ProjectsTree } from "./projectsTree.js"

/** A main transcript as listed: where it is, with what `stat` said. */
export interface ListedTranscript extends SessionIndex.IndexedFile {
  readonly projectKey: string
  readonly sessionId: string
}

/** A subagent transcript, with its parsed `agent-<agentId>.meta.json` when valid. */
export interface ListedSubagent {
  readonly agentId: string
  readonly file: string
  readonly meta?: Record<string, unknown>
}

/**
 * A directory's names, sorted; one that does not exist is empty unless it must exist, and one the
 * user may not read is skipped (told to `skip`: it never stops the rest) unless it must exist.
 */
export const listDir = (tree: ProjectsTree, operation: string, dir: string, mustExist = false) =>
  tree.fs.readDirectory(dir).pipe(
    Effect.catchIf(
      (error) => !mustExist && error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.succeed<Array<string>>([])
    ),
    Effect.catchIf(
      (error) => !mustExist && isPermissionDenied(error),
      (error) => Effect.as(tree.skip(dir, "Unreadable", failureWords(error)), [] as Array<string>)
    ),
    Effect.mapError(ioError(operation, dir)),
    Effect.map((names) => names.slice().sort())
  )

// Whether `target` may be read: not a symbolic link resolving outside the config directory
// (unless links are followed). Only a link pays for the resolution.
const linkAllowed = (tree: ProjectsTree, target: string): Effect.Effect<boolean> =>
  tree.followSymlinks ? Effect.succeed(true) : tree.fs.readLink(target).pipe(
    Effect.matchEffect({
      onFailure: () => Effect.succeed(true),
      onSuccess: () =>
        Effect.gen(function*() {
          const root = yield* tree.realConfigDir
          const real = yield* tree.fs.realPath(target).pipe(Effect.option)
          if (Option.isNone(real)) return true
          const rel = tree.path.relative(root, real.value)
          if (rel !== "" && !rel.startsWith("..") && !tree.path.isAbsolute(rel)) return true
          yield* tree.skip(
            target,
            "Symlink",
            `a symbolic link to ${real.value}, outside the config directory ${tree.configDir}`
          )
          return false
        })
    })
  )

const isDirectory = (tree: ProjectsTree, target: string) =>
  tree.fs.stat(target).pipe(
    Effect.map((info) => info.type === "Directory"),
    Effect.orElseSucceed(() => false)
  )

// A `<uuid>.jsonl` entry that is a readable regular file, with its size and mtime.
const checkTranscript = (tree: ProjectsTree, projectKey: string, sessionId: string) =>
  Effect.gen(function*() {
    const file = tree.path.join(tree.projectsDir, projectKey, `${sessionId}.jsonl`)
    const stat = yield* Effect.either(tree.fs.stat(file))
    if (stat._tag === "Left") {
      yield* tree.skip(file, "Unreadable", `cannot be read: ${failureWords(stat.left)}`)
      return Option.none<ListedTranscript>()
    }
    const info = stat.right
    if (info.type === "Directory") {
      yield* tree.skip(file, "Directory", "a directory, not a transcript")
      return Option.none<ListedTranscript>()
    }
    if (info.type !== "File") {
      yield* tree.skip(file, "NotAFile", `not a regular file (${info.type})`)
      return Option.none<ListedTranscript>()
    }
    if (!(yield* linkAllowed(tree, file))) return Option.none<ListedTranscript>()
    return Option.some<ListedTranscript>({
      projectKey,
      sessionId,
      file,
      mtime: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() }),
      size: Number(info.size)
    })
  })

/** The main transcripts of one project directory. */
export const sessionsIn = (tree: ProjectsTree, operation: string, projectKey: string, mustExist = false) =>
  listDir(tree, operation, tree.path.join(tree.projectsDir, projectKey), mustExist).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names.filter((name) => name.endsWith(".jsonl") && isUuid(name.slice(0, -6))),
        (name) => checkTranscript(tree, projectKey, name.slice(0, -6)),
        { concurrency: 16 }
      )
    ),
    Effect.map((found) => found.flatMap((listed) => Option.isSome(listed) ? [listed.value] : []))
  )

/** The project directories: safe names of directories (or links allowed to them). */
export const projectKeys = (tree: ProjectsTree, operation: string) =>
  listDir(tree, operation, tree.projectsDir).pipe(
    Effect.flatMap((names) =>
      Effect.filter(
        names.filter((name) => isSafeSegment(name) && !name.includes("..")),
        (name) => {
          const dir = tree.path.join(tree.projectsDir, name)
          return isDirectory(tree, dir).pipe(
            Effect.flatMap((isDir) => isDir ? linkAllowed(tree, dir) : Effect.succeed(false))
          )
        }
      )
    )
  )

/** The sessions of one project (its directory must exist) or of every project. */
export const listedSessions = (
  tree: ProjectsTree,
  operation: string,
  projectKey: string | undefined
): Effect.Effect<Array<ListedTranscript>, ClaudeProjectsError> =>
  Effect.gen(function*() {
    if (projectKey === undefined) {
      const keys = yield* projectKeys(tree, operation)
      return (yield* Effect.forEach(keys, (key) => sessionsIn(tree, operation, key))).flat()
    }
    yield* checkProject(operation, projectKey)
    const dir = tree.path.join(tree.projectsDir, projectKey)
    if (!(yield* isDirectory(tree, dir))) {
      return yield* Effect.fail(fail("NotFound", operation, `no project ${projectKey} in ${tree.projectsDir}`))
    }
    if (!(yield* linkAllowed(tree, dir))) return []
    return yield* sessionsIn(tree, operation, projectKey, true)
  })

// What a walk meets: a directory to descend into, a regular file, or nothing (skipped).
const entryKind = (tree: ProjectsTree, target: string) =>
  Effect.gen(function*() {
    if (!(yield* linkAllowed(tree, target))) return "skip" as const
    const stat = yield* Effect.either(tree.fs.stat(target))
    if (stat._tag === "Left") {
      yield* tree.skip(target, "Unreadable", `cannot be read: ${failureWords(stat.left)}`)
      return "skip" as const
    }
    if (stat.right.type === "Directory") return "directory" as const
    if (stat.right.type === "File") return "file" as const
    // a FIFO, socket or device is never opened: reading one would wait for a writer forever
    // named like what a listing reads (a transcript, a subagent's metadata): said
    if (target.endsWith(".jsonl") || target.endsWith(".meta.json")) {
      yield* tree.skip(target, "NotAFile", `not a regular file (${stat.right.type})`)
    }
    return "skip" as const
  })

// The regular files under `dir`; a directory met again through a link loop is walked once.
const walkFiles = (
  tree: ProjectsTree,
  dir: string,
  seen = new Set<string>()
): Effect.Effect<Array<string>, ClaudeProjectsError> =>
  Effect.gen(function*() {
    // listed first: most sessions have no subagents directory, and an empty listing needs no
    // resolution (a failed `realPath` costs as much as the listing)
    const names = yield* listDir(tree, "listSubagents", dir)
    if (names.length === 0) return []
    const real = yield* tree.fs.realPath(dir).pipe(Effect.orElseSucceed(() => dir))
    if (seen.has(real)) return []
    seen.add(real)
    const lists = yield* Effect.forEach(names, (name) => {
      const full = tree.path.join(dir, name)
      return Effect.flatMap(
        entryKind(tree, full),
        (kind) => kind === "directory" ? walkFiles(tree, full, seen) : Effect.succeed(kind === "file" ? [full] : [])
      )
    })
    return lists.flat()
  })

// A sidecar read like a transcript: a regular file only (a FIFO is never waited on), at most
// META_BYTES, not nested deeper than a line may be; anything else is no metadata.
export const readMeta = (file: string) =>
  TranscriptReader.readText(file, META_BYTES).pipe(
    Effect.option,
    Effect.map(Option.flatMap((text) => Option.fromNullable(metaOfText(text))))
  )

/** The `agent-<agentId>.jsonl` files anywhere under a session's `subagents` directory, with their metadata. */
export const subagentsUnder = (
  tree: ProjectsTree,
  dir: string
): Effect.Effect<Array<ListedSubagent>, ClaudeProjectsError> =>
  Effect.gen(function*() {
    const files = yield* walkFiles(tree, dir)
    const agents = files.flatMap((file) => {
      const match = /^agent-(.+)\.jsonl$/.exec(tree.path.basename(file))
      return match !== null && isSafeSegment(match[1]) ? [{ agentId: match[1], file }] : []
    })
    return yield* Effect.forEach(
      agents,
      ({ agentId, file }) =>
        readMeta(file.slice(0, -".jsonl".length) + ".meta.json").pipe(
          Effect.map((meta): ListedSubagent =>
            Option.isSome(meta) ? { agentId, file, meta: meta.value } : { agentId, file }
          )
        )
    )
  })
