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
import * as TranscriptParse from "@acx/convert/TranscriptParse"
import { isUuid } from "@acx/schema/SessionId"
import type * as Transcript from "@acx/schema/Transcript"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Chunk from "effect/Chunk"
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
import { foldTranscript } from "./internal/transcriptFile.js"

/**
 * Why an operation failed:
 * - `InvalidSessionId`: not a UUID; `InvalidAgentId`: not a single safe path segment;
 * - `PathEscape`: a project key or subpath that would leave `<configDir>/projects`;
 * - `NotFound`: the file or directory does not exist;
 * - `Io`: the file system failed; `Parse`: a sidecar is not valid JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeProjectsError
  extends Schema.TaggedError<ClaudeProjectsError>("@acx/claude-code/ClaudeProjects/ClaudeProjectsError")(
    "ClaudeProjectsError",
    {
      reason: Schema.Literal("InvalidSessionId", "InvalidAgentId", "PathEscape", "NotFound", "Io", "Parse"),
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
 * @since 0.1.0
 * @category models
 */
export interface SessionInfo {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  /** Epoch milliseconds. */
  readonly mtime: number
  /** Bytes. */
  readonly size: number
  /** `custom-title`, else `ai-title`, else `summary`. */
  readonly title?: string
  readonly firstPrompt?: string
  readonly lastPrompt?: string
  readonly cwd?: string
  readonly gitBranch?: string
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
  readonly errors: Array<Transcript.TranscriptLineError>
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
   * to use to find a session by id or to walk a large config directory (`listSessions` parses
   * every transcript for its metadata).
   */
  readonly listSessionFiles: (projectKey?: string) => Effect.Effect<Array<SessionFile>, ClaudeProjectsError>
  /** Sessions of one project, or of every project, with metadata read from each transcript. */
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

type Obj = { readonly [key: string]: unknown }

const asObj = (entry: unknown): Obj => (typeof entry === "object" && entry !== null ? entry as Obj : {})

const str = (value: unknown): string | undefined => typeof value === "string" && value.length > 0 ? value : undefined

const promptText = (entry: Obj): string | undefined => {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true) return undefined
  const content = asObj(entry.message).content
  if (typeof content === "string") return str(content.trim())
  if (Array.isArray(content)) {
    for (const block of content) {
      const b = asObj(block)
      if (b.type === "tool_result") return undefined
      if (b.type === "text" && typeof b.text === "string") return str(b.text.trim())
    }
  }
  return undefined
}

/**
 * Folds a session's listing metadata out of its entries: title (`custom-title`, else
 * `ai-title`, else `summary`; the last of each wins), first user prompt, last prompt
 * (`last-prompt`, else the last user prompt), and the first `cwd` / `gitBranch`.
 *
 * @since 0.1.0
 * @category metadata
 */
export const sessionMetadata = (
  entries: ReadonlyArray<unknown>
): Pick<SessionInfo, "title" | "firstPrompt" | "lastPrompt" | "cwd" | "gitBranch"> => {
  const fold = metadataFold()
  for (const entry of entries) fold.offer(entry)
  return fold.result()
}

