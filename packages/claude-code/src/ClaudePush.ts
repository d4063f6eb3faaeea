/**
 * Pushes one past Claude Code session (a transcript on disk) to Acontext: the whole
 * conversation, across every compaction, as the Anthropic blobs acx's live storage would have
 * stored, into the Acontext session whose id is the Claude session id.
 *
 * The push is **resumable and idempotent**: it first reads what the Acontext session already
 * holds; when that is a prefix of what it would push (same count or fewer, the same messages as
 * Acontext reads them back — role, texts, tool ids and results, meta: `Reconcile.sameMessage`)
 * only the rest is stored, so re-running after a failure
 * completes the session without duplicates, and re-running after success stores nothing. When
 * the session holds something else, the push fails with `ClaudePushError` (reason `Diverged`)
 * before storing anything; `targetSessionId` pushes into another (e.g. a fresh) session instead.
 *
 * Each message is stored **exactly once** (`AcontextClient.storeMessageOnce`): when a store
 * fails without a clear answer (a dropped connection, a timeout, a 5xx — the server may have
 * stored it), the session's tail is read and the message is not stored again when it is there.
 * The push knows the id of the session's newest message at every step (from its first read,
 * then from each store's answer), so two equal consecutive messages are never taken for a
 * retry.
 *
 * Errors: `ClaudePushError` for what is specific to pushing (`SessionNotFound`, `Ambiguous`,
 * `Diverged`); reading the transcript fails with the source's own `ClaudeProjectsError` (e.g.
 * `InvalidSessionId` for `"../etc"`) and talking to Acontext with the client's `AcontextError`,
 * both passed through unchanged so callers keep their full detail (status, reason, path).
 *
 * @since 0.1.0
 */
import * as Reconstruct from "@acx/convert/Reconstruct"
import * as TranscriptBlobs from "@acx/convert/TranscriptBlobs"
import { isUuid } from "@acx/schema/SessionId"
import type * as Transcript from "@acx/schema/Transcript"
import { AcontextClient } from "@acx/storage/AcontextClient"
import type { AcontextError } from "@acx/storage/AcontextError"
import * as Reconcile from "@acx/storage/Reconcile"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeProjects from "./ClaudeProjects.js"

/**
 * Why a push failed (failures of the transcript source and of Acontext come through as their own
 * `ClaudeProjectsError` / `AcontextError`):
 * - `SessionNotFound`: no transcript `<sessionId>.jsonl` in the project (or in any project);
 * - `Ambiguous`: no `projectKey` given and the session id exists in several projects;
 * - `Diverged`: the Acontext session already holds messages that are not a prefix of this
 *   transcript's; nothing was stored.
 *
 * @since 0.1.0
 * @category errors
 */
export const ClaudePushErrorReason = Schema.Literal("SessionNotFound", "Ambiguous", "Diverged")

/**
 * @since 0.1.0
 * @category errors
 */
export type ClaudePushErrorReason = typeof ClaudePushErrorReason.Type

/**
 * A push that could not run; see {@link ClaudePushErrorReason}.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudePushError extends Schema.TaggedError<ClaudePushError>("@acx/claude-code/ClaudePush/ClaudePushError")(
  "ClaudePushError",
  {
    reason: ClaudePushErrorReason,
    sessionId: Schema.String,
    /** The project searched (SessionNotFound, Diverged), when known. */
    projectKey: Schema.optionalWith(Schema.String, { exact: true }),
    /** Ambiguous: every project holding the session. */
    candidates: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
    /** Diverged: how many messages the Acontext session holds, and the first one that differs. */
    existing: Schema.optionalWith(Schema.Number, { exact: true }),
    mismatchAt: Schema.optionalWith(Schema.Number, { exact: true }),
    description: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `cannot push Claude session ${this.sessionId} (${this.reason}): ${this.description}`
  }
}

