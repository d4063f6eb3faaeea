/**
 * The optional peers of `@acx/testing`, loaded only by the kits that need them, so that
 * `import "@acx/testing"` works in a plain script where neither vitest nor the SDK is installed.
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { createRequire } from "node:module"
import type * as Vitest from "vitest"

const missing = (name: string, what: string, cause: unknown): Error =>
  new Error(`@acx/testing: ${what} needs the package ${name}: install it (npm install --save-dev ${name})`, { cause })

/**
 * vitest's suite registration, loaded synchronously when a suite is registered (suites must be
 * registered while the test file is collected). It is the runner vitest itself runs on:
 * Node's `require` of an ES module shares the instance `import` loaded.
 */
export const requireRunner = (
  what: string
): Pick<typeof Vitest, "afterAll" | "beforeAll" | "describe" | "it"> => {
  try {
    const vitestEntry = createRequire(import.meta.url).resolve("vitest")
    return createRequire(vitestEntry)("@vitest/runner")
  } catch (cause) {
    throw missing("vitest", what, cause)
  }
}

/** vitest itself (for `expect`), once tests run. */
export const loadVitest = (): Promise<typeof Vitest> =>
  import("vitest").catch((cause: unknown) => Promise.reject(missing("vitest", "the SessionStore kits", cause)))

/** The Claude Agent SDK (for `foldSessionSummary`, the fold every store's summary must equal). */
export const loadSdk = (): Promise<typeof Sdk> =>
  import("@anthropic-ai/claude-agent-sdk").catch((cause: unknown) =>
    Promise.reject(missing("@anthropic-ai/claude-agent-sdk", "the SessionStore kits", cause))
  )
