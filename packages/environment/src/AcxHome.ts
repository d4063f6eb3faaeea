/**
 * acx's home directory (`ACX_HOME`, else `~/.acx`) and the one way acx creates things in it:
 * directories owner-only (0700) and files owner-only (0600), whatever the umask. Everything acx
 * keeps there can hold what a user typed or a tool printed (memory, agent sessions, caches of
 * transcripts), so nothing in it is readable by other users.
 *
 * Plain TypeScript over `node:fs`, no Effect: the hook bundle (`acx hook …`) uses it on every
 * tool call. The SQLite files: a database file made with {@link preparePrivateFile} before SQLite
 * opens it gives its `-wal`, `-shm` and journal files the same mode (SQLite creates them with the
 * main file's permissions).
 *
 * @since 0.2.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The mode of every directory acx creates under its home.
 *
 * @since 0.2.0
 * @category constants
 */
export const PRIVATE_DIRECTORY_MODE = 0o700

/**
 * The mode of every file acx writes under its home.
 *
 * @since 0.2.0
 * @category constants
 */
export const PRIVATE_FILE_MODE = 0o600

/**
 * The environment variable that moves acx's home.
 *
 * @since 0.1.0
 * @category constants
 */
export const ENV_VAR = "ACX_HOME"

/**
 * acx's home directory: `ACX_HOME` (resolved against the working directory), else `~/.acx`.
 * The one place that decides it.
 *
 * @since 0.2.0
 * @category paths
 */
export const acxHome = (env: { readonly [name: string]: string | undefined } = process.env): string => {
  const home = env[ENV_VAR]
  return home !== undefined && home !== "" ? path.resolve(home) : path.join(os.homedir(), ".acx")
}

/**
 * Everything acx keeps under its home, by name.
 *
 * @since 0.1.0
 * @category models
 */
export interface AcxPaths {
  readonly home: string
  /** Cached transcript folds (`acx stats`) and session listings. */
  readonly cache: string
  /** Prices per model, when the user set their own (`acx stats`, the web page). */
  readonly pricing: string
  /** The agent's default store and registry (`acx chat`, `AgentSession`). */
  readonly agentDatabase: string
  /** The memory's settings. */
  readonly config: string
  /** The memory's database. */
  readonly memoryDatabase: string
  /** The memory database's backups. */
  readonly backups: string
  /** Hook inputs that found the memory database locked, waiting for the worker. */
  readonly memorySpool: string
  /** The memory observer's private Claude config directory. */
  readonly observerConfigDir: string
  /** The memory observer's working directory. */
  readonly observerCwd: string
  /** The memory worker's log. */
  readonly memoryWorkerLog: string
  /** What `acx memory install` changed in Claude Code's settings, for `uninstall`. */
  readonly memoryInstallManifest: string
  /** `acx sync`'s default store: every session of the config dir, kept after Claude Code deletes it. */
  readonly sessionsDatabase: string
  /** `acx sync`'s locks, one directory per target and config dir (one sync of each at a time). */
  readonly syncLocks: string
  /** What `acx sync install` changed in Claude Code's settings, for `uninstall`. */
  readonly syncInstallManifest: string
  /** Where a sync started by a hook writes its output (it runs detached, with no terminal). */
  readonly syncLog: string
  /** What `acx statusline install` changed in Claude Code's settings (and the statusline it replaced). */
  readonly statuslineInstallManifest: string
  /** The quota readings the statusline recorded (`@acx/convert/QuotaReadings`). */
  readonly quotaReadings: string
}

/**
 * The named paths under a home (default {@link acxHome}). Computes names only; creates nothing.
 *
 * @since 0.1.0
 * @category paths
 */
