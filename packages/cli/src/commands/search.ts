/**
 * `acx search QUERY [--project P] [--since D] [--role user|assistant|tool] [--limit N] [--json]
 * [--from TARGET]`: full-text search inside every conversation of a session store (the one
 * `acx sync` keeps by default), best matches first, secrets masked. What it does:
 * `run/search.ts`.
 *
 * @since 0.3.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as SearchOptions from "./args/search.js"

/**
 * @since 0.3.0
 * @category commands
 */
export const search = Command.make(
  "search",
  SearchOptions.config,
  lazyHandler(() => import("./run/search.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "Search inside every conversation of the session store acx sync keeps (prompts, replies, thinking, tool calls and results), best matches first"
  )
)
