/**
 * A typed view over a Claude Code config directory (`$CLAUDE_CONFIG_DIR`, default `~/.claude`):
 * projects, session transcripts (`projects/<projectKey>/<sessionId>.jsonl`), subagent
 * transcripts (`<sessionId>/subagents/[<rel>/]agent-<agentId>.jsonl` + `.meta.json`).
 *
 * Every id is validated first (session ids are UUIDs, agent ids and project keys single safe
 * segments) and every resolved path must stay inside `<configDir>/projects`. Transcripts are
 * parsed leniently: malformed or torn lines are reported in `errors`, never thrown.
 *
 * @since 0.1.0
 */
import * as Fork from "@acx/convert/Fork"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import { exceedsDepth } from "@acx/schema/JsonDepth"
import { isUuid } from "@acx/schema/SessionId"
import type * as Transcript from "@acx/schema/Transcript"
import type * as TranscriptLine from "@acx/schema/TranscriptLine"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as DirectoryLock from "./internal/directoryLock.js"
import { expandHome, isSafeSegment } from "./internal/paths.js"
import { foldTranscript, lineParser } from "./internal/transcriptFile.js"
import * as SessionIndex from "./SessionIndex.js"
import * as TranscriptReader from "./TranscriptReader.js"

// The largest `agent-<id>.meta.json` read (Claude Code writes a few hundred bytes).
const META_BYTES = 1024 * 1024

/**
 * Why an operation failed:
 * - `InvalidSessionId`: not a UUID; `InvalidAgentId`: not a single safe path segment;
 * - `PathEscape`: a project key or subpath that would leave `<configDir>/projects`;
 * - `NotFound`: the file or directory does not exist;
 * - `NotAFile`: a transcript that is not a regular file (a FIFO, a socket, a device);
 * - `Io`: the file system failed; `Parse`: a sidecar is not valid JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeProjectsError
  extends Schema.TaggedError<ClaudeProjectsError>("@acx/claude-code/ClaudeProjects/ClaudeProjectsError")(
    "ClaudeProjectsError",
    {
      reason: Schema.Literal("InvalidSessionId", "InvalidAgentId", "PathEscape", "NotFound", "NotAFile", "Io", "Parse"),
      operation: Schema.String,
      description: Schema.String,
      cause: Schema.optionalWith(Schema.Defect, { exact: true })
    }
  )
{
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `ClaudeProjects ${this.operation} failed (${this.reason}): ${this.description}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ProjectInfo {
  readonly projectKey: string
  readonly path: string
  /** How many main transcripts (`<uuid>.jsonl`) the project holds. */
  readonly sessions: number
}

/**
 * Where a main transcript is, as {@link ClaudeProjects.listSessionFiles} finds it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionFile {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
}

/**
 * A session as a listing shows it: where it is, and its metadata (`@acx/convert/SessionMetadata`:
 * title, first prompt as a listing shows it — a slash command as `/name args` —, last prompt,
 * cwd, branch, start and last times).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionInfo extends SessionMetadata.SessionMetadata {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  /** Epoch milliseconds. */
  readonly mtime: number
  /** Bytes. */
  readonly size: number
}

/**
 * A path a listing left out, and why:
 * - `Directory`: a directory named like a transcript (`<uuid>.jsonl`);
 * - `NotAFile`: not a regular file (a FIFO, a socket, a device);
 * - `Symlink`: a symbolic link (or inside a linked directory) that resolves outside the config
 *   directory, not followed without `followSymlinks`;
 * - `Unreadable`: `stat` failed (a dangling link, no permission).
 *
 * @since 0.1.0
 * @category models
 */
