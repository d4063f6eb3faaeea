import * as os from "node:os"
import * as path from "node:path"

/**
 * acx's home directory: `ACX_HOME`, else `~/.acx` (the rule of `@acx/memory`'s `MemoryConfig`).
 *
 * @internal
 */
export const acxHome = (env: { readonly [key: string]: string | undefined } = process.env): string => {
  const home = env["ACX_HOME"]
  return home !== undefined && home !== "" ? path.resolve(home) : path.join(os.homedir(), ".acx")
}
