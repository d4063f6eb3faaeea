/**
 * What `acx chat` takes: the types of its options, which the command (`../chat.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */
import type { permissionModes } from "../../table/options.js"

/**
 * What `acx chat` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ChatOptions {
  readonly resume: string | undefined
  readonly model: string | undefined
  readonly store: string | undefined
  readonly cwd: string | undefined
  readonly allowedTools: string | undefined
  readonly permissionMode: typeof permissionModes[number] | undefined
}
