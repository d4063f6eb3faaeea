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
 * override is not applied either.
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
