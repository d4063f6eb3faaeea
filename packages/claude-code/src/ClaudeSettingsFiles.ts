/**
 * The files `MemoryInstall` edits (Claude Code's settings and MCP files): read whole as JSON
 * before anything is written, copied to a backup that never overwrites an earlier one, and
 * replaced through a temporary file renamed over the target (a symlinked file stays a link).
 */
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { MemoryError } from "../MemoryError.js"

const describeCause = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  const message = cause instanceof Error ? cause.message : String(cause)
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message
}

export const settingsError = (description: string, cause?: unknown): MemoryError =>
  cause === undefined
    ? new MemoryError({ reason: "Settings", description })
    : new MemoryError({ reason: "Settings", description: `${description} (${describeCause(cause)})`, cause })

export const attempt = <A>(what: string, run: () => A): Effect.Effect<A, MemoryError> =>
  Effect.try({ try: run, catch: (cause) => settingsError(what, cause) })

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

export const readJsonFile = (file: string): Effect.Effect<JsonFile, MemoryError> =>
  Effect.gen(function*() {
    const text = yield* attempt(`cannot read ${file}; nothing was changed`, () => readText(file))
    if (text === undefined) return { path: file, exists: false, value: undefined, mode: undefined }
    const mode = yield* attempt(`cannot read ${file}; nothing was changed`, () => fs.statSync(file).mode & 0o777)
    if (text.trim() === "") return { path: file, exists: true, value: undefined, mode }
    const value = yield* attempt(`${file} is not valid JSON; nothing was changed`, () => JSON.parse(text) as unknown)
    return { path: file, exists: true, value, mode }
  })

export const toText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

const stamp = (now: Date): string => now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "")

// Never overwrites an earlier backup: install and uninstall in the same second each keep theirs.
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

// A symlinked settings file (dotfiles) stays a symlink: the file it points to is the one replaced.
export const writeTarget = (file: string): string => fs.existsSync(file) ? fs.realpathSync(file) : file

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
