/**
 * What an `AgentSession` is given and gives back: a prompt, a finished turn, and the session's
 * options. Its own module so that `AgentSession` and its internal steps both read these types
 * without importing each other; `AgentSession` re-exports every name.
 *
 * @since 0.1.0
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type * as AgentUsage from "@acx/convert/AgentUsage"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"

/**
 * One user content block (text, image, document, …) of a prompt.
 *
 * @since 0.1.0
 * @category models
 */
export type UserContentBlock = Exclude<Sdk.SDKUserMessage["message"]["content"], string>[number]

/**
 * What a turn is asked: text, or user content blocks (images with text, …).
 *
 * @since 0.1.0
 * @category models
 */
export type Prompt = string | ReadonlyArray<UserContentBlock>

/**
 * A turn's final event.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnComplete = Extract<AgentEvent, { readonly _tag: "TurnComplete" }>

/**
 * A finished turn: what was asked, every event, the result, and what it cost.
 *
 * @since 0.1.0
 * @category models
 */
export interface Turn {
  readonly prompt: Prompt
  /** The SDK session id the turn ran in. */
  readonly sessionId: string | undefined
  readonly events: ReadonlyArray<AgentEvent>
  readonly result: TurnComplete
  /** This turn's tokens by model and dollars. */
  readonly usage: AgentUsage.UsageFigures
  /** The conversation's totals after it. */
  readonly conversation: AgentUsage.ConversationUsage
}

/**
 * SDK options passed through unchanged.
 *
 * @since 0.1.0
 * @category models
 */
export type PassThroughOptions = {
  readonly [K in PassThroughKey]?: Sdk.Options[K] | undefined
}

type PassThroughKey = Extract<
  keyof Sdk.Options,
  | "model"
  | "allowedTools"
  | "disallowedTools"
  | "permissionMode"
  | "canUseTool"
  | "hooks"
  | "maxBudgetUsd"
  | "settingSources"
  | "env"
  | "pathToClaudeCodeExecutable"
>

/**
 * Where the SDK messages are copied as they pass: `ClaudeAgentStorage` of `@acx/storage` is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageMirror {
  readonly save: (message: unknown) => Effect.Effect<unknown, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentSessionOptions extends PassThroughOptions {
  /** The project directory (the CLI's working directory; the store's project key). Default: `process.cwd()`. */
  readonly cwd?: string | undefined
  /** An SDK session id to continue (loaded from the store, or the CLI's local transcripts). */
  readonly resume?: string | undefined
  /**
   * Where the transcript is mirrored and resumed from: any acx adapter (or any SDK
   * `SessionStore`). Default: a `SessionStore` service in context, else the embedded SQLite
   * store `$ACX_HOME/agent.db`. `null`: no store (the CLI's local transcripts only).
   */
  readonly sessionStore?: Sdk.SessionStore | null | undefined
  /** Any other SDK option (`systemPrompt`, `mcpServers`, `agents`, …); the fields above win. */
  readonly sdkOptions?: Omit<Sdk.Options, "resume" | "sessionStore" | "cwd" | "includePartialMessages"> | undefined
  /**
   * Saves every SDK message as it passes: an acx `ClaudeAgentStorage` (`@acx/storage`) mirrors the
   * conversation into Acontext. Failures are logged; the conversation goes on.
   */
  readonly mirror?: MessageMirror | undefined
  /** Runs after each turn, before its stream ends (an app's own persistence); failures are logged. */
  readonly onTurnComplete?: ((turn: Turn) => Effect.Effect<void, unknown>) | undefined
  /** The conversation's usage so far (a pool restores it from its registry). */
  readonly usage?: AgentUsage.ConversationUsage | undefined
  /** How long a process may take to answer the SDK's initialize request. Default 60 s. */
  readonly startTimeout?: Duration.DurationInput | undefined
  /** acx's home directory (the default store lives there). Default: `$ACX_HOME`, else `~/.acx`. */
  readonly acxHome?: string | undefined
}
