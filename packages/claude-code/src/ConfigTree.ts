/**
 * The one walk of a config directory's `projects` tree, without Effect (node:fs, synchronous):
 * its project directories, the main transcripts of each (with their size and mtime), and the
 * subagent transcripts under a session. `ClaudeProjects` lists through it (wrapped in Effect:
 * `projectsListing.ts`), and so does `PlainListing` (the readers that start without Effect).
 *
 * A path that is not what it should be is left out and recorded in the walk's `skipped`, with the
 * reason and the words a user reads: a directory named like a transcript, a FIFO or device, a
 * symbolic link resolving outside the config directory (unless links are followed), a file `stat`
 * cannot read, a directory the user may not list. What stops an operation is a
 * {@link TreeFailure}: a project asked for that is not there, an invalid project key, a
 * directory that cannot be listed for another reason.
 *
 * A directory is listed once per walk, and a directory its parent's listing does not name (a
 * session's `subagents` under a session with no directory) is not asked for. Given `$ACX_HOME/cache`
 * ({@link walkOf}), the walk lists through the project index (`ProjectIndex`): a directory whose
 * `stat` is what the index kept is not listed again, so a warm walk costs a `stat` per directory
 * it holds and per transcript (what every reader compares), not a `readdir` per session.
 *
 * @since 0.5.0
 */
import { isUuid } from "@acx/schema/Uuid"
import * as fs from "node:fs"
import * as path from "node:path"
import { isProjectKey, isSafeSegment } from "./internal/paths.js"
import { errorWords } from "./internal/regularFile.js"
import * as ProjectIndex from "./ProjectIndex.js"

/**
 * Why a listing leaves a path out (`ClaudeProjects.SkippedPath`'s reasons).
 *
 * @since 0.5.0
 * @category models
 */
export type SkipReason = "Directory" | "NotAFile" | "Symlink" | "Unreadable"

/**
 * A path a listing left out, and why in words.
 *
 * @since 0.5.0
 * @category models
 */
export interface Skipped {
  readonly path: string
  readonly reason: SkipReason
  readonly description: string
}

/**
 * What stops a listing: `ClaudeProjectsError`'s reason and description, without the operation.
 *
 * @since 0.5.0
 * @category errors
 */
export class TreeFailure extends Error {
  constructor(
    readonly reason: "NotFound" | "Io" | "PathEscape",
    readonly description: string,
    override readonly cause?: unknown
  ) {
    super(description)
  }
}

/**
 * One walk: where it is, and what it met on the way.
 *
 * @since 0.5.0
 * @category models
 */
export interface Walk {
  readonly configDir: string
  readonly projectsDir: string
  readonly followSymlinks: boolean
  /** The paths left out so far, in the order met. */
  readonly skipped: Array<Skipped>
  /** How many symbolic links were met (resolved, or followed). */
  links: number
  realConfigDir?: string
  /** The index the walk lists through (`ProjectIndex`): absent, every directory is listed. */
  readonly index?: ProjectIndex.ProjectIndex | undefined
  /**
   * The names in each directory listed so far (by path): a directory whose parent's listing (or,
   * when the parent is not there either, whose grandparent's) does not name it is not there, and
   * is not asked for (most sessions have no directory, so no `subagents` directory).
   */
  readonly listings: Map<string, ReadonlySet<string>>
  /**
   * With an index, what `stat` said of each main transcript the walk returned (by path, mtime in
   * fractional milliseconds): a warm read's digest takes them rather than `stat` each file again.
   */
  readonly stats?: Map<string, { readonly size: number; readonly mtimeMs: number }> | undefined
}

/**
 * A main transcript: where it is, with what `stat` said.
 *
 * @since 0.5.0
 * @category models
 */
export interface TreeSession {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  /** Epoch milliseconds (whole: a `Date`'s). */
  readonly mtime: number
  /** Size in bytes. */
  readonly size: number
}

/**
 * A walk of `<configDir>/projects` (`configDir` absolute); with `cacheDir` (`$ACX_HOME/cache`), it
 * lists through the project index kept there (`ProjectIndex`; {@link saveIndex} writes it back).
 *
 * @since 0.5.0
 * @category constructors
 */
export const walkOf = (configDir: string, followSymlinks = false, cacheDir?: string | undefined): Walk => {
  const projectsDir = path.join(configDir, "projects")
  return {
    configDir,
    projectsDir,
    followSymlinks,
    skipped: [],
    links: 0,
    listings: new Map(),
    ...(cacheDir === undefined ? {} : { index: ProjectIndex.open(cacheDir, projectsDir), stats: new Map() })
  }
}

/**
 * Writes back what the walk listed anew into its index (`ProjectIndex.save`: only the projects
 * that changed); nothing without an index.
 *
 * @since 0.7.0
 * @category constructors
 */
export const saveIndex = (walk: Walk): void => {
  if (walk.index !== undefined) ProjectIndex.save(walk.index)
}

// A directory's entry by name: the walk's directories are normalised already and a listed name
// holds no separator, so a join that normalises again (`path.join`: a tenth of a warm walk's
// time at 20 000 sessions) says nothing more.
const childOf = (dir: string, name: string): string => `${dir}${path.sep}${name}`

