/**
 * Which Claude Code config directory a reading command reads: `--config-dir`, else
 * `$CLAUDE_CONFIG_DIR`, else `~/.claude`, with `~` expanded and made absolute. Without Effect:
 * the Effect layer (`source.ts`) and the plain commands (`listingWords.ts`) resolve it here.
 */
import * as os from "node:os"
import * as path from "node:path"

type Env = { readonly [name: string]: string | undefined }

/** The home directory of `env`: its `$HOME`, as `os.homedir()` reads the process's, else the user's. */
export const homeDir = (env: Env): string => {
  const home = env["HOME"]
  return home !== undefined && home !== "" ? home : os.homedir()
}

const expandHome = (dir: string, env: Env): string =>
  dir === "~" ? homeDir(env) : dir.startsWith("~/") ? homeDir(env) + dir.slice(1) : dir

/** The directory as given (`dir`) and resolved (`resolved`, against `cwd`). */
export const configDirOf = (
  option: string | undefined,
  env: Env = process.env,
  cwd: string = process.cwd()
): { readonly dir: string; readonly resolved: string } => {
  const dir = option ?? env["CLAUDE_CONFIG_DIR"] ?? "~/.claude"
  return { dir, resolved: path.resolve(cwd, expandHome(dir, env)) }
}