/**
 * Reported after each message stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface PushProgress {
  /** Messages stored by this push so far. */
  readonly stored: number
  /** Messages of the whole conversation (already present ones included). */
  readonly total: number
  /** Messages the Acontext session held before this push. */
  readonly alreadyPresent: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PushOptions {
  /** The source: a `ClaudeProjects` service, or a Claude config directory (read with Node's fs). */
  readonly from: ClaudeProjects.ClaudeProjects | { readonly configDir: string }
  /** The Claude session id (a UUID); also the Acontext session id unless `targetSessionId` is given. */
  readonly sessionId: string
  /**
   * The Acontext session to push into (a UUID; created if needed): e.g. a fresh one when the
   * session `sessionId` in Acontext holds something else (`Diverged`). Default: `sessionId`.
   */
  readonly targetSessionId?: string | undefined
  /** The project directory name; found by looking in every project when omitted. */
  readonly projectKey?: string | undefined
  /**
   * Also push the inline sidechain entries (older CLIs wrote subagent turns into the main
   * transcript with `isSidechain: true`), each agent's entries placed where they were written
   * in the file relative to the main conversation. Default `false`.
   */
  readonly includeSidechains?: boolean | undefined
  /** Keep `isMeta` and compact-summary entries (default `false`, like `transcriptToBlobs`). */
  readonly includeMeta?: boolean | undefined
  /** Keep thinking blocks (default `false`). */
  readonly includeThinking?: boolean | undefined
  /** `"text"` (default) or `"native"` thinking blocks, when `includeThinking`. */
  readonly thinkingFormat?: TranscriptBlobs.TranscriptBlobsOptions["thinkingFormat"]
  readonly onProgress?: ((progress: PushProgress) => Effect.Effect<void>) | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PushResult {
  readonly projectKey: string
  readonly sessionId: string
  /** The Acontext session pushed into (`sessionId` unless `targetSessionId` was given). */
  readonly acontextSessionId: string
  /** Messages of the conversation. */
  readonly total: number
  /** Messages stored by this push. */
  readonly stored: number
  /** Messages found already in Acontext (a prefix of the conversation). */
  readonly alreadyPresent: number
  /**
   * Stores whose answer was lost (the connection dropped, a 5xx) and that the tail read found
   * stored: counted in `stored`, not stored twice.
   */
  readonly recovered: number
  /** Transcript lines that could not be read (malformed, torn), skipped. */
  readonly skippedLines: number
}

/**
 * The entries of a transcript in the order they are pushed: the reconstructed main conversation
 * (`Reconstruct.conversation`: newest non-sidechain leaf, full history across compactions,
 * orphaned blocks spliced in), plus, when asked, each inline sidechain before the first main
 * entry written after its first entry. Entries are raw: `transcriptToBlobs` merges assistant
 * fragments afterwards, exactly once (every fragment of a message is on the chain or spliced
 * next to it, so the merged message lands where its first fragment is).
 *
 * @since 0.1.0
 * @category conversions
 */
export const pushOrder = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: { readonly includeSidechains?: boolean | undefined } = {}
): Array<Transcript.TranscriptEntry> => {
  const main = Reconstruct.conversation(entries)
  if (options.includeSidechains !== true) return main.map((item) => item.entry)
  const sides = Reconstruct.sidechains(entries)
  const before = new Map<number, Array<Transcript.TranscriptEntry>>()
  const trailing: Array<Transcript.TranscriptEntry> = []
  for (const side of sides) {
    const first = side.entries[0]
    if (first === undefined) continue
    const position = main.findIndex((item) => item.index > first.index)
    const target = position === -1 ? trailing : (before.get(position) ?? [])
    target.push(...side.entries.map((item) => item.entry))
    if (position !== -1) before.set(position, target)
  }
  return [...main.flatMap((item, position) => [...(before.get(position) ?? []), item.entry]), ...trailing]
}

/**
 * The blobs {@link pushSession} stores for these transcript entries, in order.
 *
 * @since 0.1.0
 * @category conversions
 */
export const sessionBlobs = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: Omit<PushOptions, "from" | "sessionId" | "projectKey" | "onProgress"> = {}
): Array<TranscriptBlobs.TranscriptBlob> =>
  TranscriptBlobs.transcriptToBlobs(pushOrder(entries, options), {
    includeSidechains: options.includeSidechains,
    includeMeta: options.includeMeta,
    includeThinking: options.includeThinking,
    thinkingFormat: options.thinkingFormat
  })

const nodeSource = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

const locate = (source: ClaudeProjects.ClaudeProjects, sessionId: string) =>
  Effect.gen(function*() {
    // Directory listings only: listSessions would parse every transcript for its titles.
    const files = yield* source.listSessionFiles()
    const holding = files.filter((file) => file.sessionId === sessionId).map((file) => file.projectKey)
    if (holding.length === 0) {
      return yield* new ClaudePushError({
        reason: "SessionNotFound",
        sessionId,
        description: `no transcript ${sessionId}.jsonl in any project of ${source.projectsDir}`
      })
    }
    if (holding.length > 1) {
      return yield* new ClaudePushError({
        reason: "Ambiguous",
        sessionId,
        candidates: holding,
        description: `the session exists in ${holding.length} projects (${holding.join(", ")}); pass projectKey`
      })
    }
    return holding[0]!
  })

