/**
 * The Claude Agent SDK's `SessionStore` contract as an Effect service: the SDK mirrors every
 * transcript line into `append` and resumes from `load`. Adapters (`MemorySessionStore`,
 * `SqliteSessionStore`, `PostgresSessionStore`) implement {@link SessionStore}; {@link toSdk}
 * turns any of them into the object `query({ options: { sessionStore } })` expects.
 *
 * The contract every adapter honours (and the conformance suite in `@acx/testing`
 * checks):
 * - `append` keeps call order; `uuid` is an idempotency key per key (a repeated uuid in the same
 *   key is ignored, also across processes); entries without `uuid` are never deduplicated;
 * - `load` returns `null` for a never-written key, otherwise entries deep-equal to what was
 *   appended (key order aside; U+0000 and unpaired surrogates included); a stored row that is
 *   not an entry (written by something else) is skipped and reported (`CorruptEntry`);
 * - `listSessions` returns main transcripts only, with integer epoch-ms `mtime` from the store's
 *   clock, strictly increasing per store;
 * - `listSessionSummaries` is maintained inside `append` with the SDK's own
 *   `foldSessionSummary`, in the same transaction, serialised per session, `mtime` on the same
 *   clock;
 * - `delete` of a main key removes its subkeys and summary too; of a subkey, only that subkey;
 * - `listSubkeys` returns raw subpaths; an empty, absolute or `..` subpath is rejected with a
 *   typed {@link SessionStoreError}.
 *
 * @since 0.1.0
 */
import * as SessionStoreSchema from "@acx/schema/SessionStore"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export type SessionKey = SessionStoreSchema.SessionKey

/**
 * @since 0.1.0
 * @category models
 */
export type MainSessionKey = SessionStoreSchema.MainSessionKey

/**
 * One transcript line: `{ type, uuid?, timestamp?, ...anything }`.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionStoreEntry = SessionStoreSchema.SessionStoreEntry

/**
 * @since 0.1.0
 * @category models
 */
export type SessionSummaryEntry = SessionStoreSchema.SessionSummaryEntry

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionListing {
  readonly sessionId: string
  /** Epoch milliseconds from the store's clock. */
  readonly mtime: number
}

/**
 * Why a store operation failed:
 * - `InvalidKey`: the key breaks the rules (empty, absolute or `..` subpath, empty ids);
 * - `InvalidEntry`: an entry is not a JSON object with a string `type`;
 * - `Storage`: the database failed (SQL, disk);
 * - `Summary`: the SDK's `foldSessionSummary` threw, or the SDK could not be loaded;
 * - `MissingDriver`: the adapter's optional driver package is not installed;
 * - `InvalidOption`: a constructor option is invalid (e.g. a Postgres `schema` that is not a
 *   plain identifier), reported when the store is constructed, before any I/O;
 * - `ReadOnly`: the database cannot be written (a read-only file, or a directory where SQLite
 *   cannot create its journal files, or a Postgres role without the privilege: SQLSTATE 42501);
 * - `Connection`: the database server cannot be reached (the description names host, port and
 *   why; never the password);
 * - `NotOwner`: the session belongs to another writer of a shared store (a hub's member writes
 *   only into the sessions it started; the description names the owner). Nothing was written.
 * - `Locked`: another process holds the database locked past the busy timeout (SQLite's
 *   `SQLITE_BUSY`); the description names the file and what to do.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreError
  extends Schema.TaggedError<SessionStoreError>("@acx/session-store/SessionStore/SessionStoreError")(
    "SessionStoreError",
    {
      reason: Schema.Literal(
        "InvalidKey",
        "InvalidEntry",
        "Storage",
        "Summary",
        "MissingDriver",
        "InvalidOption",
        "ReadOnly",
        "Connection",
        "NotOwner",
        "Locked"
      ),
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
    return `SessionStore ${this.operation} failed (${this.reason}): ${this.description}`
  }
}

/**
 * A session store, the Effect way. Every method validates its key first.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStore {
  readonly append: (
    key: SessionKey,
    entries: ReadonlyArray<SessionStoreEntry>
  ) => Effect.Effect<void, SessionStoreError>
  readonly load: (key: SessionKey) => Effect.Effect<Array<SessionStoreEntry> | null, SessionStoreError>
  readonly listSessions: (projectKey: string) => Effect.Effect<Array<SessionListing>, SessionStoreError>
  readonly listSessionSummaries: (projectKey: string) => Effect.Effect<Array<SessionSummaryEntry>, SessionStoreError>
  readonly delete: (key: SessionKey) => Effect.Effect<void, SessionStoreError>
  readonly listSubkeys: (key: MainSessionKey) => Effect.Effect<Array<string>, SessionStoreError>
  /**
   * Retention (the SDK never deletes): deletes every session (main transcript, subkeys,
   * summary) whose `mtime` is older than `cutoff` (epoch ms), in one project or in all.
   * Returns how many sessions were deleted.
   */
  readonly deleteOlderThan: (
    cutoff: number,
    options?: { readonly projectKey?: string | undefined }
  ) => Effect.Effect<number, SessionStoreError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const SessionStore: Context.Tag<SessionStore, SessionStore> = Context.GenericTag<SessionStore>(
  "@acx/session-store/SessionStore"
)

