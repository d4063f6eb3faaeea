/**
 * Claude Code's settings and MCP files, and how acx changes them: where a scope's files are (as
 * Claude Code resolves them), each read whole as JSON before anything is written, copied to a
 * backup that never overwrites an earlier one, and replaced through a temporary file renamed over
 * the target (a symlinked file stays a link). `acx memory install`, `acx sync install` and
 * `acx statusline install` all write through these.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ClaudeSettingsError } from "./ClaudeSettingsError.js"

/**
 * `user`: every session of this user; `project`: sessions in one project directory.
 *
 * @since 0.5.0
 * @category models
 */
export type InstallScope = "user" | "project"

/**
 * Where the files are; each defaults as Claude Code resolves it.
 *
 * @since 0.5.0
 * @category models
 */
export interface LocationOptions {
  /** The project (project scope); default the working directory. */
  readonly projectDir?: string | undefined
  /** The working directory relative paths resolve against; default `process.cwd()`. */
  readonly cwd?: string | undefined
  /** The `CLAUDE_CONFIG_DIR` Claude Code runs with; default the environment's, else `<home>/.claude`. */
  readonly claudeConfigDir?: string | undefined
  /** The user's home directory; default `$HOME` of `env`, else `os.homedir()`. */
  readonly home?: string | undefined
  /** acx's home, which keeps the manifest; default `ACX_HOME`, else `~/.acx`. */
  readonly acxHome?: string | undefined
  /** The environment read for `CLAUDE_CONFIG_DIR` and `ACX_HOME`; default `process.env`. */
  readonly env?: { readonly [name: string]: string | undefined } | undefined
  /** The time in backup names; default now. */
  readonly now?: Date | undefined
  /**
   * The manifest that records what was installed (each installer has its own default under
   * `$ACX_HOME`). Each installer keeps its own, so uninstalling one never removes another's.
   */
  readonly manifest?: string | undefined
}

/**
 * The two files of a scope.
 *
 * @since 0.5.0
 * @category models
 */
export interface TargetFiles {
  readonly settings: string
  readonly mcp: string
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === "" ? undefined : value

/**
 * The files of a scope, resolved as Claude Code resolves them: for `user`, `settings.json` in
 * the config dir, and `.claude.json` in the config dir when one is given (option or
 * `CLAUDE_CONFIG_DIR`), else in the home directory.
 *
 * @since 0.5.0
 * @category paths
 */
export const targetFiles = (scope: InstallScope, options: LocationOptions = {}): TargetFiles => {
  if (scope === "project") {
    const cwd = options.cwd ?? process.cwd()
    const project = path.resolve(cwd, options.projectDir ?? cwd)
    return { settings: path.join(project, ".claude", "settings.json"), mcp: path.join(project, ".mcp.json") }
  }
  const env = options.env ?? process.env
  const home = path.resolve(options.home ?? nonEmpty(env["HOME"]) ?? os.homedir())
  const configDir = nonEmpty(options.claudeConfigDir) ?? nonEmpty(env["CLAUDE_CONFIG_DIR"])
  return configDir === undefined
    ? { settings: path.join(home, ".claude", "settings.json"), mcp: path.join(home, ".claude.json") }
    : {
      settings: path.join(path.resolve(options.cwd ?? process.cwd(), configDir), "settings.json"),
      mcp: path.join(path.resolve(options.cwd ?? process.cwd(), configDir), ".claude.json")
    }
}

const describeCause = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  const message = cause instanceof Error ? cause.message : String(cause)
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message
}

/**
 * A `Settings` error: `description`, with the cause's code and message when there is one.
 *
 * @since 0.5.0
 * @category errors
 */
export const settingsError = (description: string, cause?: unknown): ClaudeSettingsError =>
  cause === undefined
    ? new ClaudeSettingsError({ reason: "Settings", description })
    : new ClaudeSettingsError({ reason: "Settings", description: `${description} (${describeCause(cause)})`, cause })

/**
 * Runs a file operation; what it throws becomes a `Settings` error saying `what` failed.
 *
 * @since 0.5.0
 * @category files
 */
export const attempt = <A>(what: string, run: () => A): Effect.Effect<A, ClaudeSettingsError> =>
  Effect.try({ try: run, catch: (cause) => settingsError(what, cause) })

/**
 * A JSON file as read before any change.
 *
 * @since 0.5.0
 * @category models
 */
export interface JsonFile {
  readonly path: string
  readonly exists: boolean
  /** `undefined` for a missing or blank file. */
  readonly value: unknown
  /** Permission bits kept on rewrite. */
  readonly mode: number | undefined
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/**
 * Reads `file` whole as JSON (a missing or blank file has no value); an unreadable file or
 * invalid JSON is a `Settings` error saying nothing was changed.
 *
 * @since 0.5.0
 * @category files
 */
export const readJsonFile = (file: string): Effect.Effect<JsonFile, ClaudeSettingsError> =>
  Effect.gen(function*() {
    const text = yield* attempt(`cannot read ${file}; nothing was changed`, () => readText(file))
    if (text === undefined) return { path: file, exists: false, value: undefined, mode: undefined }
    const mode = yield* attempt(`cannot read ${file}; nothing was changed`, () => fs.statSync(file).mode & 0o777)
    if (text.trim() === "") return { path: file, exists: true, value: undefined, mode }
    const value = yield* attempt(`${file} is not valid JSON; nothing was changed`, () => JSON.parse(text) as unknown)
    return { path: file, exists: true, value, mode }
  })

/**
 * A settings value as the file's text: two-space indented, ending with a newline.
 *
 * @since 0.5.0
 * @category files
 */
export const toText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

const stamp = (now: Date): string => now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")

/**
 * Copies `file` to `<file>.acx-backup-<UTC stamp>` and answers the copy's path. Never overwrites
 * an earlier backup: install and uninstall in the same second each keep theirs.
 *
 * @since 0.5.0
 * @category files
 */
export const copyToBackup = (file: string, now: Date): string => {
  const base = `${file}.acx-backup-${stamp(now)}`
  for (let attemptNumber = 1;; attemptNumber++) {
    const candidate = attemptNumber === 1 ? base : `${base}-${attemptNumber}`
    try {
      fs.copyFileSync(file, candidate, fs.constants.COPYFILE_EXCL)
      return candidate
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

/**
 * The file a write replaces: a symlinked settings file (dotfiles) stays a symlink, the file it
 * points to is the one replaced.
 *
 * @since 0.5.0
 * @category files
 */
export const writeTarget = (file: string): string => fs.existsSync(file) ? fs.realpathSync(file) : file

/**
 * Replaces `file`'s content with `text` through a temporary file in the same directory renamed
 * over it (`mode`: the permission bits to keep or give).
 *
 * @since 0.5.0
 * @category files
 */
export const writeAtomically = (file: string, text: string, mode: number | undefined): void => {
  const target = writeTarget(file)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.acx-${process.pid}-${randomBytes(4).toString("hex")}.tmp`
  )
  try {
    fs.writeFileSync(temporary, text, { flag: "wx", ...(mode === undefined ? {} : { mode }) })
    if (mode !== undefined) fs.chmodSync(temporary, mode)
    fs.renameSync(temporary, target)
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
}
