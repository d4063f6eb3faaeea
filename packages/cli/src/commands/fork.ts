/**
 * `acx fork <id> [--at UUID] [--title T]`: a new session in the same project holding the
 * conversation up to a chosen message, with fresh uuids and a remapped parent chain (as the
 * SDK's `forkSession` does), resumable with `claude --resume <new id>`. What it does:
 * `run/fork.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as ForkOptions from "./args/fork.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const fork = Command.make("fork", ForkOptions.config, lazyHandler(() => import("./run/fork.js"), (m) => m.run))
  .pipe(
    Command.withDescription("Fork a session up to a message into a new session (fresh uuids, remapped chain)")
  )
