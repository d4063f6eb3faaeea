/**
 * @since 0.1.0
 */

/**
 * What can go wrong in an agent conversation: one typed error with a `reason`.
 *
 * @since 0.1.0
 */
export * as AgentError from "./AgentError.js"

/**
 * Every SDK message as events (re-exported from `@acx/convert`).
 *
 * @since 0.1.0
 */
export * as AgentEvent from "@acx/convert/AgentEvent"

/**
 * A conversation's usage per turn and in total (re-exported from `@acx/convert`).
 *
 * @since 0.1.0
 */
export * as AgentUsage from "@acx/convert/AgentUsage"

/**
 * A warm, resumable conversation: one Claude Code process per conversation.
 *
 * @since 0.1.0
 */
export * as AgentSession from "./AgentSession.js"

/**
 * Many conversations by key through at most `maxWarm` processes, with a registry and leases.
 *
 * @since 0.1.0
 */
export * as AgentPool from "./AgentPool.js"

/**
 * Where a pool keeps its conversations and their leases (SQLite or Postgres).
 *
 * @since 0.1.0
 */
export * as AgentRegistry from "./AgentRegistry.js"
