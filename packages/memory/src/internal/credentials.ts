/**
 * Whether the observer has credentials to reach a model: read only, so `acx memory status` and
 * the page can say it without a worker (the worker copies the file: `observer.ts`).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { MemoryPaths } from "../MemoryConfig.js"

type Env = { readonly [name: string]: string | undefined }

const CREDENTIAL_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"] as const

/** The user's Claude Code credentials file (a subscription login). */
export const userCredentialsFile = (env: Env): string =>
  path.join(
    env["CLAUDE_CONFIG_DIR"] !== undefined && env["CLAUDE_CONFIG_DIR"] !== ""
      ? env["CLAUDE_CONFIG_DIR"]
      : path.join(env["HOME"] ?? os.homedir(), ".claude"),
    ".credentials.json"
  )

/**
 * Why the observer could not reach a model now (no key or token in the environment, no
 * credentials file of the user's or the observer's), or `undefined` when it could. Reads only:
 * what `acx memory status` and the page say without a worker running.
 */
export const missingCredentials = (files: MemoryPaths, env: Env): string | undefined => {
  if (CREDENTIAL_VARIABLES.some((name) => (env[name] ?? "") !== "")) return undefined
  const source = userCredentialsFile(env)
  if (fs.existsSync(source) || fs.existsSync(path.join(files.observerConfigDir, ".credentials.json"))) return undefined
  return `no credentials (no ${CREDENTIAL_VARIABLES.join(" / ")} and no ${source})`
}