const skip = (walk: Walk, target: string, reason: SkipReason, description: string): void => {
  walk.skipped.push({ path: target, reason, description })
}

const code = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code

const byName = (a: ProjectIndex.Entry, b: ProjectIndex.Entry) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0

/**
 * A directory's entries by name; one that does not exist is empty unless it must exist, and one
 * the user may not read is skipped (it never stops the rest) unless it must exist. With an index,
 * a directory the index still holds is not listed again, and what is listed is kept in it.
 */
const listDir = (walk: Walk, dir: string, mustExist = false): ReadonlyArray<ProjectIndex.Entry> => {
  if (!mustExist && knownAbsent(walk, dir)) return []
  const index = walk.index
  let entries = index === undefined ? undefined : ProjectIndex.recall(index, dir)
  if (entries === undefined) {
    const stamp = index === undefined ? undefined : ProjectIndex.stampBefore(index, dir)
    entries = readDir(walk, dir, mustExist)
    if (index !== undefined && entries !== undefined) ProjectIndex.remember(index, dir, stamp, entries)
  }
  if (entries !== undefined) walk.listings.set(dir, new Set(entries.map((entry) => entry.name)))
  return entries ?? []
}

// Whether the listings of this walk say `dir` is not there: its parent's does not name it, or
// its parent is not there either by its grandparent's.
const knownAbsent = (walk: Walk, dir: string): boolean => {
  const parent = path.dirname(dir)
  const names = walk.listings.get(parent)
  if (names !== undefined) return !names.has(path.basename(dir))
  const above = walk.listings.get(path.dirname(parent))
  return above !== undefined && !above.has(path.basename(parent))
}

// `undefined`: not there (or not readable: skipped), when it need not exist.
const readDir = (walk: Walk, dir: string, mustExist: boolean): Array<fs.Dirent> | undefined => {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort(byName)
  } catch (cause) {
    if (!mustExist && code(cause) === "ENOENT") return undefined
    if (!mustExist && code(cause) === "EACCES") {
      skip(walk, dir, "Unreadable", errorWords(cause))
      return undefined
    }
    throw code(cause) === "ENOENT"
      ? new TreeFailure("NotFound", `not found: ${dir}`, cause)
      : new TreeFailure("Io", `I/O error: ${dir}: ${errorWords(cause)}`, cause)
  }
}

// Whether an entry is a symbolic link: its dirent says, unless the file system did not (DT_UNKNOWN).
const isLink = (entry: ProjectIndex.Entry | undefined, target: string): boolean => {
  if (entry !== undefined && (entry.isSymbolicLink() || entry.isFile() || entry.isDirectory())) {
    return entry.isSymbolicLink()
  }
  try {
    return fs.lstatSync(target).isSymbolicLink()
  } catch {
    return false
  }
}

/**
 * Whether `target` may be read: not a symbolic link resolving outside the config directory
 * (unless links are followed). Only a link pays for the resolution.
 */
const linkAllowed = (walk: Walk, target: string, entry?: ProjectIndex.Entry): boolean => {
  if (!isLink(entry, target)) return true
  walk.links++
  if (walk.followSymlinks) return true
  walk.realConfigDir ??= realOr(walk.configDir, walk.configDir)
  let real: string
  try {
    real = fs.realpathSync(target)
  } catch {
    return true
  }
  const rel = path.relative(walk.realConfigDir, real)
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return true
  skip(walk, target, "Symlink", `a symbolic link to ${real}, outside the config directory ${walk.configDir}`)
  return false
}

const realOr = (target: string, otherwise: string): string => {
  try {
    return fs.realpathSync(target)
  } catch {
    return otherwise
  }
}

// A file's type in the words of `@effect/platform`'s `File.Type`.
const typeOf = (stat: fs.Stats): string =>
  stat.isFile()
    ? "File"
    : stat.isDirectory()
    ? "Directory"
    : stat.isSymbolicLink()
    ? "SymbolicLink"
    : stat.isBlockDevice()
    ? "BlockDevice"
    : stat.isCharacterDevice()
    ? "CharacterDevice"
    : stat.isFIFO()
    ? "FIFO"
    : stat.isSocket()
    ? "Socket"
    : "Unknown"

const isDirectory = (target: string, entry?: ProjectIndex.Entry): boolean => {
  if (entry !== undefined && !entry.isSymbolicLink() && (entry.isDirectory() || entry.isFile())) {
    return entry.isDirectory()
  }
  try {
    return fs.statSync(target).isDirectory()
  } catch {
    return false
  }
}

/**
 * The project directories: safe names of directories (or links allowed to them), sorted.
 *
 * @since 0.5.0
 * @category walking
 */
export const projectKeys = (walk: Walk): Array<string> =>
  listDir(walk, walk.projectsDir).flatMap((entry) => {
    const name = entry.name
    if (!isProjectKey(name)) return []
    const dir = path.join(walk.projectsDir, name)
    return isDirectory(dir, entry) && linkAllowed(walk, dir, entry) ? [name] : []
  })

