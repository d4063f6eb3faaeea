/**
 * A config directory's transcripts listed without Effect, synchronously, for the CLI's plain
 * commands (`acx sessions`, `acx stats`) and the unchanged-sync check: the main transcripts
 * `ClaudeProjects.listSessionFiles` lists, in its order, with their size and mtime, and the
 * subagent transcripts `listSubagents` walks to, in its order, and every file an import reads
 * (`importFiles`: the transcripts and the subagents' metadata). Both list by the one walk of the
 * tree (`ConfigTree`: `ClaudeProjects` wraps it in Effect). A test keeps both listings equal on
 * the fixtures and on trees with links, FIFOs and odd names.
 *
 * `sessionsListing` (what `acx sessions` prints) and `walkedTranscripts` (what `acx stats` folds)
 * answer every case: the paths left out with their words (`ListingWarnings.skippedWarning` prints
 * them), `--project`, `--follow-symlinks`, and the failure that stops it;
 * `ClaudeProjects.listSessions` calls the same `walkedSessions`. `listSessions`, `listTranscripts`
 * and `importFiles` answer only for plain trees (no symbolic link resolved, no path left out, no
 * failure; else `undefined`): the unchanged-sync check (`UnchangedSync`) hands a linked tree to the
 * full sync, which resolves it under its lock.
 *
 * @since 0.4.0
 */
import { exceedsDepth } from "@acx/schema/JsonDepth"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ConfigTree from "./ConfigTree.js"
import * as ProjectOrigin from "./internal/projectOrigin.js"
import * as ProjectRows from "./internal/projectRows.js"
import * as ListingRows from "./ListingRows.js"
import * as SessionIndexCache from "./SessionIndexCache.js"
import type * as SessionInfo from "./SessionInfo.js"

/**
 * A main transcript as `ClaudeProjects` lists it, with what `stat` said.
 *
 * @since 0.4.0
 * @category models
 */
export interface PlainSession {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  /** Size in bytes. */
  readonly size: number
  /** Epoch milliseconds (whole: a `Date`'s). */
  readonly mtime: number
}

/**
 * A transcript to fold: a session's main transcript or one of its subagents'
 * (`TranscriptFolds.TranscriptFile`'s shape).
 *
 * @since 0.4.0
 * @category models
 */
export interface PlainTranscript {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  readonly kind: "main" | "subagent"
}

// Thrown to say "not certain": caught at the top, where it becomes `undefined`.
class Unsure extends Error {}

/**
 * `list` over the one walk of the tree (`ConfigTree`, which `ClaudeProjects` lists
 * through), when it is certain: it met no symbolic link, left no path out (each is a warning on
 * the full path) and did not fail. `undefined` otherwise.
 */
const certain = <A>(
  configDir: string,
  list: (walk: ConfigTree.Walk) => A,
  cacheDir?: string | undefined
): A | undefined => {
  try {
    const walk = ConfigTree.walkOf(configDir, false, cacheDir)
    const result = list(walk)
    ConfigTree.saveIndex(walk)
    return walk.skipped.length === 0 && walk.links === 0 ? result : undefined
  } catch {
    return undefined
  }
}

const sessionsOf = (walk: ConfigTree.Walk): Array<PlainSession> =>
  ConfigTree.listedSessions(walk, undefined).map(({ file, mtime, projectKey, sessionId, size }) => ({
    projectKey,
    sessionId,
    file,
    size,
    mtime
  }))

const subagentFiles = (
  walk: ConfigTree.Walk,
  session: { readonly projectKey: string; readonly sessionId: string }
): Array<string> =>
  // joined as the walk joins (its names hold no separator): `path.join` normalises each of 20 000 again
  ConfigTree.subagentsUnder(
    walk,
    [walk.projectsDir, session.projectKey, session.sessionId, "subagents"].join(path.sep)
  )
    .map((agent) => agent.file)

/**
 * The main transcripts under `<configDir>/projects` (resolved), every project's, in
 * `ClaudeProjects.listSessionFiles`' order; `undefined` when not certain (see the module doc).
 *
 * @since 0.4.0
 * @category listing
 */
