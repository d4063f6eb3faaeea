/**
 * Where the page's transcripts come from: a Claude Code config directory's files
 * (`fileTranscripts.ts`) or a session store (`storeTranscripts.ts`). The routes and the live
 * readers only see this interface, so the session page, its live updates, its blocks and raw
 * lines, the costs and the lists read either the same way, with the same wire format.
 *
 * A transcript is read from a cursor: a byte offset in a file (a line start), an entry index in
 * a store (which keeps entries, not bytes). The page never computes with a cursor: it sends back
 * the `end` it was given (`/events?from=`), so either meaning holds end to end. A transcript is
 * only ever reached from a session the index lists (`findSession`), never from a request's path.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as SessionStats from "@acx/claude-code/SessionStats"
import type * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import type * as Pricing from "@acx/convert/Pricing"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { Listing } from "./sessionsList.js"
import type { LinesChunk, ReadOptions } from "./transcriptLines.js"

/** Where a transcript ends now, and what it is (a file's inode: another one means it was replaced). */
export interface Extent {
  /** The cursor after its last whole line. */
  readonly end: number
  readonly identity: number | undefined
}

/** One line as stored, for a download or a full block: its size and its bytes (JSON). */
export interface RawLine {
  readonly size: number
  readonly bytes: Stream.Stream<Uint8Array, unknown>
}

/** One transcript (a session's, or one of its subagents'), read from a cursor. */
export interface Transcript {
  /** Names it among the source's transcripts (the live readers are shared by it). */
  readonly id: string
  /** Its lines from `options.from` on, a chunk of fold inputs at a time, each with the cursor after it. */
  readonly lines: (options: ReadOptions) => Stream.Stream<LinesChunk, unknown>
  /** Where it ends now; none when it is gone. */
  readonly extent: Effect.Effect<Option.Option<Extent>, unknown>
  /** Line `n` (1-based), if it has one. */
  readonly line: (n: number) => Effect.Effect<Option.Option<RawLine>, unknown>
}

/**
 * A hint that something may have changed, never what: `transcript` (the transcript followed),
 * `subagents` (the session's subagent transcripts). The reader reads what is new.
 */
export type Signal = "transcript" | "subagents"

/** Which sessions a statistics fold covers. */
export interface StatsScope {
  readonly projectKey?: string | undefined
  readonly sessionId?: string | undefined
}

/** The transcripts the page shows, and how they change. */
export interface TranscriptSource {
  /** `files` (a config directory) or `store`. */
  readonly kind: "files" | "store"
  /** The session index, the listings, the full reads (exports, the memory page's links). */
  readonly projects: ClaudeProjects.ClaudeProjects
  /** How the source is named to the user: the config directory, or the store (no password). */
  readonly location: string
  /** The session's transcript (`agent: null`) or one of its subagents'; none when it has no such one. */
  readonly transcript: (
    session: ClaudeProjects.SessionFile,
    agent: string | null
  ) => Effect.Effect<Option.Option<Transcript>, ClaudeProjects.ClaudeProjectsError>
  /** The statistics folds `acx stats` makes of these transcripts (cached under `$ACX_HOME/cache`). */
  readonly foldStats: (
    scope: StatsScope,
    pricing: Pricing.PricingTable
  ) => Effect.Effect<SessionStats.StatsFolds, unknown>
  /**
   * Where each session came from (`StatsOrigins`): a store's recorded origins, or this machine
   * and user for a config directory, with each session's project across machines.
   */
  readonly origins: Effect.Effect<StatsOrigins.Origins, unknown>
  /**
   * Every session as the list shows it, with its origin (`sessionsList.ts` keeps it): over a
   * config directory read in a worker thread, never on the server's event loop.
   */
  readonly listing: (unless: string | undefined) => Effect.Effect<Listing | undefined, unknown>
  /**
   * Every session's usage (`GET /api/sessions/usage`, `UiApi.UsageResponse`) as its JSON text,
   * masked unless `masked` is false: over a config directory folded in a worker thread.
   */
  readonly usage: (masked: boolean) => Effect.Effect<string, unknown>
  /**
   * While consumed, the signals that `transcript` (the session's own) or its subagents may have
   * changed; the first one at once (what was written before the watch was set).
   */
  readonly watch: (
    session: ClaudeProjects.SessionFile,
    transcript: Transcript
  ) => Stream.Stream<Signal, unknown>
  /**
   * While consumed, `changed` each time the list of sessions may have changed (none: never), and
   * `reconnecting` when the store's connection that says so was lost (it reconnects; a `changed`
   * follows once it is back).
   */
  readonly listChanges: Stream.Stream<"changed" | "reconnecting", unknown>
}
