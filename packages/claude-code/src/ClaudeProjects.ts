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
import * as SessionMetadata from "@acx/convert/SessionMetadata"
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
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import type { ClaudeProjectsError } from "./ClaudeProjectsError.js"
import * as DirectoryLock from "./internal/directoryLock.js"
import { forkEntries, nothingToFork } from "./internal/forkEntries.js"
import { expandHome, isSafeSegment } from "./internal/paths.js"
import {
  listedSessions,
  projectKeys,
  sessionsIn,
  sessionsWithMetadata,
  subagentsUnder
} from "./internal/projectsListing.js"
import {
  checkAgent,
  fail,
  inside,
  type ProjectsTree,
  readerError,
  sessionFile,
  subagentsDir
} from "./internal/projectsTree.js"
import * as ProjectsWrite from "./internal/projectsWrite.js"
import { foldTranscript, lineParser } from "./internal/transcriptFile.js"
import * as SessionIndexCache from "./SessionIndexCache.js"
import type * as SessionInfoModel from "./SessionInfo.js"
import * as TranscriptReader from "./TranscriptReader.js"

/**
 * Why an operation failed (defined in `ClaudeProjectsError`).
 *
 * @since 0.1.0
 * @category errors
 */
export { ClaudeProjectsError } from "./ClaudeProjectsError.js"

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
 * A session as a listing shows it (`SessionInfo.ts`, where the plain readers find it too).
 *
 * @since 0.1.0
 * @category models
 */
export type SessionInfo = SessionInfoModel.SessionInfo

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
 * What {@link ClaudeProjects.forkSession} forks: up to which message, under which title, and
 * from where.
 *
 * @since 0.3.0
 * @category models
 */