export const listSessions = (configDir: string): Array<PlainSession> | undefined => certain(configDir, sessionsOf)

/**
 * Every transcript `SessionStats.transcriptFiles` folds for the whole config directory: each
 * session's main transcript, then its subagents'; `undefined` when not certain.
 *
 * @since 0.4.0
 * @category listing
 */
export const listTranscripts = (configDir: string): Array<PlainTranscript> | undefined =>
  certain(configDir, (walk) => walkedTranscripts(walk, undefined))

/**
 * Every transcript `SessionStats.transcriptFiles` folds over `walk`, of one project (`projectKey`;
 * its directory must exist, else a `ConfigTree.TreeFailure` is thrown) or of every one: each
 * session's main transcript, then its subagents'. What the walk left out is in `walk.skipped`.
 *
 * @since 0.6.0
 * @category listing
 */
export const walkedTranscripts = (walk: ConfigTree.Walk, projectKey: string | undefined): Array<PlainTranscript> =>
  ConfigTree.listedSessions(walk, projectKey).flatMap((session): Array<PlainTranscript> => {
    const { file, projectKey, sessionId } = session
    return [
      { projectKey, sessionId, file, kind: "main" },
      ...subagentFiles(walk, session).map((agent) => ({
        projectKey,
        sessionId,
        file: agent,
        kind: "subagent" as const
      }))
    ]
  })

/**
 * The largest subagent `agent-<id>.meta.json` read (Claude Code writes a few hundred bytes); a
 * larger one is no metadata.
 *
 * @since 0.4.0
 * @category metadata
 */
export const META_BYTES = 1024 * 1024

/**
 * A subagent's metadata from its `.meta.json` text: a JSON object nested no deeper than a line
 * may be (`JsonDepth`), else `undefined` (no metadata). `ClaudeProjects.listSubagents` reads it so.
 *
 * @since 0.4.0
 * @category metadata
 */
export const metaOfText = (text: string): Record<string, unknown> | undefined => {
  if (exceedsDepth(text)) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : undefined
  } catch {
    return undefined
  }
}

/**
 * A file an import reads, as its ledger names it: relative to the projects directory,
 * `/`-separated, with what `stat` said.
 *
 * @since 0.4.0
 * @category models
 */
export interface PlainFile {
  readonly name: string
  readonly size: number
  /** Epoch milliseconds (whole: a `Date`'s). */
  readonly mtime: number
  /** What the import reads it as: a session's transcript, a subagent's, or a subagent's `.meta.json`. */
  readonly kind: "main" | "subagent" | "meta"
  /** The file itself: `projectsDir` joined with the name's segments. */
  readonly path: string
}

/**
 * What `ClaudeImport.importClaudeDir` goes over in a whole config directory: its sessions, their
 * subagent transcripts, and every file it would read when changed (each main transcript, each
 * subagent transcript, and the `.meta.json` of each subagent whose metadata is valid).
 *
 * @since 0.4.0
 * @category models
 */
export interface PlainImport {
  readonly sessions: ReadonlyArray<{ readonly projectKey: string; readonly sessionId: string }>
  readonly subagents: number
  readonly files: ReadonlyArray<PlainFile>
}

const statFile = (file: string): { readonly size: number; readonly mtime: number } => {
  const stat = fs.statSync(file)
  if (!stat.isFile()) throw new Unsure()
  return { size: stat.size, mtime: stat.mtime.getTime() }
}

// The metadata file of a subagent as an import reads it: absent (or too large, or invalid) is no
// metadata; anything but a regular file (a FIFO the walk left out) is not certain here.
const metaFile = (file: string): { readonly size: number; readonly mtime: number } | undefined => {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(file)
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw new Unsure()
  }
  if (!stat.isFile()) throw new Unsure()
  if (stat.size > META_BYTES) return undefined
  if (metaOfText(fs.readFileSync(file, "utf8")) === undefined) return undefined
  return statFile(file)
}