export const paths = (home: string = acxHome()): AcxPaths => ({
  home,
  cache: path.join(home, "cache"),
  pricing: path.join(home, "pricing.json"),
  agentDatabase: path.join(home, "agent.db"),
  config: path.join(home, "config.json"),
  memoryDatabase: path.join(home, "memory.db"),
  backups: path.join(home, "backups"),
  memorySpool: path.join(home, "memory-spool"),
  observerConfigDir: path.join(home, "observer", "claude"),
  observerCwd: path.join(home, "observer", "work"),
  memoryWorkerLog: path.join(home, "memory-worker.log"),
  memoryInstallManifest: path.join(home, "memory-install.json"),
  sessionsDatabase: path.join(home, "sessions.db"),
  syncLocks: path.join(home, "sync"),
  syncInstallManifest: path.join(home, "sync-install.json"),
  syncLog: path.join(home, "sync.log"),
  statuslineInstallManifest: path.join(home, "statusline-install.json"),
  // `@acx/convert/QuotaReadings`' DIRECTORY and FILE (environment depends on no other package)
  quotaReadings: path.join(home, "quota", "readings.jsonl")
})

// A file or directory someone else owns (a shared ACX_HOME set up by an administrator) keeps its
// mode: acx tightens what it may, and never fails over it.
const tighten = (target: string, mode: number): void => {
  try {
    fs.chmodSync(target, mode)
  } catch {
    // not ours, or gone: nothing to tighten
  }
}

/**
 * Creates a directory and its missing parents owner-only (0700: `mkdir`'s mode is only narrowed
 * by the umask). A directory that exists keeps its mode. Returns the directory.
 *
 * @since 0.2.0
 * @category directories
 */
export const makePrivateDirectory = (dir: string): string => {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  return dir
}

/**
 * Creates acx's home owner-only, and tightens it to 0700 when it exists with a wider mode (an
 * older acx created it under the umask). Returns the directory.
 *
 * @since 0.2.0
 * @category directories
 */
export const makeHome = (home: string): string => {
  makePrivateDirectory(home)
  tighten(home, PRIVATE_DIRECTORY_MODE)
  return home
}

/**
 * Makes sure a file exists owner-only before something else opens it (SQLite): created empty
 * with mode 0600 when missing, tightened to 0600 when it exists; its SQLite companions
 * (`-wal`, `-shm`, `-journal`) that exist are tightened too. Its directory is created owner-only.
 *
 * @since 0.2.0
 * @category files
 */
export const preparePrivateFile = (file: string): void => {
  makePrivateDirectory(path.dirname(file))
  fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE))
  tightenPrivateFile(file)
}

/**
 * Tightens a file that exists, and its SQLite companions (`-wal`, `-shm`, `-journal`) that
 * exist, to 0600; creates nothing (for readers that must not create a database).
 *
 * @since 0.2.0
 * @category files
 */
export const tightenPrivateFile = (file: string): void => {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    if (fs.existsSync(`${file}${suffix}`)) tighten(`${file}${suffix}`, PRIVATE_FILE_MODE)
  }
}

/**
 * How large a log acx appends to may grow before it is rotated: 1 MiB.
 *
 * @since 0.3.0
 * @category files
 */
export const LOG_MAX_BYTES = 1024 * 1024

/**
 * Opens a log for appending, owner-only: created with mode 0600, tightened when it exists. A log
 * over `maxBytes` is first renamed to `<file>.1` (replacing an older one), so the logs the hooks'
 * detached processes write (`sync.log`, the memory worker's) never grow without bound: at most
 * twice `maxBytes` is kept. Returns the descriptor (the caller closes it).
 *
 * @since 0.2.0
 * @category files
 */
export const openPrivateAppend = (file: string, maxBytes: number = LOG_MAX_BYTES): number => {
  makePrivateDirectory(path.dirname(file))
  try {
    if (fs.statSync(file).size > maxBytes) fs.renameSync(file, `${file}.1`)
  } catch {
    // absent, or rotated by another process at the same moment: append to what is there
  }
  const fd = fs.openSync(file, "a", PRIVATE_FILE_MODE)
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE)
  } catch {
    // not ours: keep appending
  }
  return fd
}

let written = 0

