/**
 * The SessionStore adapters for plain TypeScript: each constructor returns an object that
 * satisfies the Claude Agent SDK's `SessionStore` (every optional method implemented) plus
 * `close()` and `Symbol.asyncDispose`; methods reject with the typed `SessionStoreError`.
 *
 * @example
 * ```ts
 * import { createSqliteSessionStore } from "@acx/session-store/promise"
 * import { query } from "@anthropic-ai/claude-agent-sdk"
 *
 * await using sessionStore = createSqliteSessionStore({ filename: "sessions.db" })
 * for await (const message of query({ prompt: "Fix the failing test", options: { sessionStore } })) {
 *   console.log(message.type)
 * }
 * ```
 *
 * @since 0.1.0
 */

export { createMemorySessionStore } from "./MemorySessionStore.js"
export { createPostgresSessionStore, type PostgresSessionStoreOptions } from "./PostgresSessionStore.js"
export { type SdkSessionStore, SessionStoreError } from "./SessionStore.js"
export { createSqliteSessionStore, type SqliteSessionStoreOptions } from "./SqliteSessionStore.js"