// A `<uuid>.jsonl` entry that is a readable regular file, with its size and mtime.
const checkTranscript = (walk: Walk, projectKey: string, entry: ProjectIndex.Entry): TreeSession | undefined => {
  const sessionId = entry.name.slice(0, -".jsonl".length)
  const file = childOf(childOf(walk.projectsDir, projectKey), entry.name)
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch (cause) {
    skip(walk, file, "Unreadable", `cannot be read: ${errorWords(cause)}`)
    return undefined
  }
  if (stat.isDirectory()) {
    skip(walk, file, "Directory", "a directory, not a transcript")
    return undefined
  }
  if (!stat.isFile()) {
    skip(walk, file, "NotAFile", `not a regular file (${typeOf(stat)})`)
    return undefined
  }
  if (!linkAllowed(walk, file, entry)) return undefined
  walk.stats?.set(file, { size: stat.size, mtimeMs: stat.mtimeMs })
  return { projectKey, sessionId, file, mtime: stat.mtime.getTime(), size: stat.size }
}

/**
 * The main transcripts of one project directory, in name order.
 *
 * @since 0.5.0
 * @category walking
 */
export const sessionsIn = (walk: Walk, projectKey: string, mustExist = false): Array<TreeSession> =>
  listDir(walk, path.join(walk.projectsDir, projectKey), mustExist).flatMap((entry) => {
    if (!entry.name.endsWith(".jsonl") || !isUuid(entry.name.slice(0, -".jsonl".length))) return []
    const found = checkTranscript(walk, projectKey, entry)
    return found === undefined ? [] : [found]
  })

/**
 * The sessions of one project (its directory must exist) or of every project.
 *
 * @since 0.5.0
 * @category walking
 */
export const listedSessions = (walk: Walk, projectKey: string | undefined): Array<TreeSession> => {
  if (projectKey === undefined) return projectKeys(walk).flatMap((key) => sessionsIn(walk, key))
  if (!isProjectKey(projectKey)) {
    throw new TreeFailure("PathEscape", `invalid project key: ${JSON.stringify(projectKey)}`)
  }
  const dir = path.join(walk.projectsDir, projectKey)
  if (!isDirectory(dir)) throw new TreeFailure("NotFound", `no project ${projectKey} in ${walk.projectsDir}`)
  if (!linkAllowed(walk, dir)) return []
  return sessionsIn(walk, projectKey, true)
}

// What a walk meets: a directory to descend into, a regular file, or nothing (skipped).
const entryKind = (walk: Walk, target: string, entry: ProjectIndex.Entry): "directory" | "file" | "skip" => {
  if (!linkAllowed(walk, target, entry)) return "skip"
  let type: string
  if (!entry.isSymbolicLink() && (entry.isDirectory() || entry.isFile())) {
    type = entry.isDirectory() ? "Directory" : "File"
  } else {
    try {
      type = typeOf(fs.statSync(target))
    } catch (cause) {
      skip(walk, target, "Unreadable", `cannot be read: ${errorWords(cause)}`)
      return "skip"
    }
  }
  if (type === "Directory") return "directory"
  if (type === "File") return "file"
  // a FIFO, socket or device is never opened: reading one would wait for a writer forever
  // named like what a listing reads (a transcript, a subagent's metadata): said
  if (target.endsWith(".jsonl") || target.endsWith(".meta.json")) {
    skip(walk, target, "NotAFile", `not a regular file (${type})`)
  }
  return "skip"
}

// The regular files under `dir`, depth first in name order; a directory met again through a
// link loop is walked once. The root's own real path matters only once the walk descends (most
// `subagents` directories hold files only): it is resolved then.
const walkFiles = (walk: Walk, dir: string, seen: Set<string>, root = false): Array<string> => {
  // listed first: most sessions have no subagents directory, and an empty listing needs no
  // resolution
  const entries = listDir(walk, dir)
  if (entries.length === 0) return []
  let resolved = !root
  if (!root) {
    const real = realOr(dir, dir)
    if (seen.has(real)) return []
    seen.add(real)
  }
  return entries.flatMap((entry) => {
    const full = childOf(dir, entry.name)
    const kind = entryKind(walk, full, entry)
    if (kind === "directory" && !resolved) {
      resolved = true
      seen.add(realOr(dir, dir))
    }
    return kind === "directory" ? walkFiles(walk, full, seen) : kind === "file" ? [full] : []
  })
}

/**
 * A subagent's transcript under a session's `subagents` directory.
 *
 * @since 0.5.0
 * @category models
 */
export interface TreeSubagent {
  readonly agentId: string
  readonly file: string
}

/**
 * The `agent-<agentId>.jsonl` files anywhere under `dir` (a session's `subagents` directory).
 *
 * @since 0.5.0
 * @category walking
 */
export const subagentsUnder = (walk: Walk, dir: string): Array<TreeSubagent> =>
  walkFiles(walk, dir, new Set(), true).flatMap((file) => {
    const match = /^agent-(.+)\.jsonl$/.exec(path.basename(file))
    return match !== null && isSafeSegment(match[1]) ? [{ agentId: match[1], file }] : []
  })
