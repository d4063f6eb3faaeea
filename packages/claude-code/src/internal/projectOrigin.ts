/**
 * `ProjectOrigin`'s reading, without Effect: the plain functions the module exports (and wraps in
 * Effect for `projectOf`/`projectsOf`), imported from here by readers that must start without
 * Effect (`PlainListing`, the CLI's config-directory reads).
 *
 * @internal
 */
import * as ProjectIdentity from "@acx/convert/ProjectIdentity"
import * as OriginNames from "@acx/session-store/OriginNames"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * @since 0.3.0
 * @category models
 */
export interface Origin {
  readonly machine: string
  readonly user: string
}

const MAX_CONFIG_BYTES = 256 * 1024
const MAX_DEPTH = 128

const readSmall = (file: string): string | undefined => {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    if (!fs.fstatSync(fd).isFile()) return undefined
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES)
    const read = fs.readSync(fd, buffer, 0, MAX_CONFIG_BYTES, 0)
    return buffer.subarray(0, read).toString("utf8")
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

const kindOf = (file: string): "dir" | "file" | undefined => {
  try {
    const stat = fs.statSync(file)
    return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : undefined
  } catch {
    return undefined
  }
}

// The config of the repository whose `.git` is at `dotGit`.
const configOf = (dotGit: string): string | undefined => {
  const kind = kindOf(dotGit)
  if (kind === "dir") return readSmall(path.join(dotGit, "config"))
  if (kind !== "file") return undefined
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? "")
  if (pointer === null) return undefined
  const gitDir = path.resolve(path.dirname(dotGit), pointer[1]!)
  const common = readSmall(path.join(gitDir, "commondir"))?.trim()
  return readSmall(path.join(common === undefined || common === "" ? gitDir : path.resolve(gitDir, common), "config"))
}

/**
 * The remote URL of the repository `cwd` is in (see `ProjectIdentity.remoteUrlOf`), if any.
 *
 * @since 0.3.0
 * @category identity
 */
export const remoteUrlOf = (cwd: string): string | undefined => {
  if (!path.isAbsolute(cwd)) return undefined
  let dir = path.resolve(cwd)
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const dotGit = path.join(dir, ".git")
    if (kindOf(dotGit) !== undefined) {
      const config = configOf(dotGit)
      return config === undefined ? undefined : ProjectIdentity.remoteUrlOf(config)
    }
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return undefined
}

/**
 * The project a working directory belongs to, as one string (`ProjectIdentity.format`): the
 * normalised remote of its repository, else the directory.
 *
 * @since 0.5.0
 * @category identity
 */
export const projectOfDirectory = (cwd: string): string =>
  ProjectIdentity.format(ProjectIdentity.identify({ path: cwd, remoteUrl: remoteUrlOf(cwd) }))

/**
 * The project of each session (by `projectKey/sessionId`): {@link projectOfDirectory} its working
 * directory, read once per directory; the project key when the transcript names none.
 *
 * @since 0.5.0
 * @category identity
 */
export const projectsOfSessions = (
  sessions: ReadonlyArray<
    { readonly projectKey: string; readonly sessionId: string; readonly cwd?: string | undefined }
  >
): Map<string, string> => {
  const byCwd = new Map<string, string>()
  const projects = new Map<string, string>()
  for (const session of sessions) {
    const cwd = session.cwd
    let project = cwd === undefined ? session.projectKey : byCwd.get(cwd)
    if (project === undefined && cwd !== undefined) {
      project = projectOfDirectory(cwd)
      byCwd.set(cwd, project)
    }
    projects.set(`${session.projectKey}/${session.sessionId}`, project ?? session.projectKey)
  }
  return projects
}

/**
 * The origins of sessions listed from this machine's config directory, by `projectKey/sessionId`:
 * `local`'s machine (as stores keep its name, `OriginNames.machineName`) and user, each
 * session's project from its working directory ({@link projectsOfSessions}). Without Effect:
 * `StatsOrigins.ofProjects` and `PlainListing.sessionsListing` give these.
 *
 * @since 0.5.0
 * @category identity
 */
export const originsOfSessions = (
  sessions: ReadonlyArray<
    { readonly projectKey: string; readonly sessionId: string; readonly cwd?: string | undefined }
  >,
  local: Origin = localOrigin()
): Map<string, Origin & { readonly project: string }> => {
  const machine = OriginNames.machineName(local.machine)
  return new Map(
    [...projectsOfSessions(sessions)].map(([key, project]) => [key, { machine, user: local.user, project }])
  )
}

/**
 * This machine and user, unless named: the hostname and the OS user's name (`$USER` where the
 * user database has none, else `unknown`).
 *
 * @since 0.3.0
 * @category identity
 */
export const localOrigin = (
  named: { readonly machine?: string | undefined; readonly user?: string | undefined } = {}
): Origin => {
  let user = named.user
  if (user === undefined) {
    try {
      user = os.userInfo().username
    } catch {
      user = process.env["USER"] ?? process.env["USERNAME"] ?? "unknown"
    }
  }
  return { machine: named.machine ?? os.hostname(), user }
}
