/**
 * What `--project` names: a project directory, from its name or the path a session ran in. Loads
 * without Effect (the fast read path takes `--project` too); `options.ts` wraps it as the option.
 */
import { projectDirName } from "@acx/convert/ProjectDir"
import * as fs from "node:fs"
import * as path from "node:path"

// The path each project directory name came from, for messages: the option's value stays the
// directory name every command takes, and "no sessions for project /srv/app" names what was typed.
const projectPaths = new Map<string, string>()

/** The project as the user named it: the path `--project` was given for `key`, else `key`. */
export const projectLabel = (key: string): string => projectPaths.get(key) ?? key

// Claude Code names a session's directory after realpath(cwd): a path through a symbolic link
// (macOS's /tmp, a linked checkout) names the same project as its target
const realPath = (value: string): string => {
  try {
    return fs.realpathSync(value)
  } catch {
    return value
  }
}

/**
 * The project directory `--project` names: an absolute path (or `.`, `./dir`, from the current
 * directory) is the working directory a session ran in, named as Claude Code names it (`CLAUDE_CODE_PROJECT_DIR_NAME` honoured, see
 * `ProjectDir.projectDirName`), so `--project "$PWD"` works; anything else is the directory name.
 */
export const projectKeyOf = (
  value: string,
  env: { readonly [name: string]: string | undefined } = process.env,
  cwd: string = process.cwd()
): string => {
  // `.` and `./dir` are paths too (no directory name Claude Code makes starts with a dot)
  if (!path.isAbsolute(value) && value !== "." && !value.startsWith("./")) return value
  const key = projectDirName(realPath(path.resolve(cwd, value)), env as NodeJS.ProcessEnv)
  projectPaths.set(key, value)
  return key
}
