/**
 * `acx ui [--port N] [--host H] [--config-dir D | --from TARGET] [--open]`: the local web page
 * (sessions, costs, memory; over a config directory or a session store). Prints one line with the URL, which carries a random token, and serves until Ctrl-C.
 * What it does: `run/ui.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as UiOptions from "./args/ui.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const ui = Command.make("ui", UiOptions.config, lazyHandler(() => import("./run/ui.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Serve the local web page: sessions, costs and memory, on 127.0.0.1 behind a token (prints its URL)"
  )
)
