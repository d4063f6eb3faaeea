/**
 * The memory's settings: the `memory` object of `$ACX_HOME/config.json`, every key with a
 * default, and the files the memory keeps under `$ACX_HOME`.
 *
 * Plain TypeScript with no Effect import on purpose: the hook entry (`acx hook …`) reads the
 * settings on every tool call, and loading Effect there would double its start-up time.
 * Reading is total: a missing file means the defaults; a bad value is reported in `problems`
 * and its default used, so a typo in the config never stops a hook.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The memory's settings.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryConfig {
  /** `"model"`: an observer model distils events; `"local"`: deterministic observations only (free, offline). */
  readonly mode: "model" | "local"
  /** The observer's model. */
  readonly model: string
  /** The token budget of the context a SessionStart injects. */
  readonly contextTokens: number
  /** A tool's input or output longer than this (characters) is cut, with a marker saying how much. */
  readonly maxToolOutputChars: number
  /** Tools whose calls are not recorded. */
  readonly skipTools: ReadonlyArray<string>
  /** Projects (absolute paths; globs with `*`, `**`, `?`) never recorded. */
  readonly excludeProjects: ReadonlyArray<string>
  /** A session with no event for this many hours is `interrupted`. */
  readonly interruptedAfterHours: number
  /** At most this many queued events go to the observer in one prompt. */
  readonly batchSize: number
  /** How long the worker lets a batch fill before sending a partial one (seconds). */
  readonly batchWaitSeconds: number
  /** Failed attempts after which an event is `failed` (`acx memory retry` re-queues it). */
  readonly maxAttempts: number
  /** The SDK's `maxBudgetUsd` of each observer query. */
  readonly maxBudgetUsdPerQuery: number
  /**
   * An observer conversation whose last call read this many input tokens (cached ones included)
   * is ended, and the session's next batch starts a fresh one: a conversation re-reads all of
   * itself on every call, so without a bound its cost grows with the square of its length.
   */
  readonly observerMaxContextTokens: number
  /** The observer's daily spend cap in USD (UTC days); `null`: none. */
  readonly dailyBudgetUsd: number | null
  /** The observer's daily cap in tokens (input + output + cache); `null`: none. */
  readonly dailyBudgetTokens: number | null
  /** The worker exits after this many minutes with nothing to do. */
  readonly workerIdleMinutes: number
  /** Daily backups kept under `$ACX_HOME/backups`. */
  readonly backupsKept: number
  /** A hook's stdin larger than this (bytes) is refused with one line, nothing recorded. */
  readonly maxHookInputBytes: number
}

/**
 * Every key's default.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: MemoryConfig = {
  mode: "model",
  model: "claude-haiku-4-5",
  contextTokens: 1500,
  maxToolOutputChars: 4000,
  skipTools: ["TodoWrite", "ListMcpResourcesTool", "ReadMcpResourceTool"],
  excludeProjects: [],
  interruptedAfterHours: 24,
  batchSize: 10,
  batchWaitSeconds: 5,
  maxAttempts: 3,
  maxBudgetUsdPerQuery: 0.5,
  observerMaxContextTokens: 30_000,
  dailyBudgetUsd: 1,
  dailyBudgetTokens: null,
  workerIdleMinutes: 3,
  backupsKept: 7,
  maxHookInputBytes: 16 * 1024 * 1024
}

/**
 * Settings read from a file: the values in force, and one line per key that was ignored.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadedConfig {
  readonly config: MemoryConfig
  readonly problems: ReadonlyArray<string>
  /** The file read (it may not exist). */
  readonly file: string
}

type Check = (value: unknown) => boolean

const positive: Check = (value) => typeof value === "number" && Number.isFinite(value) && value > 0
const wholePositive: Check = (value) => positive(value) && Number.isInteger(value)
const nonNegative: Check = (value) => typeof value === "number" && Number.isFinite(value) && value >= 0
const strings: Check = (value) => Array.isArray(value) && value.every((item) => typeof item === "string")
const orNull = (check: Check): Check => (value) => value === null || check(value)

const checks: { readonly [K in keyof MemoryConfig]: readonly [Check, string] } = {
  mode: [(value) => value === "model" || value === "local", "\"model\" or \"local\""],
  model: [(value) => typeof value === "string" && value.trim() !== "", "a model name"],
  contextTokens: [wholePositive, "a positive whole number"],
  maxToolOutputChars: [wholePositive, "a positive whole number"],
  skipTools: [strings, "a list of tool names"],
  excludeProjects: [strings, "a list of paths or globs"],
  interruptedAfterHours: [positive, "a positive number"],
  batchSize: [wholePositive, "a positive whole number"],
  batchWaitSeconds: [nonNegative, "a number ≥ 0"],
  maxAttempts: [wholePositive, "a positive whole number"],
  maxBudgetUsdPerQuery: [positive, "a positive number"],
  observerMaxContextTokens: [wholePositive, "a positive whole number"],
  dailyBudgetUsd: [orNull(nonNegative), "a number ≥ 0 or null"],
  dailyBudgetTokens: [orNull(nonNegative), "a number ≥ 0 or null"],
  workerIdleMinutes: [positive, "a positive number"],
  backupsKept: [wholePositive, "a positive whole number"],
  maxHookInputBytes: [wholePositive, "a positive whole number"]
}

