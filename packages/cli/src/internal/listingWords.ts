/**
 * The words of a listing, plain (no Effect): the config directory that is not one, where a
 * listing looked ("no sessions …"), and a `--project` that names no project. The plain commands
 * (`commands/sessions.ts`) and the Effect layer (`source.ts`) both say them from here.
 */
import * as path from "node:path"
import { configDirOf } from "./configDir.js"
import { projectLabel } from "./projectKey.js"

/**
 * The config directory `option` names (`--config-dir`, else `$CLAUDE_CONFIG_DIR` of `env`, else
 * `~/.claude`), resolved against `cwd`, or why it cannot be listed (not there, a file).
 */
export const configDirectory = (
  option: string | undefined,
  isDirectory: (resolved: string) => boolean | undefined,
  env: { readonly [name: string]: string | undefined } = process.env,
  cwd: string = process.cwd()
): { readonly resolved: string } | { readonly problem: string } => {
  const { dir, resolved } = configDirOf(option, env, cwd)
  const type = isDirectory(resolved)
  if (type === true) return { resolved }
  const what = type === undefined ? "not found" : "is a file, not a directory"
  return { problem: `Claude Code config directory ${what}: ${resolved}${dir === resolved ? "" : ` (from ${dir})`}` }
}

/** Where a listing looked, for "no sessions …": the project as the user named it, else every project. */
export const listingPlace = (projectsDir: string, projectKey: string | undefined, storeBacked: boolean): string =>
  projectKey === undefined
    ? `in ${projectsDir}`
    : storeBacked
    ? `for project ${projectLabel(projectKey)} in ${projectsDir}`
    : `for project ${projectLabel(projectKey)} (${path.join(projectsDir, projectKey)})`

/**
 * A listing's failure in the user's words: a `--project` with no directory is the path given
 * (`no sessions for project /srv/app (no directory …)`), one that escapes the projects directory
 * says so; any other failure keeps its description.
 */
export const failureWords = (
  projectsDir: string,
  projectKey: string | undefined,
  failure: { readonly reason: string; readonly description: string }
): string =>
  projectKey === undefined || (failure.reason !== "NotFound" && failure.reason !== "PathEscape")
    ? failure.description
    : failure.reason === "NotFound"
    ? `no sessions for project ${projectLabel(projectKey)} (no directory ${path.join(projectsDir, projectKey)})`
    : `--project ${
      JSON.stringify(projectKey)
    } is neither a project directory name under ${projectsDir} nor an absolute path`
