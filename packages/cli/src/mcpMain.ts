/**
 * The entry of `acx memory mcp` (`dist/acx-mcp.mjs`, chosen by `bin/acx.mjs`): starts reading
 * stdin and answering `server/discover` before anything heavy loads, then runs the CLI as usual,
 * whose `memory mcp` handler takes the rest of stdin from the front.
 *
 * @since 0.1.0
 */
import { startFront } from "./internal/mcpFront.js"
import { VERSION } from "./internal/version.js"

startFront(VERSION)
await import("./bin.js")
