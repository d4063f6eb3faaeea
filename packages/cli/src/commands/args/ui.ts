/**
 * What `acx ui` takes: its options and arguments, and the type of what a run is given
 * (`run/ui.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, followSymlinksOption } from "../../internal/options.js"

/**
 * The options and arguments of `acx ui`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
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
  // the page over a session store instead of the config directory (what `acx sync` keeps)
  from: Options.text("from").pipe(
    Options.withDescription(
      "Show a session store instead of the config directory: sqlite:FILE or FILE.db, or postgres://URL[?schema=S] (read only; a missing SQLite file is an error)"
    ),
    Options.optional
  ),
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