// sessionMetadata one entry at a time, so a listing folds a transcript without keeping it.
const metadataFold = () => {
  let customTitle: string | undefined
  let aiTitle: string | undefined
  let summary: string | undefined
  let firstPrompt: string | undefined
  let lastPromptEntry: string | undefined
  let lastUserPrompt: string | undefined
  let cwd: string | undefined
  let gitBranch: string | undefined
  return {
    offer: (raw: unknown): void => {
      const entry = asObj(raw)
      switch (entry.type) {
        case "custom-title":
          customTitle = str(entry.customTitle) ?? customTitle
          break
        case "ai-title":
          aiTitle = str(entry.aiTitle) ?? aiTitle
          break
        case "summary":
          summary = str(entry.summary) ?? summary
          break
        case "last-prompt":
          lastPromptEntry = str(entry.lastPrompt) ?? lastPromptEntry
          break
      }
      const prompt = promptText(entry)
      if (prompt !== undefined) {
        firstPrompt ??= prompt
        lastUserPrompt = prompt
      }
      cwd ??= str(entry.cwd)
      gitBranch ??= str(entry.gitBranch)
    },
    result: (): Pick<SessionInfo, "title" | "firstPrompt" | "lastPrompt" | "cwd" | "gitBranch"> => {
      const title = customTitle ?? aiTitle ?? summary
      const lastPrompt = lastPromptEntry ?? lastUserPrompt
      return {
        ...(title !== undefined ? { title } : {}),
        ...(firstPrompt !== undefined ? { firstPrompt } : {}),
        ...(lastPrompt !== undefined ? { lastPrompt } : {}),
        ...(cwd !== undefined ? { cwd } : {}),
        ...(gitBranch !== undefined ? { gitBranch } : {})
      }
    }
  }
}

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

    // Read in chunks, never as one string (V8 strings stop at about 512 MB).
    const readTranscript = (operation: string, file: string) => {
      const read: TranscriptRead = { entries: [], errors: [] }
      return foldTranscript(fs, file, (entry) => read.entries.push(entry), (error) => read.errors.push(error)).pipe(
        Effect.as(read),
        Effect.mapError(ioError(operation, file))
      )
    }

    // A listing folds each transcript into its metadata without keeping the entries.
    const readMetadata = (operation: string, file: string) => {
      const fold = metadataFold()
      return foldTranscript(fs, file, fold.offer, () => {}).pipe(
        Effect.map(fold.result),
        Effect.mapError(ioError(operation, file))
      )
    }

    const listDir = (operation: string, dir: string) =>
      fs.readDirectory(dir).pipe(
        Effect.catchIf(
          (error) => error._tag === "SystemError" && error.reason === "NotFound",
          () => Effect.succeed<Array<string>>([])
        ),
        Effect.mapError(ioError(operation, dir)),
        Effect.map((names) => names.slice().sort())
      )

    const isDirectory = (target: string) =>
      fs.stat(target).pipe(
        Effect.map((info) => info.type === "Directory"),
        Effect.orElseSucceed(() => false)
      )

    const sessionIdsIn = (operation: string, projectKey: string) =>
      listDir(operation, path.join(projectsDir, projectKey)).pipe(
        Effect.map((names) =>
          names.filter((name) => name.endsWith(".jsonl") && isUuid(name.slice(0, -6))).map((name) => name.slice(0, -6))
        )
      )

    const projectKeys = (operation: string) =>
      listDir(operation, projectsDir).pipe(
        Effect.flatMap((names) =>
          Effect.filter(
            names.filter((name) => isSafeSegment(name) && !name.includes("..")),
            (name) => isDirectory(path.join(projectsDir, name))
          )
        )
      )

    const listProjects = Effect.fn("ClaudeProjects.listProjects")(function*() {
      const keys = yield* projectKeys("listProjects")
      return yield* Effect.forEach(keys, (projectKey) =>
        sessionIdsIn("listProjects", projectKey).pipe(
          Effect.map((ids): ProjectInfo => ({
            projectKey,
            path: path.join(projectsDir, projectKey),
            sessions: ids.length
          }))
        ))
    })

    const sessionInfo = (projectKey: string, sessionId: string) =>
      Effect.gen(function*() {
        const file = yield* inside("listSessions", projectKey, `${sessionId}.jsonl`)
        const info = yield* fs.stat(file).pipe(Effect.mapError(ioError("listSessions", file)))
        const metadata = yield* readMetadata("listSessions", file)
        return {
          projectKey,
          sessionId,
          file,
          mtime: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() }),
          size: Number(info.size),
          ...metadata
        } satisfies SessionInfo
      })

    const listSessionFiles = Effect.fn("ClaudeProjects.listSessionFiles")(function*(projectKey?: string) {
      if (projectKey !== undefined) yield* checkProject("listSessionFiles", projectKey)
      const keys = projectKey !== undefined ? [projectKey] : yield* projectKeys("listSessionFiles")
      const perProject = yield* Effect.forEach(keys, (key) =>
        sessionIdsIn("listSessionFiles", key).pipe(
          Effect.map((ids) =>
            ids.map((sessionId): SessionFile => ({
              projectKey: key,
              sessionId,
              file: path.join(projectsDir, key, `${sessionId}.jsonl`)
            }))
          )
        ))
      return perProject.flat()
    })

    const listSessions = Effect.fn("ClaudeProjects.listSessions")(function*(projectKey?: string) {
      if (projectKey !== undefined) yield* checkProject("listSessions", projectKey)
      const keys = projectKey !== undefined ? [projectKey] : yield* projectKeys("listSessions")
      const perProject = yield* Effect.forEach(keys, (key) =>
        sessionIdsIn("listSessions", key).pipe(
          Effect.flatMap((ids) => Effect.forEach(ids, (id) => sessionInfo(key, id), { concurrency: 8 }))
        ))
      return perProject.flat()
    })

    const readSession = Effect.fn("ClaudeProjects.readSession")(function*(projectKey: string, sessionId: string) {
      const file = yield* sessionFile("readSession", projectKey, sessionId)
      return yield* readTranscript("readSession", file)
    })

    const streamSession = (projectKey: string, sessionId: string) =>
      Stream.unwrap(
        sessionFile("streamSession", projectKey, sessionId).pipe(
          Effect.map((file) =>
            fs.stream(file).pipe(
              Stream.mapError(ioError("streamSession", file)),
              Stream.decodeText(),
              Stream.map(Option.some),
              Stream.concat(Stream.make(Option.none<string>())),
              Stream.mapAccum(TranscriptParse.initialParser, (state, chunk) => {
                if (Option.isNone(chunk)) {
                  const last = TranscriptParse.finish(state)
                  return [state, Chunk.fromIterable(last.entries.map((parsed) => parsed.entry))] as const
                }
                const fed = TranscriptParse.feed(state, chunk.value)
                return [fed.state, Chunk.fromIterable(fed.entries.map((parsed) => parsed.entry))] as const
              }),
              Stream.flattenChunks
            )
          )
        )
      )

    const subagentsDir = (operation: string, projectKey: string, sessionId: string) =>
      checkProject(operation, projectKey).pipe(
        Effect.zipRight(checkSession(operation, sessionId)),
        Effect.zipRight(inside(operation, projectKey, sessionId, "subagents"))
      )

    const walkFiles = (dir: string): Effect.Effect<Array<string>, ClaudeProjectsError> =>
      listDir("listSubagents", dir).pipe(
        Effect.flatMap((names) =>
          Effect.forEach(names, (name) => {
            const full = path.join(dir, name)
            return isDirectory(full).pipe(
              Effect.flatMap((isDir) => isDir ? walkFiles(full) : Effect.succeed([full]))
            )
          })
        ),
        Effect.map((lists) => lists.flat())
      )

    const readMeta = (file: string) =>
      fs.readFileString(file).pipe(
        Effect.option,
        Effect.map(Option.flatMap((text) => {
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
