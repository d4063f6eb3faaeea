/**
 * What `acx memory mcp` says of itself in `server/discover`, pure and without Effect, so the
 * process can answer Claude Code's first request before the server has loaded.
 *
 * @since 0.1.0
 */
import type * as McpDispatcher from "./McpDispatcher.js"
import { STATELESS_PROTOCOL_VERSION } from "./McpDispatcher.js"

/**
 * The server's name, as Claude Code shows it.
 *
 * @since 0.1.0
 * @category constants
 */
export const SERVER_NAME = "acx-memory"

/**
 * The protocol versions `acx memory mcp` speaks, newest first: the stateless revision (answered
 * through the JSON-RPC front) and those `@effect/ai`'s `McpServer` negotiates in `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SUPPORTED_PROTOCOL_VERSIONS: ReadonlyArray<string> = [
  STATELESS_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05"
]

/**
 * What the server tells a client of its tools (`server/discover`'s `instructions`): two sources,
 * and which tools read which.
 *
 * @since 0.3.0
 * @category constants
 */
export const INSTRUCTIONS =
  "acx keeps two things from earlier Claude Code sessions. Its memory (what sessions learned and did, distilled): " +
  "`search`, then `get_observations` for entries in full and `timeline` for what happened around one. " +
  "Its session store (every past conversation as it was, kept by `acx sync`): `search_sessions` searches inside " +
  "all of them (prompts, replies, thinking, tool inputs and results), and `get_session_turns` reads a " +
  "conversation's turns around a hit. Everything is read-only; secrets are masked."

/**
 * The server's description at a version of acx.
 *
 * @since 0.1.0
 * @category constructors
 */
export const describe = (version: string): McpDispatcher.Description => ({
  serverInfo: { name: SERVER_NAME, version },
  capabilities: { tools: {} },
  supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
  instructions: INSTRUCTIONS
})
