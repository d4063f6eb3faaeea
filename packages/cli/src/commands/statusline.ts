/**
 * `acx statusline`: the one line Claude Code draws under the prompt (model, context, costs, the
 * 5-hour and 7-day quota windows); `install` / `uninstall` set it in Claude Code's settings;
 * `refresh` recomputes the cached totals it shows (the statusline starts it, detached). What they
 * do: `run/statusline.ts`; the line itself is `src/statusline.ts`, the bin's hand-over.
 *
 * @since 0.4.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as StatuslineOptions from "./args/statusline.js"

const runs = () => import("./run/statusline.js")

const install = Command.make("install", StatuslineOptions.installConfig, lazyHandler(runs, (m) => m.install)).pipe(
  Command.withDescription(
    "Set acx's statusline in Claude Code's settings (backup first; twice changes nothing; the one replaced is kept for uninstall and --wrap)"
  )
)

const uninstall = Command.make("uninstall", StatuslineOptions.uninstallConfig, lazyHandler(runs, (m) => m.uninstall))
  .pipe(Command.withDescription("Put back the statusline acx's replaced (backup first)"))

const refresh = Command.make("refresh", StatuslineOptions.refreshConfig, lazyHandler(runs, (m) => m.refresh)).pipe(
  Command.withDescription("Recompute the cached totals the statusline shows (today's cost, the current 5-hour block)")
)

/**
 * @since 0.4.0
 * @category commands
 */
export const statusline = Command.make(
  "statusline",
  StatuslineOptions.config,
  lazyHandler(runs, (m) => m.run)
).pipe(
  Command.withDescription(
    "Print Claude Code's status line from its JSON on stdin: model, context, session and today's cost, 5-hour and 7-day quota"
  ),
  Command.withSubcommands([install, uninstall, refresh])
)