/**
 * Pushes one past Claude Code session to Acontext (see the module docs): reads the transcript,
 * converts the full reconstructed conversation ({@link sessionBlobs}), creates the Acontext
 * session `sessionId` if needed (an existing one is fine: 200, 201 or 409), then stores every
 * message the session does not hold yet, in order, one at a time, each with its meta.
 *
 * @since 0.1.0
 * @category push
 */
export const pushSession: (
  options: PushOptions
) => Effect.Effect<PushResult, ClaudePushError | ClaudeProjects.ClaudeProjectsError | AcontextError, AcontextClient> =
  Effect.fn("ClaudePush.pushSession")(function*(options: PushOptions) {
    const { sessionId } = options
    const target = options.targetSessionId ?? sessionId
    yield* Effect.annotateCurrentSpan({ "acx.session_id": sessionId, "acx.target_session_id": target })
    // Checked before anything is read or sent: the ids become a path and URL segments.
    for (const id of [sessionId, target]) {
      if (!isUuid(id)) {
        return yield* new ClaudeProjects.ClaudeProjectsError({
          reason: "InvalidSessionId",
          operation: "pushSession",
          description: `not a UUID: ${JSON.stringify(id)}`
        })
      }
    }
    const source = "listSessions" in options.from
      ? options.from
      : yield* Effect.provide(ClaudeProjects.make(options.from), nodeSource)
    const projectKey = options.projectKey ?? (yield* locate(source, sessionId))
    yield* Effect.annotateCurrentSpan("acx.project_key", projectKey)

    const read = yield* source.readSession(projectKey, sessionId).pipe(
      Effect.catchIf(
        (error) => error.reason === "NotFound",
        () =>
          new ClaudePushError({
            reason: "SessionNotFound",
            sessionId,
            projectKey,
            description: `no transcript ${sessionId}.jsonl in project ${projectKey}`
          })
      )
    )
    const blobs = sessionBlobs(read.entries, options)
    const total = blobs.length

    const client = yield* AcontextClient
    yield* client.createSession({ useUuid: target }).pipe(
      // 409: the UUID exists already (a create race, or an older server): use it.
      Effect.catchIf((error) => error.reason === "Conflict", () => Effect.void),
      Effect.withSpan("ClaudePush.ensureSession")
    )
    const existing = Chunk.toReadonlyArray(
      yield* Stream.runCollect(client.messages(target, { format: "anthropic", pageSize: 200 })).pipe(
        Effect.withSpan("ClaudePush.readExisting")
      )
    )
    // Compared as Acontext reads messages back (role, texts, tool ids, tool result texts, meta:
    // `Reconcile.sameMessage`), so a prefix is recognised and anything else is not.
    const mismatchAt = existing.findIndex((stored, i) => i >= total || !Reconcile.sameMessage(blobs[i]!, stored))
    if (mismatchAt !== -1) {
      const named = target === sessionId ? "" : ` ${target}`
      return yield* new ClaudePushError({
        reason: "Diverged",
        sessionId,
        projectKey,
        existing: existing.length,
        mismatchAt,
        description: (mismatchAt >= total
          ? `the Acontext session${named} holds ${existing.length} messages, the transcript converts to ${total}`
          : `message ${mismatchAt} of the Acontext session${named} (of ${existing.length}) differs from the transcript's`) +
          "; nothing was stored"
      })
    }

    const alreadyPresent = existing.length
    yield* Effect.annotateCurrentSpan({ "acx.total": total, "acx.already_present": alreadyPresent })
    let stored = 0
    let recovered = 0
    let after: string | null = existing.at(-1)?.id ?? null
    for (const { blob, meta } of blobs.slice(alreadyPresent)) {
      const once = yield* client.storeMessageOnce(target, blob, { format: "anthropic", meta, after })
      after = once.id
      stored++
      if (once.found) recovered++
      if (options.onProgress !== undefined) yield* options.onProgress({ stored, total, alreadyPresent })
    }
    return {
      projectKey,
      sessionId,
      acontextSessionId: target,
      total,
      stored,
      alreadyPresent,
      recovered,
      skippedLines: read.errors.length
    }
  })
