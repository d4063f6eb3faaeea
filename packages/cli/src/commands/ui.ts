/**
 * `acx ui [--port N] [--host H] [--config-dir D] [--open]`: the local web page (sessions, costs,
 * memory). Prints one line with the URL, which carries a random token, and serves until Ctrl-C.
 * What it does: `run/ui.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption } from "../internal/options.js"

const config = {
  // 7317 is @acx/ui's UiServer.DEFAULT_PORT (not imported here: the server loads with the handler)
  port: Options.integer("port").pipe(
    Options.withDescription("The port (default 7317, else the next free one; 0: any free port)"),
    Options.optional
  ),
  host: Options.text("host").pipe(
    Options.withDescription("The address to listen on (default 127.0.0.1; another one is warned about)"),
    Options.withDefault("127.0.0.1")
  ),
  configDir: configDirOption,
  open: Options.boolean("open").pipe(Options.withDescription("Open the page in the default browser")),
  followSymlinks: followSymlinksOption
}

/**
 * What `acx ui` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type UiArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const ui = Command.make("ui", config, lazyHandler(() => import("./run/ui.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Serve the local web page: sessions, costs and memory, on 127.0.0.1 behind a token (prints its URL)"
  )
)
