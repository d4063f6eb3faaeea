/**
 * `ClaudeAgentStorage` for plain TypeScript: the Promise API of Acontext's TypeScript integration
 * (Acontext's own `ClaudeAgentStorage` is a drop-in predecessor), on top of the Effect service.
 *
 * @example
 * ```ts
 * import { ClaudeAgentStorage } from "@acx/storage/promise"
 * import { query } from "@anthropic-ai/claude-agent-sdk"
 *
 * await using storage = new ClaudeAgentStorage({ client: { apiKey: process.env.ACONTEXT_API_KEY! } })
 * for await (const message of query({ prompt: "What is the capital of France?" })) {
 *   await storage.saveMessage(message) // never throws; failures are logged or go to onError
 * }
 * console.log(storage.sessionId)
 * ```
 *
 * @since 0.1.0
 */
import * as Decider from "@acx/convert/Decider"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as AcontextClient from "./AcontextClient.js"
import * as CAS from "./ClaudeAgentStorage.js"
import { type AcontextClientLike, type Delivery, fromAcontextClient, fromClientLike } from "./Delivery.js"
import * as FailureLine from "./internal/failureLine.js"
import * as Outbox from "./Outbox.js"
import type { StorageError } from "./StorageError.js"

export type { AcontextClientLike } from "./Delivery.js"
export { StorageError } from "./StorageError.js"

/**
 * acx's own HTTP client settings, instead of a client object.
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextConnection {
  /** Default: `ACONTEXT_API_KEY` (one of the two must be set, and not blank). */
  readonly apiKey?: string | undefined
  /** Default: `ACONTEXT_BASE_URL`, else `https://api.acontext.app/api/v1`. */
  readonly baseUrl?: string | undefined
  /** Per-request timeout in milliseconds. Default: `ACONTEXT_TIMEOUT`, else 60 000. */
  readonly timeout?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeAgentStorageOptions {
  /**
   * acx's own settings (`{ apiKey, baseUrl?, timeout? }`: delivery exactly once — a store whose
   * answer was lost is found by reading the session's tail, not stored twice) or a client shaped
   * like Acontext's (`sessions.create` / `sessions.storeMessage`: at least once — acx cannot read
   * through it, so nothing is reconciled; its errors are not retried). Default `{}`: every
   * setting from the environment, as Acontext's own client reads it (an explicit setting wins).
   */
  readonly client?: AcontextClientLike | AcontextConnection | undefined
  /** An existing Acontext session id (must be a UUID: the constructor throws `InvalidSessionId` otherwise). */
  readonly sessionId?: string | null | undefined
  readonly user?: string | null | undefined
  /** Store thinking blocks (default `false`). */
  readonly includeThinking?: boolean | undefined
  /** `"text"` (default) or `"native"`. */
  readonly thinkingFormat?: "text" | "native" | undefined
  /** `"store"` (default: stored once, deduplicated by uuid) or `"skip"` (Acontext's TypeScript integration). */
  readonly replays?: "store" | "skip" | undefined
  /**
   * Receives each failure and the converted blob. Without it each failure is one
   * `console.warn` line naming its cause (no stack trace). Either way `saveMessage` resolves; an error thrown here is logged too.
   */
  readonly onError?: ((error: unknown, blob: Record<string, unknown>) => void | Promise<void>) | undefined
  /** Journal messages in this SQLite file and deliver them in the background (durable, in order). */
  readonly outbox?: string | Outbox.OutboxOptions | undefined
}

const isClientLike = (client: AcontextClientLike | AcontextConnection): client is AcontextClientLike =>
  typeof (client as AcontextClientLike).sessions === "object" && (client as AcontextClientLike).sessions !== null

/**
 * acx's client settings: each one given wins, the others come from the environment as
 * Acontext's own client reads them. Resolved at construction, so a missing key throws there.
 */
const resolveConnection = (connection: AcontextConnection): AcontextClient.AcontextClientOptions => {
  const given = <A>(value: A | undefined) => value === undefined ? undefined : Config.succeed(value)
  const resolved = Effect.runSync(Effect.either(AcontextClient.configWith({
    apiKey: given(connection.apiKey === undefined ? undefined : Redacted.make(connection.apiKey)),
    baseUrl: given(connection.baseUrl),
    timeout: given(connection.timeout === undefined ? undefined : Duration.millis(connection.timeout))
  })))
  if (Either.isRight(resolved)) return resolved.right
  const problem = ConfigError.isMissingDataOnly(resolved.left)
    ? "no Acontext API key: pass client.apiKey or set ACONTEXT_API_KEY"
    : `invalid Acontext settings: ${resolved.left}`
  throw new Error(`acx: ${problem}`, { cause: resolved.left })
}

/** The storage layer; the HTTP client (when acx's own) lives as long as the storage does. */
const storageLayer = (
  client: AcontextClientLike | AcontextConnection,
  build: (delivery: Delivery) => Effect.Effect<CAS.ClaudeAgentStorage, unknown, Scope.Scope>
): Layer.Layer<CAS.ClaudeAgentStorage, unknown> =>
  !isClientLike(client)
    ? Layer.scoped(
      CAS.ClaudeAgentStorage,
      Effect.flatMap(AcontextClient.AcontextClient, (acontext) => build(fromAcontextClient(acontext)))
    ).pipe(
      Layer.provide(AcontextClient.layer(resolveConnection(client))),
      // Node's own fetch: nothing beyond @effect/platform to install
      Layer.provide(FetchHttpClient.layer)
    )
    : Layer.scoped(CAS.ClaudeAgentStorage, build(fromClientLike(client)))

const unwrap = <A>(exit: Exit.Exit<A, unknown>): Promise<A> =>
  Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(Cause.squash(exit.cause))

