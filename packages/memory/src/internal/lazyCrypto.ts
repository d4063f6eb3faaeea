/**
 * `node:crypto`, loaded on first use: of the builtins the hook needs it is by far the costliest
 * to load, and most hook calls (every tool event) never use it.
 */
import type * as Crypto from "node:crypto"
import { createRequire } from "node:module"

let loaded: typeof Crypto | undefined

/** The `node:crypto` module (loaded now if it was not yet). */
export const crypto = (): typeof Crypto => (loaded ??= createRequire(import.meta.url)("node:crypto") as typeof Crypto)
