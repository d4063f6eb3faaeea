/**
 * @since 0.1.0
 */

/**
 * The Acontext REST client: sessions and messages over `@effect/platform`'s HttpClient.
 *
 * @since 0.1.0
 */
export * as AcontextClient from "./AcontextClient.js"

/**
 * Acontext's defaults as plain constants (the base URL), without the client.
 *
 * @since 0.1.0
 */
export * as AcontextDefaults from "./AcontextDefaults.js"

/**
 * The Acontext error family.
 *
 * @since 0.1.0
 */
export * as AcontextError from "./AcontextError.js"

/**
 * Persist Claude Agent SDK message streams into Acontext.
 *
 * @since 0.1.0
 */
export * as ClaudeAgentStorage from "./ClaudeAgentStorage.js"

/**
 * Delivery targets: acx's AcontextClient, or a duck-typed client shaped like Acontext's own.
 *
 * @since 0.1.0
 */
export * as Delivery from "./Delivery.js"

/**
 * The durable outbox: journal before delivery, deliver in order, survive restarts.
 *
 * @since 0.1.0
 */
export * as Outbox from "./Outbox.js"

/**
 * Exactly-once delivery after an ambiguous failure: was the message already stored?
 *
 * @since 0.1.0
 */
export * as Reconcile from "./Reconcile.js"

/**
 * Why a message could not be stored.
 *
 * @since 0.1.0
 */
export * as StorageError from "./StorageError.js"
