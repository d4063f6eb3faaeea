/**
 * Which Claude Code config directory a reading command reads: `--config-dir`, else
 * `$CLAUDE_CONFIG_DIR`, else `~/.claude`, with `~` expanded and made absolute. Without Effect:
 * the Effect layer (`source.ts`) and the plain commands (`listingWords.ts`) resolve it here.
 */
import * as os from "node:os"
import * as path from "node:path"

const expandHome = (dir: string): string =>
  dir === "~" ? os.homedir() : dir.startsWith("~/") ? os.homedir() + dir.slice(1) : dir

/** The directory as given (`dir`) and resolved (`resolved`). */
export const configDirOf = (
  option: string | undefined,
  env: { readonly [name: string]: string | undefined } = process.env
): { readonly dir: string; readonly resolved: string } => {
  const dir = option ?? env["CLAUDE_CONFIG_DIR"] ?? "~/.claude"
  return { dir, resolved: path.resolve(expandHome(dir)) }
}