/**
 * Settings from the parsed contents of `config.json` (the `memory` object; anything else in the
 * file belongs to other parts of acx). Total.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (json: unknown): { readonly config: MemoryConfig; readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = []
  const section = typeof json === "object" && json !== null && !Array.isArray(json)
    ? (json as Record<string, unknown>)["memory"]
    : undefined
  if (json !== undefined && (typeof json !== "object" || json === null || Array.isArray(json))) {
    problems.push("config.json is not a JSON object: using the defaults")
  }
  if (section === undefined) return { config: defaults, problems }
  if (typeof section !== "object" || section === null || Array.isArray(section)) {
    problems.push("\"memory\" is not an object: using the defaults")
    return { config: defaults, problems }
  }
  const config: Record<string, unknown> = { ...defaults }
  for (const [key, value] of Object.entries(section)) {
    // own keys only: "toString" is not a setting
    const check = Object.hasOwn(checks, key) ? (checks as Record<string, readonly [Check, string]>)[key] : undefined
    if (check === undefined) {
      problems.push(`memory.${key} is not a setting (ignored)`)
    } else if (!check[0](value)) {
      problems.push(`memory.${key} must be ${check[1]}: using ${JSON.stringify(config[key])}`)
    } else {
      config[key] = value
    }
  }
  return { config: config as unknown as MemoryConfig, problems }
}

/**
 * The files and directories the memory keeps under acx's home.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryPaths {
  readonly home: string
  readonly config: string
  readonly database: string
  readonly backups: string
  /** Hook inputs that found the database locked, waiting for the worker to record them. */
  readonly spool: string
  /** The observer's private Claude config directory (its transcripts and credentials stay here). */
  readonly observerConfigDir: string
  /** The observer's working directory. */
  readonly observerCwd: string
  /** The worker's log (stderr of the detached process). */
  readonly workerLog: string
}

/**
 * The memory's paths under a home directory (default `AcxHome.acxHome()`), named by `AcxHome.paths`.
 *
 * @since 0.1.0
 * @category paths
 */
export const paths = (home: string = AcxHome.acxHome()): MemoryPaths => {
  const named = AcxHome.paths(home)
  return {
    home,
    config: named.config,
    database: named.memoryDatabase,
    backups: named.backups,
    spool: named.memorySpool,
    observerConfigDir: named.observerConfigDir,
    observerCwd: named.observerCwd,
    workerLog: named.memoryWorkerLog
  }
}

/**
 * Reads `config.json` under a home directory; never throws (an unreadable or invalid file is a
 * problem line and the defaults).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (home: string = AcxHome.acxHome()): LoadedConfig => {
  const file = paths(home).config
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return {
      config: defaults,
      problems: code === "ENOENT" ? [] : [`cannot read ${file} (${code ?? String(error)}): using the defaults`],
      file
    }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { config: defaults, problems: [`${file} is not valid JSON: using the defaults`], file }
  }
  return { ...decode(json), file }
}

/**
 * What tells a changed `config.json` from the one read before: its modification time, change
 * time and size (`"none"` when there is no file). Never throws.
 *
 * @since 0.1.0
 * @category loading
 */
export const stamp = (home: string = AcxHome.acxHome()): string => {
  try {
    const stat = fs.statSync(paths(home).config)
    return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}`
  } catch {
    return "none"
  }
}

const globToRegExp = (glob: string): RegExp => {
  let source = ""
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === "*") {
      if (glob[i + 1] === "*") {
        source += ".*"
        i++
      } else {
        source += "[^/]*"
      }
    } else if (char === "?") {
      source += "[^/]"
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&")
    }
  }
  return new RegExp(`^${source}$`)
}

/**
 * Whether a project (the absolute directory Claude Code ran in) is excluded: a pattern matches
 * the path itself or one of its parents (`/work/secret` excludes `/work/secret/sub`). Patterns
 * starting with `~/` are under the user's home.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isExcluded = (config: MemoryConfig, project: string, home: string = os.homedir()): boolean => {
  if (config.excludeProjects.length === 0) return false
  const normalised = path.resolve(project)
  const candidates: Array<string> = []
  for (let dir = normalised;; dir = path.dirname(dir)) {
    candidates.push(dir)
    if (path.dirname(dir) === dir) break
  }
  return config.excludeProjects.some((pattern) => {
    const expanded = pattern.startsWith("~/") ? path.join(home, pattern.slice(2)) : pattern
    const regexp = globToRegExp(expanded.length > 1 ? expanded.replace(/\/+$/, "") : expanded)
    return candidates.some((dir) => regexp.test(dir))
  })
}
