/**
 * The hook events with a typed input in `Hook`, as plain constants: no Schema import, so code
 * that runs on every tool call (acx's hook entry) can name them without loading Effect.
 *
 * @since 0.1.0
 */

/**
 * The event names with a typed input in `Hook`.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "SessionEnd",
  "PreSkillShellCommand"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type KnownHookEvent = typeof KNOWN_HOOK_EVENTS[number]

/**
 * Whether an event name has a typed input in `Hook`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownHookEvent = (name: string): name is KnownHookEvent =>
  (KNOWN_HOOK_EVENTS as ReadonlyArray<string>).includes(name)
