/**
 * `acx memory mcp [--from TARGET]`: the memory as an MCP server on stdio. Claude Code's
 * `server/discover` probe must be answered within its deadline, counted from when it sent it:
 * the front (`internal/mcpFront.ts`, no Effect) starts reading stdin and answering it before the
 * server, Effect and SQLite load; the server (`run/memoryMcp.ts`) then takes the rest of stdin.
 *
 * @since 0.6.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { startFront } from "../internal/mcpFront.js"
import { VERSION } from "../internal/version.js"
import type { McpOptions } from "./args/memoryMcp.js"

const server: CommandRun<McpOptions> = effectCommand(async (options) =>
  (await import("./run/memoryMcp.js")).run(options)
)

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<McpOptions> = (options, io) => {
  startFront(VERSION)
  return server(options, io)
}