/**
 * Every file an import of the whole config directory reads (see {@link PlainImport}), in the
 * import's order: each session's transcript, then each of its subagents' transcript followed by
 * that subagent's metadata; `undefined` when not certain. With `cacheDir` (`$ACX_HOME/cache`), the
 * walk lists through the project index kept there (`ProjectIndex`).
 *
 * @since 0.4.0
 * @category listing
 */
export const importFiles = (configDir: string, cacheDir?: string | undefined): PlainImport | undefined =>
  certain(configDir, (walk) => {
    const projectsDir = walk.projectsDir
    // every path here is `projectsDir` joined with names (`path.relative` resolves each anew)
    const name = (file: string) => file.slice(projectsDir.length + 1).split(path.sep).join("/")
    const files: Array<PlainFile> = []
    const sessions: Array<{ readonly projectKey: string; readonly sessionId: string }> = []
    let subagents = 0
    for (const session of sessionsOf(walk)) {
      const { file, mtime, projectKey, sessionId, size } = session
      sessions.push({ projectKey, sessionId })
      files.push({ name: name(file), size, mtime, kind: "main", path: file })
      for (const agent of subagentFiles(walk, session)) {
        subagents++
        files.push({ name: name(agent), ...statFile(agent), kind: "subagent", path: agent })
        const meta = agent.slice(0, -".jsonl".length) + ".meta.json"
        const metaStat = metaFile(meta)
        if (metaStat !== undefined) files.push({ name: name(meta), ...metaStat, kind: "meta", path: meta })
      }
    }
    return { sessions, subagents, files }
  }, cacheDir)

/**
 * A listed file with the key its entries are stored under: the session's for its transcript, the
 * session's and the subpath for a subagent's transcript and metadata (its path under the
 * session's directory without the extension, as `ClaudeImport` keys it).
 *
 * @since 0.4.0
 * @category models
 */
export interface KeyedFile extends PlainFile {
  readonly key: {
    readonly projectKey: string
    readonly sessionId: string
    readonly subpath?: string
  }
}

/**
 * One session of an import listing: its transcript, then each subagent's transcript and
 * metadata, keyed (see {@link KeyedFile}), and how many subagents it has.
 *
 * @since 0.4.0
 * @category models
 */
export interface SessionFiles {
  readonly session: { readonly projectKey: string; readonly sessionId: string }
  readonly subagents: number
  readonly files: ReadonlyArray<KeyedFile>
}

/**
 * An import listing's files by session, in its order.
 *
 * @since 0.4.0
 * @category listing
 */
export const bySession = (listing: PlainImport): Array<SessionFiles> => {
  const groups: Array<{ session: SessionFiles["session"]; subagents: number; files: Array<KeyedFile> }> = []
  for (const file of listing.files) {
    const [projectKey, name, ...under] = file.name.split("/")
    if (file.kind === "main") {
      const session = { projectKey: projectKey!, sessionId: name!.slice(0, -".jsonl".length) }
      groups.push({ session, subagents: 0, files: [{ ...file, key: session }] })
      continue
    }
    // a subagent's files follow its session's transcript
    const group = groups.at(-1)!
    const subpath = under.join("/").slice(0, file.kind === "meta" ? -".meta.json".length : -".jsonl".length)
    if (file.kind === "subagent") group.subagents++
    group.files.push({ ...file, key: { ...group.session, subpath } })
  }
  return groups
}

/**
 * What stops a listing of sessions: `ClaudeProjectsError`'s reason and description (without the
 * operation): a project asked for that is not there, an invalid project key, a directory or a
 * transcript the file system failed on.
 *
 * @since 0.5.0
 * @category sessions
 */
export interface ListingFailure {
  readonly reason: ConfigTree.TreeFailure["reason"]
  readonly description: string
  readonly cause?: unknown
}

/**
 * The sessions of a walk with their listing metadata (`ClaudeProjects.listSessions`' answer, in
 * the walk's order), and the paths left out on the way, in the order met: the walk's, then the
 * transcripts listed but not read (`Unreadable`).
 *
 * @since 0.5.0
 * @category sessions
 */