/**
 * The name a file is written under before it is renamed into place: beside it (the same file
 * system), hidden, and unique to this process and write.
 *
 * @since 0.2.0
 * @category files
 */
export const temporaryNameFor = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${++written}.tmp`)

const TEMPORARY_NAME = /^\..+\.\d+\.\d+\.tmp$/

/**
 * Removes the temporary files ({@link temporaryNameFor}) in `dir` older than `olderThanMs`: what
 * a writer killed between its write and its rename leaves (`kill -9`, a power cut). Their writes
 * take milliseconds, so one older than a minute has no writer left; it may hold what the file it
 * stood for held (a spooled hook input), so it is not left behind. How many were removed; a
 * directory that cannot be read removes nothing.
 *
 * @since 0.3.0
 * @category files
 */
export const removeStaleTemporaries = (dir: string, olderThanMs = 60_000, now = Date.now()): number => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((name) => TEMPORARY_NAME.test(name))
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const file = path.join(dir, name)
    try {
      const stat = fs.lstatSync(file)
      if (!stat.isFile() || now - stat.mtimeMs < olderThanMs) continue
      fs.unlinkSync(file)
      removed++
    } catch {
      // renamed into place or removed meanwhile
    }
  }
  return removed
}

/**
 * Writes a file owner-only and atomically: the bytes go to a temporary file created with mode
 * 0600 (exclusively: never through someone's link), which is then renamed over the target.
 * Readers see the old file or the new one, never a part. The directory is created owner-only.
 *
 * @since 0.2.0
 * @category files
 */
export const writePrivateFile = (file: string, data: string | Uint8Array): void => writePrivateFileParts(file, [data])

// text parts are gathered up to this many characters per write
const PART_WRITE = 1024 * 1024

/**
 * {@link writePrivateFile} of data given in parts, written one after another: a large file (the
 * statistics cache of 20 000 sessions, 65 MB) is never held whole as one string and its bytes.
 *
 * @since 0.7.0
 * @category files
 */
export const writePrivateFileParts = (file: string, parts: Iterable<string | Uint8Array>): void => {
  const writer = privateFileWriter(file)
  try {
    for (const part of parts) writer.write(part)
  } catch (error) {
    writer.abort()
    throw error
  }
  writer.commit()
}

/**
 * A file being written as {@link writePrivateFile} writes it, part by part as the caller has
 * them: `commit` puts it in place, `abort` (or a failed `commit`) leaves the old one.
 *
 * @since 0.7.0
 * @category files
 */
export interface PrivateFileWriter {
  readonly write: (part: string | Uint8Array) => void
  readonly commit: () => void
  readonly abort: () => void
}

/**
 * Starts writing `file` owner-only and atomically ({@link PrivateFileWriter}).
 *
 * @since 0.7.0
 * @category files
 */
export const privateFileWriter = (file: string): PrivateFileWriter => {
  makePrivateDirectory(path.dirname(file))
  const temporary = temporaryNameFor(file)
  const fd = fs.openSync(temporary, "wx", PRIVATE_FILE_MODE)
  let open = true
  let pending: Array<string> = []
  let size = 0
  const flush = () => {
    if (size > 0) writeAll(fd, Buffer.from(pending.join("")))
    pending = []
    size = 0
  }
  const close = () => {
    if (open) fs.closeSync(fd)
    open = false
  }
  const abort = () => {
    try {
      close()
    } finally {
      fs.rmSync(temporary, { force: true })
    }
  }
  return {
    write: (part) => {
      if (typeof part !== "string") {
        flush()
        return writeAll(fd, part)
      }
      pending.push(part)
      size += part.length
      if (size >= PART_WRITE) flush()
    },
    commit: () => {
      try {
        flush()
        close()
        fs.renameSync(temporary, file)
      } catch (error) {
        abort()
        throw error
      }
    },
    abort
  }
}

const writeAll = (fd: number, bytes: Uint8Array): void => {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at)
}
