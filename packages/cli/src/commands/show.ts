/**
 * `acx show <id> [--agent <id>] [--format markdown|anthropic|jsonl] [--uuids]`: one session (or
 * one of its subagents: `--agent`, or a subagent's id on its own), as readable Markdown (full
 * history across compactions; `--uuids` adds each message's uuid for `acx fork --at`), as the
 * Anthropic messages acx would store, or as its JSONL entries re-serialised. What it does:
 * `run/show.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as ShowOptions from "./args/show.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const show = Command.make("show", ShowOptions.config, lazyHandler(() => import("./run/show.js"), (m) => m.run))
  .pipe(
    Command.withDescription(
      "Print one session (or one of its subagents) as Markdown, Anthropic messages (JSON) or JSONL entries"
    )
  )