export type WalkedSessions =
  | {
    readonly sessions: Array<SessionInfo.SessionInfo>
    readonly skipped: ReadonlyArray<ConfigTree.Skipped>
    readonly failure?: undefined
  }
  | { readonly skipped: ReadonlyArray<ConfigTree.Skipped>; readonly failure: ListingFailure }

/**
 * The sessions of one project (`projectKey`; its directory must exist) or of every project, over
 * `walk`, with their metadata from the index (`SessionIndexCache.indexFiles`: cached, resumed or
 * read, the cache saved). `ClaudeProjects.listSessions` is this, wrapped in Effect.
 *
 * @since 0.5.0
 * @category sessions
 */
export const walkedSessions = (
  walk: ConfigTree.Walk,
  projectKey: string | undefined,
  index: SessionIndexCache.IndexOptions,
  found: Array<ConfigTree.TreeSession> | ListingFailure = listed(walk, projectKey)
): WalkedSessions => {
  if (!Array.isArray(found)) return { skipped: walk.skipped, failure: found }
  const under = projectKey === undefined ? undefined : path.join(walk.projectsDir, projectKey)
  const run = SessionIndexCache.indexFiles(index, found, under)
  if (run.failure !== undefined) {
    const { cause, file } = run.failure
    return { skipped: walk.skipped, failure: { reason: "Io", description: `I/O error: ${file}`, cause } }
  }
  const unread = run.unread.map(({ description, file }): ConfigTree.Skipped => ({
    path: file,
    reason: "Unreadable",
    description
  }))
  return {
    sessions: found.map((session, i) => ({ ...session, ...run.metadata[i] })),
    skipped: [...walk.skipped, ...unread]
  }
}

// The sessions of the walk, or the failure that stops it.
const listed = (
  walk: ConfigTree.Walk,
  projectKey: string | undefined
): Array<ConfigTree.TreeSession> | ListingFailure => {
  try {
    return ConfigTree.listedSessions(walk, projectKey)
  } catch (cause) {
    if (!(cause instanceof ConfigTree.TreeFailure)) throw cause
    return { reason: cause.reason, description: cause.description, cause: cause.cause }
  }
}

/**
 * Where {@link sessionsListing} lists: one project (`project`, a project key) or every one,
 * following symbolic links out of the config directory or not, caching metadata in `cacheDir`
 * (`$ACX_HOME/cache`; absent: no cache).
 *
 * @since 0.5.0
 * @category sessions
 */
export interface SessionsListingOptions {
  readonly project?: string | undefined
  readonly followSymlinks?: boolean | undefined
  readonly cacheDir?: string | undefined
  readonly limits?: SessionIndexCache.IndexOptions["limits"]
  /** At most this many rows, the last active first (`acx sessions --limit`). */
  readonly limit?: number | undefined
  /**
   * Whether the caller keeps what it would print for the walk's digest (see
   * {@link sessionsListing}): then nothing past the walk is read.
   */
  readonly keeps?: ((digest: string) => boolean) | undefined
  /**
   * The build of the code that makes rows (the CLI's). With `cacheDir`, the listing keeps each
   * project's rows for it (see {@link sessionsListing}).
   */
  readonly build?: string | undefined
  /**
   * With `build`: called with the rows as they become certain, in order (the projects are checked
   * newest first; see `projectRowsOf`), before the last project is checked when the kept heads
   * allow. The rows returned are these, all of them.
   */
  readonly onRows?: ((rows: ReadonlyArray<ListingRows.ListedSession>) => void) | undefined
  /** With `build`: called before each project's rows are checked (tests hold a run there). */
  readonly onProject?: ((projectKey: string) => void) | undefined
}

/**
 * A digest of what a listing's rows are made of, from its walk alone: each transcript's path,
 * size and mtime as the walk's `stat` said them (the listing cache's own key), the cache's
 * version and the project asked for. Equal digests mean equal rows, as long as the code that
 * makes them is the same (the caller keys on its build). `undefined` without an index (the
 * walk's stats), or when the walk left a path out or met a link (their warnings are the full
 * listing's to say).
 *
 * @since 0.7.0
 * @category sessions
 */
