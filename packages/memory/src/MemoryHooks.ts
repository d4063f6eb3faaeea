/**
 * The memory's capture as Agent SDK programmatic hooks, for apps that call `query()`
 * themselves: `query({ prompt, options: { hooks: memoryHooks() } })` records what the agent does
 * into the same memory `acx hook` fills, and the project's memory goes to the model with each
 * session's first prompt (programmatic hooks never receive SessionStart, so UserPromptSubmit's
 * `additionalContext` carries it). Each callback is the hook path as a function (`HookRunner.runHook`): one transaction,
 * never a throw, never a wait for the worker or the network.
 *
 * The worker is started detached when events wait and none runs: `workerBin` (or
 * `ACX_MEMORY_WORKER_BIN`) names the acx bin to run it with; by default the installed
 * `@acx/cli`'s. Without one, events wait in the queue for the next `acx memory worker`.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import type { HookCallbackMatcher, HookEvent, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk"
import { createRequire } from "node:module"
import type { MemoryHookEvent } from "./HookCapture.js"
import { MEMORY_HOOK_EVENTS } from "./HookCapture.js"
import { startWorker } from "./HookMain.js"
import * as HookRunner from "./HookRunner.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface MemoryHooksOptions {
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  /** The acx bin that runs `memory worker` (default: `ACX_MEMORY_WORKER_BIN`, else `@acx/cli`'s if installed). */
  readonly workerBin?: string | undefined
  /** Where warning lines go (default: stderr). */
  readonly onWarning?: ((line: string) => void) | undefined
}

const installedBin = (): string | undefined => {
  try {
    return createRequire(import.meta.url).resolve("@acx/cli/bin/acx.mjs")
  } catch {
    return undefined
  }
}

/**
 * SDK hooks for the six events the memory listens to.
 *
 * @since 0.1.0
 * @category hooks
 */
export const memoryHooks = (
  options: MemoryHooksOptions = {}
): Partial<Record<HookEvent, Array<HookCallbackMatcher>>> => {
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`${line}\n`))
  const home = options.home ?? AcxHome.acxHome()
  const workerBin = options.workerBin ?? process.env["ACX_MEMORY_WORKER_BIN"] ?? installedBin()
  let toldNoWorker = false
  const callback = (event: MemoryHookEvent) => async (input: unknown): Promise<HookJSONOutput> => {
    let raw: string
    try {
      raw = JSON.stringify(input) ?? ""
    } catch {
      raw = ""
    }
    const outcome = HookRunner.runHook(event, raw, { home, contextOnFirstPrompt: true })
    if (outcome.warning !== undefined) warn(outcome.warning)
    if (outcome.startWorker) {
      if (workerBin === undefined) {
        if (!toldNoWorker) {
          warn("acx memory: events wait for a worker; install @acx/cli or run `acx memory worker`")
          toldNoWorker = true
        }
      } else {
        const problem = startWorker(home, { ...process.env, ACX_MEMORY_WORKER_BIN: workerBin })
        if (problem !== undefined) warn(`acx memory: ${problem}`)
      }
    }
    return JSON.parse(outcome.stdout) as HookJSONOutput
  }
  return Object.fromEntries(
    MEMORY_HOOK_EVENTS.map((event) => [event, [{ hooks: [callback(event)] }]])
  ) as Partial<Record<HookEvent, Array<HookCallbackMatcher>>>
}
