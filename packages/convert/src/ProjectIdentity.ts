/**
 * Who a project is across machines. Claude Code names a project by the path it ran in
 * (`ProjectDir`), so the same repository cloned to `/home/ana/app` and `/Users/bo/src/app` is two
 * projects, and two unrelated repositories both at `/home/dev/app` are one. acx names a project by
 * its git remote when its working directory is a repository with one, normalised so that every
 * spelling of one remote is one name, else by its path:
 *
 * - `git@github.com:org/repo.git`, `ssh://git@github.com:22/org/repo`, `https://github.com/org/repo`,
 *   `https://user:token@GitHub.com/org/repo.git/` and `git://github.com/org/repo` are all
 *   `github.com/org/repo`: the host lower-cased, the port, the user and any credentials dropped
 *   (a token in a remote URL never becomes part of a name), a trailing `.git` and `/` removed;
 * - a remote that is a local path or a `file:` URL names no shared project: the path is used;
 * - the remote is the repository's `origin`, else its first remote in the config file's order.
 *
 * Pure and total: any text in, a name or `undefined` out.
 *
 * @since 0.3.0
 */

/**
 * A project's identity: its normalised git remote, else the path it ran in.
 *
 * @since 0.3.0
 * @category models
 */
export type ProjectIdentity =
  | { readonly _tag: "Remote"; readonly remote: string }
  | { readonly _tag: "Path"; readonly path: string }

// `user@host:path` (scp-like syntax, what GitHub shows for ssh): no scheme, a colon before any slash
const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/

const cleanPath = (path: string): string | undefined => {
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".")
  if (segments.length === 0 || segments.some((segment) => segment === "..")) return undefined
  const last = segments.length - 1
  segments[last] = segments[last]!.replace(/\.git$/i, "")
  if (segments[last] === "") segments.pop()
  return segments.length === 0 ? undefined : segments.join("/")
}

const cleanHost = (host: string): string | undefined => {
  const lower = host.toLowerCase().replace(/\.$/, "")
  return /^[a-z0-9.-]+$/.test(lower) && lower !== "" && !lower.startsWith(".") ? lower : undefined
}

const joined = (host: string, path: string): string | undefined => {
  const h = cleanHost(host)
  const p = cleanPath(path)
  return h === undefined || p === undefined ? undefined : `${h}/${p}`
}

/**
 * The name of a git remote URL (`github.com/org/repo`), or `undefined` for one that names no
 * shared project (a local path, a `file:` URL, anything unparsable).
 *
 * @since 0.3.0
 * @category identity
 */
export const normaliseRemote = (url: string): string | undefined => {
  const text = url.trim()
  if (text === "" || /\s/.test(text)) return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)
  if (scheme !== null) {
    const kind = scheme[1]!.toLowerCase()
    if (!["ssh", "git", "http", "https", "git+ssh", "ssh+git"].includes(kind)) return undefined
    // `[user[:password]@]host[:port]/path[?query][#fragment]`, split by hand: this module is pure
    // (no platform URL), and a remote that climbs with `..` must be refused, not resolved away
    const rest = text.slice(scheme[0].length).replace(/[?#].*$/, "")
    const slash = rest.indexOf("/")
    if (slash === -1) return undefined
    const authority = rest.slice(0, slash)
    const hostAndPort = authority.slice(authority.lastIndexOf("@") + 1)
    const port = /:(\d*)$/.exec(hostAndPort)
    const host = port === null ? hostAndPort : hostAndPort.slice(0, port.index)
    let path: string
    try {
      path = decodeURIComponent(rest.slice(slash))
    } catch {
      return undefined
    }
    if (/(?:^|\/)\.\.?(?:\/|$)/.test(path)) return undefined
    return joined(host, path)
  }
  // a Windows drive (`C:\repo`, `C:/repo`) is a path, not a host
  if (/^[a-z]:[\\/]/i.test(text)) return undefined
  const scp = SCP_LIKE.exec(text)
  return scp === null ? undefined : joined(scp[1]!, scp[2]!)
}

/**
 * The URL of the remote that names a repository, read from the text of its git config: the
 * `url` of `[remote "origin"]`, else of the first `[remote "…"]` section with one.
 *
 * @since 0.3.0
 * @category identity
 */
export const remoteUrlOf = (config: string): string | undefined => {
  let section: string | undefined
  let first: string | undefined
  for (const raw of config.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = /^\[\s*remote\s+"((?:[^"\\]|\\.)*)"\s*\]/i.exec(line)
    if (header !== null) {
      section = header[1]!
      continue
    }
    if (line.startsWith("[")) {
      section = undefined
      continue
    }
    if (section === undefined) continue
    const url = /^url\s*=\s*(.*)$/i.exec(line)
    if (url === null) continue
    const value = unquote(url[1]!)
    if (section === "origin") return value
    first ??= value
  }
  return first
}

// A git config value: surrounding quotes removed, a trailing comment dropped
const unquote = (value: string): string => {
  const trimmed = value.trim()
  if (trimmed.startsWith("\"")) {
    const end = trimmed.indexOf("\"", 1)
    return end === -1 ? trimmed.slice(1) : trimmed.slice(1, end)
  }
  return trimmed.replace(/\s+[#;].*$/, "")
}

/**
 * A project's identity: the normalised remote when there is one that names a shared project,
 * else the path.
 *
 * @since 0.3.0
 * @category identity
 */
export const identify = (
  input: { readonly path: string; readonly remoteUrl?: string | undefined }
): ProjectIdentity => {
  const remote = input.remoteUrl === undefined ? undefined : normaliseRemote(input.remoteUrl)
  return remote === undefined ? { _tag: "Path", path: input.path } : { _tag: "Remote", remote }
}

/**
 * The identity as one string, as stores and listings keep it: the remote (`github.com/org/repo`)
 * or the path (always absolute, so the two never collide).
 *
 * @since 0.3.0
 * @category identity
 */
export const format = (identity: ProjectIdentity): string =>
  identity._tag === "Remote" ? identity.remote : identity.path