/**
 * Validates a key (the subpath rules of the SDK) into a {@link SessionStoreError}.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateKey = (operation: string, key: unknown): Effect.Effect<SessionKey, SessionStoreError> =>
  Either.match(SessionStoreSchema.validateKey(key), {
    onLeft: (error) =>
      Effect.fail(
        new SessionStoreError({ reason: "InvalidKey", operation, description: error.message, cause: error })
      ),
    onRight: Effect.succeed
  })

/**
 * Validates entries: each a JSON object with a string `type`.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateEntries = (
  operation: string,
  entries: unknown
): Effect.Effect<ReadonlyArray<SessionStoreEntry>, SessionStoreError> => {
  if (!Array.isArray(entries)) {
    return Effect.fail(
      new SessionStoreError({ reason: "InvalidEntry", operation, description: "entries must be an array" })
    )
  }
  const index = entries.findIndex((entry) =>
    typeof entry !== "object" || entry === null || Array.isArray(entry) ||
    typeof (entry as { readonly type?: unknown }).type !== "string"
  )
  return index === -1
    ? Effect.succeed(entries as ReadonlyArray<SessionStoreEntry>)
    : Effect.fail(
      new SessionStoreError({
        reason: "InvalidEntry",
        operation,
        description: `entry ${index} is not an object with a string "type"`
      })
    )
}

/**
 * The SDK's `SessionStore` (every optional method implemented) plus `close()`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SdkSessionStore extends Required<Sdk.SessionStore> {
  /** Deletes sessions older than `cutoff` (epoch ms); see {@link SessionStore.deleteOlderThan}. */
  deleteOlderThan(cutoff: number, options?: { readonly projectKey?: string }): Promise<number>
  /** Releases the store (connections, files). */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * Runs a store layer in its own runtime and exposes it as the SDK's `SessionStore`. Methods
 * reject with the typed {@link SessionStoreError} itself (not a FiberFailure wrapper).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSdk = <E>(layer: Layer.Layer<SessionStore, E>): SdkSessionStore => {
  const runtime = ManagedRuntime.make(layer)
  const close = () => runtime.dispose()
  return {
    ...sdkMethods((operation) => runtime.runPromiseExit(Effect.flatMap(SessionStore, operation)).then(settle)),
    close,
    [Symbol.asyncDispose]: close
  }
}

