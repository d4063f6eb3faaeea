/**
 * The transcripts of a Claude Code config directory: JSONL files read through
 * `TranscriptReader` (regular files only) from a byte offset, followed with `fs.watch` on the
 * project directory and the session's `subagents` directory (no polling).
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { ClaudeProjectsError } from "@acx/claude-code/ClaudeProjectsError"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as AcxHome from "@acx/environment/AcxHome"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as nodeFs from "node:fs"
import * as path from "node:path"
import * as OffThread from "./offThread.js"
import type { Listing } from "./sessionsList.js"
import { locateLine, readLines, readRange } from "./transcriptLines.js"
import type { Signal, Transcript, TranscriptSource } from "./transcriptSource.js"

const fileTranscript = (file: string): Transcript => ({
  id: file,
  lines: (options) => readLines(file, options),
  extent: Effect.tryPromise(() => nodeFs.promises.stat(file)).pipe(
    Effect.map((stat) => Option.some({ end: stat.size, identity: stat.ino })),
    Effect.orElseSucceed(() => Option.none())
  ),
  line: (n) =>
    Effect.map(
      locateLine(file, n),
      Option.map(({ end, start }) => ({ size: end - start, bytes: readRange(file, start, end) }))
    )
})

// The project directory: the transcript's changes and its session directory appearing; then the
// session's subagents directory. A signal only says "look": the reader reads what is new.
const watchFiles = (session: ClaudeProjects.SessionFile, transcript: Transcript): Stream.Stream<Signal> => {
  const file = transcript.id
  const projectDir = path.dirname(file)
  const subagentsDir = path.join(projectDir, session.sessionId, "subagents")
  return Stream.asyncScoped<Signal>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const watchers: Array<nodeFs.FSWatcher> = []
        let watchingSubagents = false
        const watchSubagents = () => {
          if (watchingSubagents || !nodeFs.existsSync(subagentsDir)) return
          watchingSubagents = true
          const watcher = nodeFs.watch(subagentsDir, { recursive: true }, () => void emit.single("subagents"))
          watcher.on("error", () => watcher.close())
          watchers.push(watcher)
        }
        const watcher = nodeFs.watch(projectDir, (_event, name) => {
          if (name === path.basename(file)) void emit.single("transcript")
          else if (name === session.sessionId) {
            watchSubagents()
            void emit.single("subagents")
          }
        })
        watcher.on("error", () => void emit.end())
        watchers.push(watcher)
        watchSubagents()
        // lines written before the watch was set
        void emit.single("transcript")
        return watchers
      }),
      (watchers) => Effect.sync(() => watchers.forEach((watcher) => watcher.close()))
    )
  )
}

// The list, in a worker thread; what stopped the walk as the service's error would say it.
const listing = (options: OffThread.ConfigDirOptions) => (unless: string | undefined) =>
  Effect.flatMap(
    Effect.tryPromise({ try: () => OffThread.run({ job: "list", options, unless }), catch: (cause) => cause }),
    (listed): Effect.Effect<Listing | undefined, unknown> =>
      listed.unchanged === true
        ? Effect.succeed(undefined)
        : listed.failure === undefined
        ? Effect.succeed({ rows: listed.rows, origins: new Map(listed.origins), fingerprint: listed.fingerprint })
        : Effect.fail(
          new ClaudeProjectsError({
            reason: listed.failure.reason,
            operation: "listSessions",
            description: listed.failure.description
          })
        )
  )

const offThread = (
  projects: ClaudeProjects.ClaudeProjects,
  options: { readonly acxHome: string; readonly followSymlinks?: boolean | undefined }
): OffThread.ConfigDirOptions => ({
  configDir: projects.configDir,
  followSymlinks: options.followSymlinks === true,
  acxHome: options.acxHome
})

/**
 * The config directory `projects` reads, as the page's source; statistics and the session
 * index cached under `acxHome`.
 */
export const fileSource = (
  projects: ClaudeProjects.ClaudeProjects,
  options: { readonly acxHome: string; readonly followSymlinks?: boolean | undefined }
): TranscriptSource => ({
  kind: "files",
  projects,
  location: projects.configDir,
  transcript: (session, agent) =>
    agent === null
      ? Effect.succeed(Option.some(fileTranscript(session.file)))
      : Effect.map(
        projects.listSubagents(session.projectKey, session.sessionId),
        (agents) => Option.map(Option.fromNullable(agents.find((info) => info.agentId === agent)?.file), fileTranscript)
      ),
  foldStats: (scope, pricing) =>
    SessionStats.foldStats(projects, scope.projectKey, {
      pricing,
      cacheDir: AcxHome.paths(options.acxHome).cache,
      ...(scope.sessionId === undefined ? {} : { sessionId: scope.sessionId })
    }),
  origins: StatsOrigins.ofProjects(projects),
  listing: listing(offThread(projects, options)),
  usage: (masked) =>
    Effect.tryPromise({
      try: (signal) => OffThread.run({ job: "usage", options: offThread(projects, options), masked }, signal),
      catch: (cause) => cause
    }),
  watch: watchFiles,
  // the list of a config directory is read when the page asks (as before stores)
  listChanges: Stream.never
})