export const listingDigest = (
  walk: ConfigTree.Walk,
  found: ReadonlyArray<ConfigTree.TreeSession>,
  projectKey: string | undefined
): string | undefined => {
  const stats = walk.stats
  if (stats === undefined || walk.skipped.length > 0 || walk.links > 0) return undefined
  const hash = createHash("sha256").update(JSON.stringify([SessionIndexCache.VERSION, walk.projectsDir, projectKey]))
  for (const session of found) {
    const stat = stats.get(session.file)
    if (stat === undefined) return undefined
    hash.update(`\n${session.file}\0${stat.size}\0${stat.mtimeMs}`)
  }
  return hash.digest("hex")
}

/**
 * What `acx sessions` prints for a config directory: its `rows` (`ListingRows.rows`, each
 * project from its working directory, this machine's), the paths left out with their words
 * (each warned about once: `ListingWarnings.skippedWarning`), or the `failure` that stops it;
 * and the walk's `digest` ({@link listingDigest}), under which the caller may keep what it
 * printed. When `options.keeps` says the caller keeps output for that digest, the listing stops
 * after the walk (`kept`: no row read). With `build` and `cacheDir`, each project's rows are kept
 * (`internal/projectRows.ts`): only the projects that changed are indexed and built again, and
 * the projects are checked newest first, their rows handed to `onRows` as they become certain.
 * `configDir` is absolute and exists.
 *
 * @since 0.5.0
 * @category sessions
 */
export const sessionsListing = (
  configDir: string,
  options: SessionsListingOptions = {}
): {
  readonly rows: Array<ListingRows.ListedSession>
  readonly skipped: ReadonlyArray<ConfigTree.Skipped>
  readonly failure?: ListingFailure | undefined
  readonly digest?: string | undefined
  readonly kept?: boolean | undefined
} => {
  const walk = ConfigTree.walkOf(configDir, options.followSymlinks === true, options.cacheDir)
  const cacheFile = options.cacheDir === undefined
    ? undefined
    : SessionIndexCache.cacheFileFor(options.cacheDir, walk.projectsDir)
  const found = listed(walk, options.project)
  // only for a caller that keeps what it prints (`acx sessions`' table)
  const digest = options.keeps !== undefined && Array.isArray(found)
    ? listingDigest(walk, found, options.project)
    : undefined
  if (digest !== undefined && options.keeps?.(digest) === true) {
    ConfigTree.saveIndex(walk)
    return { rows: [], skipped: [], digest, kept: true }
  }
  if (options.build !== undefined && options.cacheDir !== undefined && Array.isArray(found)) {
    const byProject = ProjectRows.projectRowsOf(walk, found, {
      ...options,
      cacheDir: options.cacheDir,
      build: options.build
    })
    ConfigTree.saveIndex(walk)
    const skipped = distinct(byProject.skipped)
    if (byProject.failure !== undefined) return { rows: [], skipped, failure: byProject.failure, digest }
    return { rows: byProject.rows, skipped, digest }
  }
  const walked = walkedSessions(walk, options.project, {
    projectsDir: walk.projectsDir,
    cacheFile,
    limits: options.limits
  }, found)
  ConfigTree.saveIndex(walk)
  const skipped = distinct(walked.skipped)
  if (walked.failure !== undefined) return { rows: [], skipped, failure: walked.failure, digest }
  const origins = ProjectOrigin.originsOfSessions(walked.sessions)
  return { rows: ListingRows.rows(walked.sessions, origins, options.limit), skipped, digest }
}

// each path left out said once, in the order met
const distinct = (skipped: ReadonlyArray<ConfigTree.Skipped>): Array<ConfigTree.Skipped> => {
  const seen = new Set<string>()
  return skipped.filter((item) => !seen.has(item.path) && seen.add(item.path) !== undefined)
}