/**
 * The store as the SDK's `SessionStore`, run on the current runtime: for an Effect program
 * that already holds a store (its own layer, its own scope) and hands it to `query()`. The
 * methods reject with the typed {@link SessionStoreError}; closing stays with the scope that
 * opened the store.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSdkWithRuntime = (
  store: SessionStore
): Effect.Effect<Required<Sdk.SessionStore> & Pick<SdkSessionStore, "deleteOlderThan">> =>
  Effect.map(
    Effect.runtime<never>(),
    (runtime) => sdkMethods((operation) => Runtime.runPromiseExit(runtime)(operation(store)).then(settle))
  )

const settle = <A, E>(exit: Exit.Exit<A, E>): Promise<A> =>
  Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(Cause.squash(exit.cause))

const sdkMethods = (
  run: <A>(operation: (store: SessionStore) => Effect.Effect<A, SessionStoreError>) => Promise<A>
): Required<Sdk.SessionStore> & Pick<SdkSessionStore, "deleteOlderThan"> => ({
  append: (key, entries) => run((store) => store.append(key, entries as ReadonlyArray<SessionStoreEntry>)),
  load: (key) => run((store) => store.load(key)) as Promise<Array<Sdk.SessionStoreEntry> | null>,
  listSessions: (projectKey) => run((store) => store.listSessions(projectKey)),
  listSessionSummaries: (projectKey) =>
    run((store) => store.listSessionSummaries(projectKey)) as Promise<Array<Sdk.SessionSummaryEntry>>,
  delete: (key) => run((store) => store.delete(key)),
  listSubkeys: (key) => run((store) => store.listSubkeys(key)),
  deleteOlderThan: (cutoff, options) => run((store) => store.deleteOlderThan(cutoff, options))
})

// The SDK is loaded by the first fold, not with this module: its ~2 MB take a few hundred
// milliseconds to evaluate, which a program that only reads or deletes (`acx memory status`) or
// never touches a store should not pay. Once loaded, folds use it without an async step.
let sdk: typeof Sdk | undefined

const loadSdk: Effect.Effect<typeof Sdk, SessionStoreError> = Effect.suspend(() =>
  sdk !== undefined ? Effect.succeed(sdk) : Effect.tryPromise({
    try: () => import("@anthropic-ai/claude-agent-sdk"),
    catch: (cause) =>
      new SessionStoreError({
        reason: "Summary",
        operation: "append",
        description: `the Claude Agent SDK could not be loaded: ${String(cause)}`,
        cause
      })
  }).pipe(Effect.tap((module) => (sdk = module)))
)

/**
 * The SDK's own `foldSessionSummary` (acx never re-implements it), as an Effect: the summary of
 * a main key after `entries`, with `mtime` from the store's clock.
 *
 * @since 0.1.0
 * @category summaries
 */
export const foldSummary = (
  prev: SessionSummaryEntry | undefined,
  key: SessionKey,
  entries: ReadonlyArray<SessionStoreEntry>,
  mtime: number
): Effect.Effect<SessionSummaryEntry, SessionStoreError> =>
  Effect.flatMap(loadSdk, ({ foldSessionSummary }) =>
    Effect.try({
      try: () =>
        foldSessionSummary(
          prev as Sdk.SessionSummaryEntry | undefined,
          key,
          entries as Array<Sdk.SessionStoreEntry>,
          { mtime }
        ) as SessionSummaryEntry,
      catch: (cause) =>
        new SessionStoreError({ reason: "Summary", operation: "append", description: String(cause), cause })
    }))

/**
 * Loads what {@link foldSummary} folds with (the SDK, once per process): a store that takes a
 * lock for its append loads it before, so the SDK's load (a second of a loaded machine) is not
 * spent holding the lock every other writer of the store waits on.
 *
 * @since 0.4.0
 * @category summaries
 */
export const loadSummaryFold: Effect.Effect<void, SessionStoreError> = Effect.asVoid(loadSdk)

/**
 * Whether a key is a main transcript key (no subpath).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isMainKey = (key: SessionKey): boolean => key.subpath === undefined
