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
 * Import a Claude config directory into any SessionStore (idempotent, batched, with progress).
 *
 * @since 0.1.0
 */
export * as ClaudeImport from "./ClaudeImport.js"

/**
 * Push one past Claude Code session to Acontext (full history, resumable, idempotent).
 *
 * @since 0.1.0
 */
export * as ClaudePush from "./ClaudePush.js"

/**
 * A typed view over a Claude Code config directory: projects, sessions, subagents, append, delete.
 *
 * @since 0.1.0
 */
export * as ClaudeProjects from "./ClaudeProjects.js"

/**
 * Claude Code's on-disk layout as a SessionStore (mirror into a second Claude-format directory).
 *
 * @since 0.1.0
 */
export * as ClaudeProjectsSessionStore from "./ClaudeProjectsSessionStore.js"

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
 * Delivery targets: acx's AcontextClient, or a seed-style duck-typed client.
 *
 * @since 0.1.0
 */
export * as Delivery from "./Delivery.js"

/**
 * An in-memory SessionStore (uuid-idempotent): tests and single processes.
 *
 * @since 0.1.0
 */
export * as MemorySessionStore from "./MemorySessionStore.js"

/**
 * The durable outbox: journal before delivery, deliver in order, survive restarts.
 *
 * @since 0.1.0
 */
export * as Outbox from "./Outbox.js"

/**
 * The Postgres SessionStore: many machines, one database.
 *
 * @since 0.1.0
 */
export * as PostgresSessionStore from "./PostgresSessionStore.js"

/**
 * The embedded SQLite SessionStore (the default).
 *
 * @since 0.1.0
 */
export * as SqliteSessionStore from "./SqliteSessionStore.js"

/**
 * Why a message could not be stored.
 *
 * @since 0.1.0
 */
export * as StorageError from "./StorageError.js"

/**
 * The SDK's SessionStore contract as an Effect service, and its Promise (SDK) form.
 *
 * @since 0.1.0
 */
export * as SessionStore from "./SessionStore.js"