export interface SkippedPath {
  readonly path: string
  readonly reason: "Directory" | "NotAFile" | "Symlink" | "Unreadable"
  readonly description: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SubagentInfo {
  readonly agentId: string
  readonly file: string
  /** The parsed `agent-<agentId>.meta.json`, when present and valid. */
  readonly meta?: Record<string, unknown>
}

/**
 * A transcript read leniently: its entries in file order and the lines that are not entries.
 *
 * @since 0.1.0
 * @category models
 */
export interface TranscriptRead {
  readonly entries: Array<Transcript.TranscriptEntry>
  readonly errors: Array<TranscriptLine.TranscriptLineError>
  /** The byte offset where each of `errors`' lines starts, in the same order. */
  readonly errorOffsets: Array<number>
  /** 1-based numbers of the entries' lines that were not valid UTF-8 (read with U+FFFD in place of the bad bytes). */
  readonly invalidUtf8Lines: Array<number>
}

/**
 * What {@link ClaudeProjects.forkSession} wrote: the new session's id, file and entry count.
 *
 * @since 0.1.0
 * @category models
 */
export interface ForkResult {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  readonly entries: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeProjectsOptions {
  /** The Claude Code config directory (`~/.claude`); a leading `~` is expanded. */
  readonly configDir: string
  /**
   * Read transcripts and project directories that are symbolic links resolving outside the
   * config directory (default: they are skipped and reported to `onSkipped`).
   */
  readonly followSymlinks?: boolean | undefined
  /** Told of every path a listing leaves out (see {@link SkippedPath}); default: nothing. */
  readonly onSkipped?: ((skipped: SkippedPath) => Effect.Effect<void>) | undefined
  /**
   * Where `listSessions` caches the metadata it reads (`SessionIndex`; the CLI passes
   * `$ACX_HOME/cache`); absent: no cache.
   */
  readonly cacheDir?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeProjects {
  readonly configDir: string
  readonly projectsDir: string
  readonly listProjects: () => Effect.Effect<Array<ProjectInfo>, ClaudeProjectsError>
  /**
   * The main transcript files of one project, or of every project, without reading them: what
   * to use to find a session by id or to walk a large config directory. Directories named like
   * transcripts, other non-files and (without `followSymlinks`) links that resolve outside the
   * config directory are left out and reported to `onSkipped`; a `projectKey` whose directory
   * does not exist fails with `NotFound`.
   */
  readonly listSessionFiles: (projectKey?: string) => Effect.Effect<Array<SessionFile>, ClaudeProjectsError>
  /**
   * Sessions of one project, or of every project, with metadata read from the head and tail of
   * each transcript and cached (see `SessionIndex` for what a head and tail cannot give).
   */
  readonly listSessions: (projectKey?: string) => Effect.Effect<Array<SessionInfo>, ClaudeProjectsError>
  readonly readSession: (projectKey: string, sessionId: string) => Effect.Effect<TranscriptRead, ClaudeProjectsError>
  /** The entries, parsed incrementally over the file's bytes; malformed lines are skipped. */
  readonly streamSession: (
    projectKey: string,
    sessionId: string
  ) => Stream.Stream<Transcript.TranscriptEntry, ClaudeProjectsError>
  readonly listSubagents: (
    projectKey: string,
    sessionId: string
  ) => Effect.Effect<Array<SubagentInfo>, ClaudeProjectsError>
  /** Every subagent of the session with its transcript, from one walk of its directory. */
  readonly readSubagents: (
    projectKey: string,
    sessionId: string
  ) => Effect.Effect<Array<SubagentInfo & TranscriptRead>, ClaudeProjectsError>
  readonly readSubagent: (
    projectKey: string,
    sessionId: string,
    agentId: string
  ) => Effect.Effect<TranscriptRead, ClaudeProjectsError>
  /**
   * Appends one `\n`-terminated JSON line per entry, the batch in one write in append mode.
   * `subpath` (e.g. `subagents/agent-<id>`) targets `<sessionId>/<subpath>.jsonl`.
   */
  readonly appendEntries: (
    projectKey: string,
    sessionId: string,
    entries: ReadonlyArray<unknown>,
    subpath?: string
  ) => Effect.Effect<void, ClaudeProjectsError>
  /**
   * Forks a session into a new one in the same project (see `@acx/convert/Fork`): the main
   * conversation up to `upToUuid` (all of it when absent) copied with fresh uuids and a remapped
   * parent chain, then a `custom-title` entry. Fails with `NotFound` when there is nothing to fork
   * (no conversation entry, or `upToUuid` is not one of the main conversation's entries).
   */
  readonly forkSession: (
    projectKey: string,
    sessionId: string,
    options?: { readonly upToUuid?: string | undefined; readonly title?: string | undefined }
  ) => Effect.Effect<ForkResult, ClaudeProjectsError>
  /** Deletes the main transcript and its `<sessionId>/` directory (missing ones are fine). */
  readonly deleteSession: (projectKey: string, sessionId: string) => Effect.Effect<void, ClaudeProjectsError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const ClaudeProjects: Context.Tag<ClaudeProjects, ClaudeProjects> = Context.GenericTag<ClaudeProjects>(
  "@acx/claude-code/ClaudeProjects"
)

/**
 * Whether `value` is a valid agent id: a single path segment, non-empty, without `/` or `\`,
 * not only dots or spaces.
 *
 * @since 0.1.0
 * @category validation
 */
export const isAgentId = (value: unknown): value is string => isSafeSegment(value)

/**
 * A session's listing metadata from all of its entries (`@acx/convert/SessionMetadata`): title
 * (`custom-title`, else `ai-title`, else `summary`; the last of each wins), first user prompt,
 * last prompt (`last-prompt`, else the last user prompt), the first `cwd` / `gitBranch`, the
 * first and last `timestamp`.
 *
 * @since 0.1.0
 * @category metadata
 */
export const sessionMetadata = (entries: ReadonlyArray<unknown>): SessionMetadata.SessionMetadata =>
  SessionMetadata.sessionMetadata(entries)

/**
 * Builds the service over `FileSystem` and `Path`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: ClaudeProjectsOptions
) => Effect.Effect<ClaudeProjects, never, FileSystem.FileSystem | Path.Path> = Effect.fnUntraced(
  function*(options: ClaudeProjectsOptions) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const configDir = path.resolve(expandHome(options.configDir))
    const projectsDir = path.join(configDir, "projects")

    const fail = (reason: ClaudeProjectsError["reason"], operation: string, description: string, cause?: unknown) =>
      new ClaudeProjectsError({
        reason,
        operation,
        description,
        ...(cause !== undefined ? { cause } : {})
      })

    const readerError = (operation: string) => (cause: TranscriptReader.TranscriptReaderError) =>
      fail(
        cause.reason === "TooLarge" ? "Io" : cause.reason,
        operation,
        `${cause.reason === "NotFound" ? "not found" : cause.description}: ${cause.file}`,
        cause
      )

    const ioError = (operation: string, target: string) => (cause: unknown) => {
      const notFound = typeof cause === "object" && cause !== null && "reason" in cause && cause.reason === "NotFound"
      return fail(notFound ? "NotFound" : "Io", operation, `${notFound ? "not found" : "I/O error"}: ${target}`, cause)
    }

    const inside = (operation: string, ...segments: ReadonlyArray<string>) =>
      Effect.suspend(() => {
        const resolved = path.resolve(projectsDir, ...segments)
        const rel = path.relative(projectsDir, resolved)
        return rel === "" || rel.startsWith("..") || path.isAbsolute(rel)
          ? Effect.fail(fail("PathEscape", operation, `path escapes ${projectsDir}: ${segments.join("/")}`))
          : Effect.succeed(resolved)
      })

    const checkProject = (operation: string, projectKey: string) =>
      isSafeSegment(projectKey) && !projectKey.includes("..")
        ? Effect.void
        : Effect.fail(fail("PathEscape", operation, `invalid project key: ${JSON.stringify(projectKey)}`))

    const checkSession = (operation: string, sessionId: string) =>
      isUuid(sessionId)
        ? Effect.void
        : Effect.fail(fail("InvalidSessionId", operation, `not a UUID: ${JSON.stringify(sessionId)}`))

    const checkAgent = (operation: string, agentId: string) =>
      isAgentId(agentId)
        ? Effect.void
        : Effect.fail(fail("InvalidAgentId", operation, `not a single path segment: ${JSON.stringify(agentId)}`))

    const sessionFile = (operation: string, projectKey: string, sessionId: string) =>
      checkProject(operation, projectKey).pipe(
        Effect.zipRight(checkSession(operation, sessionId)),
        Effect.zipRight(inside(operation, projectKey, `${sessionId}.jsonl`))
      )

    // Read by TranscriptReader: regular files only, in chunks (never as one string: V8 strings stop
    // at about 512 MB), lines capped; a line that is not an entry is reported, never thrown.
    const readTranscript = (operation: string, file: string) => {
      const read: TranscriptRead = { entries: [], errors: [], errorOffsets: [], invalidUtf8Lines: [] }
      return foldTranscript(file, {
        onEntry: (entry) => read.entries.push(entry),
        onError: (error, offset) => {
          read.errors.push(error)
          read.errorOffsets.push(offset)
        },
        onInvalidUtf8: (line) => read.invalidUtf8Lines.push(line)
      }).pipe(Effect.as(read), Effect.mapError(readerError(operation)))
    }

    const followSymlinks = options.followSymlinks === true
    const onSkipped = options.onSkipped ?? (() => Effect.void)
    const skip = (target: string, reason: SkippedPath["reason"], description: string) =>
      onSkipped({ path: target, reason, description })
    const index = yield* SessionIndex.make({ projectsDir, cacheDir: options.cacheDir })
    const realConfigDir = yield* Effect.cached(fs.realPath(configDir).pipe(Effect.orElseSucceed(() => configDir)))

    const listDir = (operation: string, dir: string, mustExist = false) =>
      fs.readDirectory(dir).pipe(
        Effect.catchIf(
          (error) => !mustExist && error._tag === "SystemError" && error.reason === "NotFound",
          () => Effect.succeed<Array<string>>([])
        ),
        Effect.mapError(ioError(operation, dir)),
        Effect.map((names) => names.slice().sort())
      )

    // Whether `target` may be read: not a symbolic link resolving outside the config directory
    // (unless links are followed). Only a link pays for the resolution.
    const linkAllowed = (target: string) =>
      followSymlinks ? Effect.succeed(true) : fs.readLink(target).pipe(
        Effect.matchEffect({
          onFailure: () => Effect.succeed(true),
          onSuccess: () =>
            Effect.gen(function*() {
              const root = yield* realConfigDir
              const real = yield* fs.realPath(target).pipe(Effect.option)
              if (Option.isNone(real)) return true
              const rel = path.relative(root, real.value)
              if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return true
              yield* skip(
                target,
                "Symlink",
                `a symbolic link to ${real.value}, outside the config directory ${configDir}`
              )
              return false
            })
        })
      )

    const isDirectory = (target: string) =>
      fs.stat(target).pipe(
        Effect.map((info) => info.type === "Directory"),
        Effect.orElseSucceed(() => false)
      )

    interface Listed extends SessionFile {
      readonly size: number
      readonly mtime: number
    }

    // A `<uuid>.jsonl` entry that is a readable regular file, with its size and mtime.
    const checkTranscript = (projectKey: string, sessionId: string) =>
      Effect.gen(function*() {
        const file = path.join(projectsDir, projectKey, `${sessionId}.jsonl`)
        const stat = yield* Effect.either(fs.stat(file))
        if (stat._tag === "Left") {
          yield* skip(file, "Unreadable", `cannot be read: ${stat.left.message}`)
          return Option.none<Listed>()
        }
        const info = stat.right
        if (info.type === "Directory") {
          yield* skip(file, "Directory", "a directory, not a transcript")
          return Option.none<Listed>()
        }
        if (info.type !== "File") {
          yield* skip(file, "NotAFile", `not a regular file (${info.type})`)
          return Option.none<Listed>()
        }
        if (!(yield* linkAllowed(file))) return Option.none<Listed>()
        return Option.some<Listed>({
          projectKey,
          sessionId,
          file,
          mtime: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() }),
          size: Number(info.size)
        })
      })

    const sessionsIn = (operation: string, projectKey: string, mustExist = false) =>
      listDir(operation, path.join(projectsDir, projectKey), mustExist).pipe(
        Effect.flatMap((names) =>
          Effect.forEach(
            names.filter((name) => name.endsWith(".jsonl") && isUuid(name.slice(0, -6))),
            (name) => checkTranscript(projectKey, name.slice(0, -6)),
            { concurrency: 16 }
          )
        ),
        Effect.map((found) => found.flatMap((listed) => Option.isSome(listed) ? [listed.value] : []))
      )

    const projectKeys = (operation: string) =>
      listDir(operation, projectsDir).pipe(
        Effect.flatMap((names) =>
          Effect.filter(
            names.filter((name) => isSafeSegment(name) && !name.includes("..")),
            (name) => {
              const dir = path.join(projectsDir, name)
              return isDirectory(dir).pipe(Effect.flatMap((isDir) => isDir ? linkAllowed(dir) : Effect.succeed(false)))
            }
          )
        )
      )

    // The sessions of one project (its directory must exist) or of every project.
    const listed = (operation: string, projectKey: string | undefined) =>
      Effect.gen(function*() {
        if (projectKey === undefined) {
          const keys = yield* projectKeys(operation)
          return (yield* Effect.forEach(keys, (key) => sessionsIn(operation, key))).flat()
        }
        yield* checkProject(operation, projectKey)
        const dir = path.join(projectsDir, projectKey)
        if (!(yield* isDirectory(dir))) {
          return yield* Effect.fail(fail("NotFound", operation, `no project ${projectKey} in ${projectsDir}`))
        }
        if (!(yield* linkAllowed(dir))) return []
        return yield* sessionsIn(operation, projectKey, true)
      })

    const listProjects = Effect.fn("ClaudeProjects.listProjects")(function*() {
      const keys = yield* projectKeys("listProjects")
      return yield* Effect.forEach(keys, (projectKey) =>
        sessionsIn("listProjects", projectKey).pipe(
          Effect.map((ids): ProjectInfo => ({
            projectKey,
            path: path.join(projectsDir, projectKey),
            sessions: ids.length
          }))
        ))
    })

    const listSessionFiles = Effect.fn("ClaudeProjects.listSessionFiles")(function*(projectKey?: string) {
      const found = yield* listed("listSessionFiles", projectKey)
      return found.map(({ file, projectKey, sessionId }): SessionFile => ({ projectKey, sessionId, file }))
    })

    const listSessions = Effect.fn("ClaudeProjects.listSessions")(function*(projectKey?: string) {
      const found = yield* listed("listSessions", projectKey)
      const under = projectKey === undefined ? undefined : path.join(projectsDir, projectKey)
      const metadata = yield* index.metadata(found, { under }).pipe(
        Effect.mapError((error) => fail("Io", "listSessions", `I/O error: ${error.file}`, error.cause))
      )
      return found.map((session, i): SessionInfo => ({ ...session, ...metadata[i] }))
    })

    const readSession = Effect.fn("ClaudeProjects.readSession")(function*(projectKey: string, sessionId: string) {
      const file = yield* sessionFile("readSession", projectKey, sessionId)
      return yield* readTranscript("readSession", file)
    })

    const streamSession = (projectKey: string, sessionId: string) =>
      Stream.unwrap(
        sessionFile("streamSession", projectKey, sessionId).pipe(
          Effect.map((file) => {
            let entries: Array<Transcript.TranscriptEntry> = []
            const take = lineParser({ onEntry: (entry) => entries.push(entry), onError: () => {} })
            return TranscriptReader.readFile(file).pipe(
              Stream.mapError(readerError("streamSession")),
              Stream.mapConcat((batch) => {
                for (const line of batch.lines) take(line, false)
                if (batch.rest !== undefined) take(batch.rest, true)
                const out = entries
                entries = []
                return out
              })
            )
          })
        )
      )

    const subagentsDir = (operation: string, projectKey: string, sessionId: string) =>
      checkProject(operation, projectKey).pipe(
        Effect.zipRight(checkSession(operation, sessionId)),
        Effect.zipRight(inside(operation, projectKey, sessionId, "subagents"))
      )

    // What a walk meets: a directory to descend into, a regular file, or nothing (skipped).
    const entryKind = (target: string) =>
      Effect.gen(function*() {
        if (!(yield* linkAllowed(target))) return "skip" as const
        const stat = yield* Effect.either(fs.stat(target))
        if (stat._tag === "Left") {
          yield* skip(target, "Unreadable", `cannot be read: ${stat.left.message}`)
          return "skip" as const
        }
        if (stat.right.type === "Directory") return "directory" as const
        if (stat.right.type === "File") return "file" as const
        // a FIFO, socket or device is never opened: reading one would wait for a writer forever
        if (target.endsWith(".jsonl")) yield* skip(target, "NotAFile", `not a regular file (${stat.right.type})`)
        return "skip" as const
      })

    // The regular files under `dir`; a directory met again through a link loop is walked once.
    const walkFiles = (dir: string, seen = new Set<string>()): Effect.Effect<Array<string>, ClaudeProjectsError> =>
      Effect.gen(function*() {
        const real = yield* fs.realPath(dir).pipe(Effect.orElseSucceed(() => dir))
        if (seen.has(real)) return []
        seen.add(real)
        const names = yield* listDir("listSubagents", dir)
        const lists = yield* Effect.forEach(names, (name) => {
          const full = path.join(dir, name)
          return Effect.flatMap(
            entryKind(full),
            (kind) => kind === "directory" ? walkFiles(full, seen) : Effect.succeed(kind === "file" ? [full] : [])
          )
        })
        return lists.flat()
      })

    // A sidecar read like a transcript: a regular file only (a FIFO is never waited on), at most
    // META_BYTES, not nested deeper than a line may be; anything else is no metadata.
    const readMeta = (file: string) =>
      TranscriptReader.readText(file, META_BYTES).pipe(
        Effect.option,
        Effect.map(Option.flatMap((text) => {
          if (exceedsDepth(text)) return Option.none()
          try {
            const value: unknown = JSON.parse(text)
            return typeof value === "object" && value !== null && !Array.isArray(value)
              ? Option.some(value as Record<string, unknown>)
              : Option.none()
          } catch {
            return Option.none()
          }
        }))
      )

    const listSubagents = Effect.fn("ClaudeProjects.listSubagents")(function*(projectKey: string, sessionId: string) {
      const dir = yield* subagentsDir("listSubagents", projectKey, sessionId)
      const files = yield* walkFiles(dir)
      const agents = files.flatMap((file) => {
        const base = path.basename(file)
        const match = /^agent-(.+)\.jsonl$/.exec(base)
        return match !== null && isAgentId(match[1]) ? [{ agentId: match[1], file }] : []
      })
      return yield* Effect.forEach(
        agents,
        ({ agentId, file }) =>
          readMeta(file.slice(0, -".jsonl".length) + ".meta.json").pipe(
            Effect.map((meta): SubagentInfo =>
              Option.isSome(meta) ? { agentId, file, meta: meta.value } : { agentId, file }
            )
          )
      )
    })

    const readSubagents = Effect.fn("ClaudeProjects.readSubagents")(function*(projectKey: string, sessionId: string) {
      const agents = yield* listSubagents(projectKey, sessionId)
      return yield* Effect.forEach(
        agents,
        (agent) => Effect.map(readTranscript("readSubagents", agent.file), (read) => ({ ...agent, ...read }))
      )
    })

    const readSubagent = Effect.fn("ClaudeProjects.readSubagent")(
      function*(projectKey: string, sessionId: string, agentId: string) {
        yield* checkAgent("readSubagent", agentId)
        const agents = yield* listSubagents(projectKey, sessionId)
        const found = agents.find((agent) => agent.agentId === agentId)
        if (found === undefined) {
          return yield* Effect.fail(fail("NotFound", "readSubagent", `no subagent ${agentId} in session ${sessionId}`))
        }
        return yield* readTranscript("readSubagent", found.file)
      }
    )

    // The writers' lock ClaudeProjectsSessionStore takes on the same directory: an append here
    // never interleaves with a store's read-check-append of the same file.
    const directoryLock = yield* DirectoryLock.make({ dir: projectsDir, timeout: "10 seconds" })

    const appendEntries = Effect.fn("ClaudeProjects.appendEntries")(
      function*(projectKey: string, sessionId: string, entries: ReadonlyArray<unknown>, subpath?: string) {
        const operation = "appendEntries"
        yield* checkProject(operation, projectKey)
        yield* checkSession(operation, sessionId)
        let file: string
        if (subpath === undefined) {
          file = yield* inside(operation, projectKey, `${sessionId}.jsonl`)
        } else {
          const segments = subpath.split("/")
          if (path.isAbsolute(subpath) || !segments.every((segment) => isSafeSegment(segment))) {
            return yield* Effect.fail(fail("PathEscape", operation, `invalid subpath: ${JSON.stringify(subpath)}`))
          }
          file = yield* inside(operation, projectKey, sessionId, `${subpath}.jsonl`)
        }
        if (entries.length === 0) return
        let text = ""
        for (const entry of entries) {
          const line = JSON.stringify(entry)
          if (typeof line !== "string") {
            return yield* Effect.fail(fail("Parse", operation, "an entry is not JSON-serialisable"))
          }
          text += line + "\n"
        }
        yield* directoryLock.withLock(Effect.gen(function*() {
          yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
            Effect.mapError(ioError(operation, path.dirname(file)))
          )
          yield* fs.writeFileString(file, text, { flag: "a" }).pipe(Effect.mapError(ioError(operation, file)))
        })).pipe(
          Effect.catchTag("DirectoryLockError", (error) => Effect.fail(fail("Io", operation, error.description, error)))
        )
      }
    )

    const forkSession = Effect.fn("ClaudeProjects.forkSession")(function*(
      projectKey: string,
      sessionId: string,
      options: { readonly upToUuid?: string | undefined; readonly title?: string | undefined } = {}
    ) {
      const { entries } = yield* readSession(projectKey, sessionId)
      const newSessionId = randomUUID()
      const forked = Fork.forkTranscript(entries, {
        newSessionId,
        sourceSessionId: sessionId,
        now: new Date().toISOString(),
        uuid: randomUUID,
        ...(options.upToUuid !== undefined ? { upToUuid: options.upToUuid } : {}),
        ...(options.title !== undefined ? { title: options.title } : {})
      })
      if (forked.length === 0) {
        const what = options.upToUuid === undefined
          ? `session ${sessionId} has no conversation entry to fork`
          : `no main conversation entry ${JSON.stringify(options.upToUuid)} in session ${sessionId}`
        return yield* Effect.fail(fail("NotFound", "forkSession", what))
      }
      yield* appendEntries(projectKey, newSessionId, forked)
      const file = yield* inside("forkSession", projectKey, `${newSessionId}.jsonl`)
      return { projectKey, sessionId: newSessionId, file, entries: forked.length } satisfies ForkResult
    })

    const deleteSession = Effect.fn("ClaudeProjects.deleteSession")(function*(projectKey: string, sessionId: string) {
      const file = yield* sessionFile("deleteSession", projectKey, sessionId)
      const dir = yield* inside("deleteSession", projectKey, sessionId)
      yield* fs.remove(file, { force: true }).pipe(Effect.mapError(ioError("deleteSession", file)))
      yield* fs.remove(dir, { recursive: true, force: true }).pipe(Effect.mapError(ioError("deleteSession", dir)))
    })

    return ClaudeProjects.of({
      configDir,
      projectsDir,
      listProjects,
      listSessionFiles,
      listSessions,
      readSession,
      streamSession,
      listSubagents,
      readSubagents,
      readSubagent,
      appendEntries,
      forkSession,
      deleteSession
    })
  }
)

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ClaudeProjectsOptions
): Layer.Layer<ClaudeProjects, never, FileSystem.FileSystem | Path.Path> => Layer.effect(ClaudeProjects, make(options))

/**
 * The options from the environment: `CLAUDE_CONFIG_DIR`, default `~/.claude`.
 *
 * @since 0.1.0
 * @category configuration
 */
export const config: Config.Config<ClaudeProjectsOptions> = Config.all({
  configDir: Config.string("CLAUDE_CONFIG_DIR").pipe(Config.withDefault("~/.claude"))
})

/**
 * The service as a layer, its options read from `Config`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config.Wrap<ClaudeProjectsOptions> = config
): Layer.Layer<ClaudeProjects, ConfigError.ConfigError, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(ClaudeProjects, Effect.flatMap(Config.unwrap(options), make))

/**
 * {@link layer} on Node's file system and path.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (options: ClaudeProjectsOptions): Layer.Layer<ClaudeProjects> =>
  layer(options).pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))
