/**
 * `acx memory demo`: the memory end to end, offline, on a machine with nothing set up. Where the
 * Claude Code binary is installed, a real session in a scratch project (read, fix, run the
 * test) fires acx's hooks, the worker a hook starts has the stand-in observer (a local model
 * double answering with scripted XML, on the real CLI) distil it, and a second real session
 * starts with that memory. Elsewhere the same hook inputs are recorded through the hook function
 * and distilled without a model, and the demo says why. Every step prints what it did.
 * What it does: `run/memoryDemo.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as MemoryDemoOptions from "./args/memoryDemo.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const memoryDemo = Command.make(
  "demo",
  MemoryDemoOptions.config,
  lazyHandler(() => import("./run/memoryDemo.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "The memory end to end, offline: a real Claude Code session's hooks, the stand-in observer, what the next session starts with"
  )
)
