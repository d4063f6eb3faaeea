/**
 * Claude Code's on-disk layout for plain TypeScript: a config directory as the Claude Agent
 * SDK's `SessionStore` (mirror sessions into a second Claude-format directory).
 *
 * @example
 * ```ts
 * import { createClaudeProjectsSessionStore } from "@acx/claude-code/promise"
 *
 * const sessionStore = createClaudeProjectsSessionStore({ configDir: "/backups/claude" })
 * // query({ prompt, options: { sessionStore } })
 * await sessionStore.close()
 * ```
 *
 * @since 0.1.0
 */

export {
  type ClaudeProjectsSessionStoreOptions,
  createClaudeProjectsSessionStore
} from "./ClaudeProjectsSessionStore.js"
