/**
 * What the model double is scripted with and asked: the replies and errors it answers with,
 * script steps, and the requests it receives. Its own module so that the double and its internal
 * module read these types without importing each other; `ModelDouble` re-exports every name.
 *
 * @since 0.1.0
 */
/**
 * One content block of a reply.
 *
 * @since 0.1.0
 * @category models
 */
export type ReplyBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature?: string | undefined }
  | {
    readonly type: "tool_use"
    /** Default: a fresh `toolu_double_…` id. */
    readonly id?: string | undefined
    readonly name: string
    readonly input: { readonly [key: string]: unknown }
  }

/**
 * Token figures of a reply (the CLI's usage and cost accounting read them).
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelUsage {
  /** Default: the request's messages, JSON length / 4. */
  readonly inputTokens?: number | undefined
  /** Default: the reply's content, JSON length / 4. */
  readonly outputTokens?: number | undefined
  /** Default 0. */
  readonly cacheCreationInputTokens?: number | undefined
  /**
   * Of the cache writes, how many are 1-hour writes (sent as
   * `cache_creation.ephemeral_1h_input_tokens`, the rest as `ephemeral_5m_input_tokens`); when
   * unset, no `cache_creation` object is sent.
   */
  readonly cacheCreation1hInputTokens?: number | undefined
  /** Default 0. */
  readonly cacheReadInputTokens?: number | undefined
}

/**
 * A successful answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelReply {
  /** A string is one text block. */
  readonly content: string | ReadonlyArray<ReplyBlock>
  /** Default `tool_use` when a block calls a tool, else `end_turn`. */
  readonly stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | undefined
  readonly usage?: ModelUsage | undefined
  /** Default: the model the request asked for. */
  readonly model?: string | undefined
}

/**
 * An HTTP error answer, in the API's error shape `{ type: "error", error: { type, message } }`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelError {
  readonly error: {
    readonly status: number
    /** Default `api_error`. */
    readonly type?: string | undefined
    readonly message?: string | undefined
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type ModelAnswer = ModelReply | ModelError

/**
 * What the double received: the body as JSON, the path, query and headers.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelRequest {
  readonly path: string
  readonly query: { readonly [name: string]: string }
  readonly headers: { readonly [name: string]: string }
  readonly body: { readonly [key: string]: unknown }
}

/**
 * A scripted step: used for requests `when` accepts (default: requests that offer tools), at
 * most `times` times (default 1; `Infinity` for always).
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptStep {
  readonly when?: ((request: ModelRequest) => boolean) | undefined
  readonly reply: ModelAnswer | ((request: ModelRequest) => ModelAnswer)
  readonly times?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Script = ReadonlyArray<ModelAnswer | ScriptStep> | ((request: ModelRequest) => ModelAnswer)