/**
 * Persists Claude Agent SDK messages into Acontext.
 *
 * @since 0.1.0
 * @category constructors
 */
export class ClaudeAgentStorage {
  readonly #runtime: ManagedRuntime.ManagedRuntime<CAS.ClaudeAgentStorage, unknown>
  readonly #initialSessionId: string | null
  readonly #service: Promise<CAS.ClaudeAgentStorage>
  readonly #outbox: () => Outbox.Outbox | undefined
  #ready: CAS.ClaudeAgentStorage | undefined
  #closed = false

  constructor(options: ClaudeAgentStorageOptions = {}) {
    const initial = Decider.initialState({ sessionId: options.sessionId })
    if (initial._tag === "Left") throw initial.left
    this.#initialSessionId = initial.right.sessionId
    const onError = options.onError
    const policy: CAS.ErrorPolicy = (error: StorageError, blob) =>
      Effect.promise(async () => {
        if (onError === undefined) console.warn(FailureLine.describe(error))
        else await onError(error.cause, blob as unknown as Record<string, unknown>)
      })
    const storageOptions: CAS.ClaudeAgentStorageOptions = {
      sessionId: options.sessionId,
      user: options.user,
      includeThinking: options.includeThinking,
      thinkingFormat: options.thinkingFormat,
      replays: options.replays,
      onError: policy
    }
    const outboxOptions = typeof options.outbox === "string" ? { filename: options.outbox } : options.outbox
    let outbox: Outbox.Outbox | undefined
    this.#runtime = ManagedRuntime.make(storageLayer(options.client ?? {}, (delivery) =>
      Effect.gen(function*() {
        if (outboxOptions !== undefined) outbox = yield* Outbox.make(outboxOptions, delivery)
        return yield* CAS.make(storageOptions, delivery, Option.fromNullable(outbox))
      })))
    this.#outbox = () => outbox
    // Built now, not on the first save: an outbox left with entries by a previous run starts
    // delivering them at once, and concurrent first saves all wait on the same promise (in order).
    this.#service = this.#runtime.runPromiseExit(CAS.ClaudeAgentStorage).then(unwrap)
    this.#service.catch(() => undefined)
  }

  async #storage(): Promise<CAS.ClaudeAgentStorage> {
    const storage = await this.#service
    this.#ready = storage
    return storage
  }

  /** The Acontext session id: explicit, resolved from the stream, or created; `null` until known. */
  get sessionId(): string | null {
    return this.#ready?.unsafeSessionId() ?? this.#initialSessionId
  }

  /**
   * Stores one SDK message when it should be (user and assistant messages; Python-SDK dicts
   * too). Resolves in every case: failures go to `onError` or `console.warn`.
   */
  async saveMessage(message: unknown): Promise<void> {
    if (this.#closed) throw new Error("ClaudeAgentStorage is closed")
    const storage = await this.#storage()
    const exit = await this.#runtime.runPromiseExit(storage.save(message))
    if (Exit.isFailure(exit)) {
      console.warn(`acx: saveMessage failed unexpectedly: ${FailureLine.causeChain(Cause.squash(exit.cause))}`)
    }
  }

  /**
   * The Claude Agent SDK's `query()`, every message stored as it passes and yielded unchanged.
   * The CLI is asked to echo the prompts (`--replay-user-messages`), so each prompt is stored
   * once, in its place in the conversation. The SDK is an optional peer of `@acx/storage`, loaded
   * here: without it this rejects with an error naming the package to install.
   *
   * @example
   * ```ts
   * for await (const message of storage.query({ prompt: "Fix the failing test", options: { cwd } })) {
   *   if (message.type === "result") console.log(message.total_cost_usd)
   * }
   * ```
   */
  async *query(params: {
    readonly prompt: string | AsyncIterable<Sdk.SDKUserMessage>
    readonly options?: Sdk.Options | undefined
  }): AsyncGenerator<Sdk.SDKMessage, void, undefined> {
    if (this.#closed) throw new Error("ClaudeAgentStorage is closed")
    const sdk = await import("@anthropic-ai/claude-agent-sdk").catch((cause: unknown) => {
      throw new Error("storage.query() runs the Claude Agent SDK: npm install @anthropic-ai/claude-agent-sdk", {
        cause
      })
    })
    const messages = sdk.query({ prompt: params.prompt, options: CAS.withReplayedPrompts(params.options) })
    for await (const message of messages) {
      await this.saveMessage(message)
      yield message
    }
  }

  /** Waits until the outbox (if any) has delivered everything saved so far. */
  async flush(): Promise<void> {
    const storage = await this.#storage()
    await unwrap(await this.#runtime.runPromiseExit(storage.flush))
  }

  /** Outbox entries that failed permanently (empty without an outbox). */
  async failedEntries(): Promise<ReadonlyArray<Outbox.FailedEntry>> {
    await this.#storage()
    const outbox = this.#outbox()
    return outbox === undefined ? [] : unwrap(await this.#runtime.runPromiseExit(outbox.failed))
  }

  /** Puts failed outbox entries back in the queue; resolves with how many. */
  async retryFailed(): Promise<number> {
    await this.#storage()
    const outbox = this.#outbox()
    return outbox === undefined ? 0 : unwrap(await this.#runtime.runPromiseExit(outbox.retryFailed))
  }

  /**
   * Flushes the outbox (up to `timeoutMs`, default 30 s; undelivered entries stay journaled for
   * the next start) and releases resources.
   */
  async close(timeoutMs = 30_000): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const storage = await this.#service.catch(() => undefined)
    if (storage !== undefined) {
      await this.#runtime.runPromiseExit(storage.flush.pipe(Effect.timeoutOption(`${timeoutMs} millis`)))
    }
    await this.#runtime.dispose()
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }
}
