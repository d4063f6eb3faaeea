/**
 * The name Claude Code gives a project's transcript directory under `<config>/projects/`.
 *
 * @since 0.1.0
 */

const MAX_NAME_LENGTH = 200

// The Java-style ×31 string hash the SDK folds over the original path (it calls it "djb2").
const pathHash = (path: string): number => {
  let hash = 0
  for (let index = 0; index < path.length; index++) {
    hash = (hash << 5) - hash + path.charCodeAt(index) | 0
  }
  return hash
}

/**
 * Encodes an absolute path as Claude Code's project-directory name: every UTF-16 code unit that
 * is not an ASCII letter or digit becomes `-`; a name longer than 200 characters is cut to 200
 * and suffixed with `-` and the base-36 absolute value of the ×31 hash of the original path.
 *
 * The path is used as given: the CLI and the SDK first apply `realpath(resolve(cwd))` (plus NFC
 * on macOS), which is I/O and therefore the caller's job. The `CLAUDE_CODE_PROJECT_DIR_NAME`
 * override is not applied either: {@link projectDirName} applies it.
 *
 * @example
 * ```ts
 * encodeProjectDir("/srv/app/my.proj") // "-srv-app-my-proj"
 * ```
 *
 * @since 0.1.0
 * @category project dirs
 */
export const encodeProjectDir = (absolutePath: string): string => {
  const name = absolutePath.replace(/[^a-zA-Z0-9]/g, "-")
  if (name.length <= MAX_NAME_LENGTH) return name
  return `${name.slice(0, MAX_NAME_LENGTH)}-${Math.abs(pathHash(absolutePath)).toString(36)}`
}

/**
 * The environment variable that names the `projects/` subdirectory of every session Claude Code
 * starts, whatever its working directory.
 *
 * @since 0.1.0
 * @category project dirs
 */
export const PROJECT_DIR_NAME_VARIABLE = "CLAUDE_CODE_PROJECT_DIR_NAME"

const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/
// names Windows reserves for devices: Claude Code refuses them on every platform
const RESERVED_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i

/**
 * Whether Claude Code takes `name` as a project-directory name: 1 to 64 ASCII letters, digits,
 * `_` or `-`, and not a Windows device name (`con`, `nul`, `com1`, …).
 *
 * @since 0.1.0
 * @category project dirs
 */
export const isValidProjectDirName = (name: string): boolean => VALID_NAME.test(name) && !RESERVED_NAME.test(name)

/**
 * An environment, as `process.env`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Environment {
  readonly [name: string]: string | undefined
}

/**
 * The project-directory name `CLAUDE_CODE_PROJECT_DIR_NAME` imposes in `env`, if any. Claude Code
 * honours it only when `CLAUDE_CONFIG_DIR` is set too (a config directory of the caller's own),
 * and only when the name is valid ({@link isValidProjectDirName}); otherwise it is ignored and
 * the path's encoding is used.
 *
 * @since 0.1.0
 * @category project dirs
 */
export const projectDirOverride = (env: Environment): string | undefined => {
  const configDir = env["CLAUDE_CONFIG_DIR"]
  const name = env[PROJECT_DIR_NAME_VARIABLE]
  if (configDir === undefined || configDir === "" || name === undefined) return undefined
  return isValidProjectDirName(name) ? name : undefined
}

/**
 * The `projects/` subdirectory Claude Code writes a session run in `absolutePath` to, under
 * `env`: the `CLAUDE_CODE_PROJECT_DIR_NAME` override when it applies
 * ({@link projectDirOverride}), else {@link encodeProjectDir} of the path. The one place acx
 * derives a project directory from a working directory.
 *
 * @example
 * ```ts
 * projectDirName("/srv/app", {}) // "-srv-app"
 * projectDirName("/srv/app", { CLAUDE_CONFIG_DIR: "/c", CLAUDE_CODE_PROJECT_DIR_NAME: "app" }) // "app"
 * ```
 *
 * @since 0.1.0
 * @category project dirs
 */
export const projectDirName = (absolutePath: string, env: Environment): string =>
  projectDirOverride(env) ?? encodeProjectDir(absolutePath)
