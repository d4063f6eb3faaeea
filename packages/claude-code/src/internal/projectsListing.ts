/**
 * The walks of a `ClaudeProjects` service: its project directories, the main transcripts of
 * each (with their size and mtime), and the subagent transcripts under a session, all by the one
 * plain walk (`ConfigTree`). A path that is not what it should be (a directory named like a
 * transcript, a FIFO, a link leading out of the config directory, a file `stat` cannot read) is
 * left out and told to the service's `skip`.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ClaudeProjectsError } from "../ClaudeProjectsError.js"
import * as ConfigTree from "../ConfigTree.js"
import { META_BYTES, metaOfText, walkedSessions } from "../PlainListing.js"
import type * as SessionIndex from "../SessionIndex.js"
import type * as SessionIndexCache from "../SessionIndexCache.js"
import type { SessionInfo } from "../SessionInfo.js"
import * as TranscriptReader from "../TranscriptReader.js"
import { fail, type ProjectsTree } from "./projectsTree.js"

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
 * `list` run over a walk of the tree (`ConfigTree`, the one walk: `PlainListing` lists through
 * it too); the paths it left out are told to the service's `skip`, in the order met, and a failure
 * becomes the operation's error.
 */
const walked = <A>(
  tree: ProjectsTree,
  operation: string,
  list: (walk: ConfigTree.Walk) => A
): Effect.Effect<A, ClaudeProjectsError> =>
  Effect.suspend(() => {
    const walk = ConfigTree.walkOf(tree.configDir, tree.followSymlinks)
    let outcome: Effect.Effect<A, ClaudeProjectsError>
    try {
      outcome = Effect.succeed(list(walk))
    } catch (cause) {
      if (!(cause instanceof ConfigTree.TreeFailure)) throw cause
      outcome = Effect.fail(fail(cause.reason, operation, cause.description, cause.cause))
    }
    const told = walk.skipped.map((skipped) => tree.skip(skipped.path, skipped.reason, skipped.description))
    return Effect.zipRight(Effect.all(told, { discard: true }), outcome)
  })

/** The main transcripts of one project directory. */
export const sessionsIn = (tree: ProjectsTree, operation: string, projectKey: string) =>
  walked(tree, operation, (walk): Array<ListedTranscript> => ConfigTree.sessionsIn(walk, projectKey))

/** The project directories: safe names of directories (or links allowed to them). */
export const projectKeys = (tree: ProjectsTree, operation: string) => walked(tree, operation, ConfigTree.projectKeys)

/** The sessions of one project (its directory must exist) or of every project. */
export const listedSessions = (
  tree: ProjectsTree,
  operation: string,
  projectKey: string | undefined
): Effect.Effect<Array<ListedTranscript>, ClaudeProjectsError> =>
  walked(tree, operation, (walk) => ConfigTree.listedSessions(walk, projectKey))

/**
 * The sessions of one project or of every project with their metadata: the one plain listing
 * (`PlainListing.walkedSessions`); what it left out is told to the service's `skip`, in the order
 * met, and a failure becomes the operation's error.
 */
export const sessionsWithMetadata = (
  tree: ProjectsTree,
  projectKey: string | undefined,
  index: SessionIndexCache.IndexOptions
): Effect.Effect<Array<SessionInfo>, ClaudeProjectsError> =>
  Effect.suspend(() => {
    const listed = walkedSessions(ConfigTree.walkOf(tree.configDir, tree.followSymlinks), projectKey, index)
    const told = listed.skipped.map((skipped) => tree.skip(skipped.path, skipped.reason, skipped.description))
    const { failure } = listed
    return Effect.zipRight(
      Effect.all(told, { discard: true }),
      failure === undefined
        ? Effect.succeed(listed.sessions)
        : Effect.fail(fail(failure.reason, "listSessions", failure.description, failure.cause))
    )
  }).pipe(Effect.withSpan("SessionIndex.metadata"))

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
    const agents = yield* walked(tree, "listSubagents", (walk) => ConfigTree.subagentsUnder(walk, dir))
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