export interface ForkOptions {
  /** The last main conversation entry to keep (default: the whole conversation). */
  readonly upToUuid?: string | undefined
  /** The fork's title (default: the original's + " (fork)"). */
  readonly title?: string | undefined
  /** Where the session is read (default: the service the fork is written by). */
  readonly from?: Pick<ClaudeProjects, "readSession"> | undefined
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
   * With `from`, the session is read there and the fork written here: a session a store kept
   * after Claude Code deleted its transcript, forked back into the config directory
   * (`acx fork --from`); the project is created when missing.
   */
  readonly forkSession: (
    projectKey: string,
    sessionId: string,
    options?: ForkOptions
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

// Read by TranscriptReader: regular files only, in chunks (never as one string: V8 strings stop
// at about 512 MB), lines capped; a line that is not an entry is reported, never thrown.
const readTranscript = (operation: string, file: string): Effect.Effect<TranscriptRead, ClaudeProjectsError> => {
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

// The entries of a transcript file as they are read, batch by batch; malformed lines are skipped.
const streamTranscript = (file: string): Stream.Stream<Transcript.TranscriptEntry, ClaudeProjectsError> => {
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
}

const projectsTree = (options: ClaudeProjectsOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const configDir = path.resolve(expandHome(options.configDir))
    const onSkipped = options.onSkipped ?? (() => Effect.void)
    const tree: ProjectsTree = {
      fs,
      path,
      configDir,
      projectsDir: path.join(configDir, "projects"),
      followSymlinks: options.followSymlinks === true,
      skip: (target, reason, description) => onSkipped({ path: target, reason, description })
    }
    return tree
  })

// The listings: projects, session files, sessions with their (cached) metadata.
const listings = (tree: ProjectsTree, index: SessionIndexCache.IndexOptions) => ({
  listProjects: Effect.fn("ClaudeProjects.listProjects")(function*() {
    const keys = yield* projectKeys(tree, "listProjects")
    return yield* Effect.forEach(keys, (projectKey) =>
      sessionsIn(tree, "listProjects", projectKey).pipe(
        Effect.map((ids): ProjectInfo => ({
          projectKey,
          path: tree.path.join(tree.projectsDir, projectKey),
          sessions: ids.length
        }))
      ))
  }),
  listSessionFiles: Effect.fn("ClaudeProjects.listSessionFiles")(function*(projectKey?: string) {
    const found = yield* listedSessions(tree, "listSessionFiles", projectKey)
    return found.map(({ file, projectKey, sessionId }): SessionFile => ({ projectKey, sessionId, file }))
  }),
  listSessions: Effect.fn("ClaudeProjects.listSessions")(function*(projectKey?: string) {
    return yield* sessionsWithMetadata(tree, projectKey, index)
  })
})

// The readers: a session's transcript, whole or streamed, and its subagents'.
const readers = (tree: ProjectsTree) => {
  const listSubagents = Effect.fn("ClaudeProjects.listSubagents")(function*(projectKey: string, sessionId: string) {
    const dir = yield* subagentsDir(tree, "listSubagents", projectKey, sessionId)
    const agents: Array<SubagentInfo> = yield* subagentsUnder(tree, dir)
    return agents
  })
  return {
    readSession: Effect.fn("ClaudeProjects.readSession")(function*(projectKey: string, sessionId: string) {
      const file = yield* sessionFile(tree, "readSession", projectKey, sessionId)
      return yield* readTranscript("readSession", file)
    }),
    streamSession: (projectKey: string, sessionId: string) =>
      Stream.unwrap(Effect.map(sessionFile(tree, "streamSession", projectKey, sessionId), streamTranscript)),
    listSubagents,
    readSubagents: Effect.fn("ClaudeProjects.readSubagents")(function*(projectKey: string, sessionId: string) {
      const agents = yield* listSubagents(projectKey, sessionId)
      return yield* Effect.forEach(
        agents,
        (agent) => Effect.map(readTranscript("readSubagents", agent.file), (read) => ({ ...agent, ...read }))
      )
    }),
    readSubagent: Effect.fn("ClaudeProjects.readSubagent")(
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
  }
}

// A fork of a session, written as a new session of the same project (see `@acx/convert/Fork`).
const forkInto = (
  tree: ProjectsTree,
  read: ClaudeProjects["readSession"],
  append: ClaudeProjects["appendEntries"]
) =>
  Effect.fn("ClaudeProjects.forkSession")(function*(
    projectKey: string,
    sessionId: string,
    options: ForkOptions = {}
  ) {
    const { entries } = yield* (options.from?.readSession ?? read)(projectKey, sessionId)
    const newSessionId = randomUUID()
    const forked = forkEntries(entries, sessionId, newSessionId, options)
    if (forked.length === 0) {
      return yield* Effect.fail(fail("NotFound", "forkSession", nothingToFork(sessionId, options)))
    }
    yield* append(projectKey, newSessionId, forked)
    const file = yield* inside(tree, "forkSession", projectKey, `${newSessionId}.jsonl`)
    return { projectKey, sessionId: newSessionId, file, entries: forked.length } satisfies ForkResult
  })

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
    const tree = yield* projectsTree(options)
    // SessionIndex's cache, read and written by the one plain listing (`PlainListing.walkedSessions`)
    const projectsDir = tree.path.resolve(tree.projectsDir)
    const index: SessionIndexCache.IndexOptions = {
      projectsDir,
      cacheFile: options.cacheDir === undefined
        ? undefined
        : SessionIndexCache.cacheFileFor(options.cacheDir, projectsDir)
    }
    // The writers' lock ClaudeProjectsSessionStore takes on the same directory: an append here
    // never interleaves with a store's read-check-append of the same file.
    const directoryLock = yield* DirectoryLock.make({ dir: tree.projectsDir, timeout: "10 seconds" })
    const read = readers(tree)
    const appendEntries = Effect.fn("ClaudeProjects.appendEntries")(
      function*(projectKey: string, sessionId: string, entries: ReadonlyArray<unknown>, subpath?: string) {
        return yield* ProjectsWrite.appendEntries(tree, directoryLock, projectKey, sessionId, entries, subpath)
      }
    )
    return ClaudeProjects.of({
      configDir: tree.configDir,
      projectsDir: tree.projectsDir,
      ...listings(tree, index),
      ...read,
      appendEntries,
      forkSession: forkInto(tree, read.readSession, appendEntries),
      deleteSession: Effect.fn("ClaudeProjects.deleteSession")(function*(projectKey: string, sessionId: string) {
        return yield* ProjectsWrite.deleteSession(tree, projectKey, sessionId)
      })
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
