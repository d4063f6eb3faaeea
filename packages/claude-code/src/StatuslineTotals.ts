/**
 * The cached totals `acx statusline` shows beside Claude Code's own figures: today's cost and the
 * current 5-hour block (cost, burn rate, end) of one config directory's transcripts.
 *
 * The statusline runs several times a second and never folds a transcript: it reads a small
 * summary file (`$ACX_HOME/cache/statusline-<hash>.json`, a few hundred bytes, {@link readSummary})
 * and, when that is older than {@link FRESH_MS} or of another day, starts `acx statusline
 * refresh` detached. The refresh ({@link refresh}) folds the transcripts written to in the last
 * {@link LOOKBACK_MS} with the statistics' own fold (`StatsFold`: the same pricing, message
 * dedupe, local days and UTC hours as `acx stats`), incrementally: each file's fold is kept
 * (`statusline-folds-<hash>.json`) with its size, mtime and end mark, and a file that only grew
 * is folded on from where it stopped, as `TranscriptStats` does. Today's cost is the folds' local
 * day; the block is `BillingWindows.currentBlock` of their hours (the window rule of
 * `acx stats --by block`).
 *
 * Plain TypeScript with no Effect import: the statusline's bundle loads {@link readSummary}.
 *
 * @since 0.4.0
 */
import * as BillingWindows from "@acx/convert/BillingWindows"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { writePrivateFile } from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import { fnv, timeZone } from "./internal/statsCache.js"
import { markStill, runFoldJob } from "./internal/statsFile.js"

/**
 * How old a summary may be before the statusline asks for a refresh: 30 s.
 *
 * @since 0.4.0
 * @category constants
 */
export const FRESH_MS = 30_000

/**
 * How far back the refresh reads: transcripts last written within 24 hours. A block is found
 * from the hours of those files, so one chain of blocks longer than a day (activity without a
 * 5-hour pause) is cut at its start.
 *
 * @since 0.4.0
 * @category constants
 */
export const LOOKBACK_MS = 24 * 3_600_000

const VERSION = 2

/**
 * A block as the summary keeps it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Block {
  readonly startMs: number
  readonly endMs: number
  readonly firstMs: number
  readonly lastMs: number
  readonly costUSD: number
  readonly tokens: number
  /** Dollars per hour from its first message to its last (`BillingWindows.burnRate`). */
  readonly burnUSDPerHour: number | null
}

/**
 * What the statusline reads.
 *
 * @since 0.4.0
 * @category models
 */
export interface Summary {
  readonly version: number
  readonly configDir: string
  readonly computedAtMs: number
  /** The local day (`YYYY-MM-DD`) {@link Summary.todayCostUSD} is of. */
  readonly day: string
  readonly todayCostUSD: number
  /** The block open at the refresh (the caller checks it has not ended since). */
  readonly block: Block | null
}

/**
 * The summary file of a config directory under `cacheDir`.
 *
 * @since 0.4.0
 * @category files
 */
export const summaryFile = (cacheDir: string, configDir: string): string =>
  path.join(cacheDir, `statusline-${fnv(path.resolve(configDir))}.json`)

const foldsFile = (cacheDir: string, configDir: string): string =>
  path.join(cacheDir, `statusline-folds-${fnv(path.resolve(configDir))}.json`)

const isNum = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)

const isBlock = (value: unknown): value is Block => {
  if (typeof value !== "object" || value === null) return false
  const b = value as { readonly [key: string]: unknown }
  return ["startMs", "endMs", "firstMs", "lastMs", "costUSD", "tokens"].every((key) => isNum(b[key])) &&
    (b["burnUSDPerHour"] === null || isNum(b["burnUSDPerHour"]))
}

/**
 * The summary for `configDir` in `file`, or `undefined` (missing, damaged, another version or
 * directory). Never throws.
 *
 * @since 0.4.0
 * @category reading
 */
export const readSummary = (file: string, configDir: string): Summary | undefined => {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Summary>
    if (
      json.version !== VERSION || json.configDir !== path.resolve(configDir) || !isNum(json.computedAtMs) ||
      typeof json.day !== "string" || !isNum(json.todayCostUSD) || !(json.block === null || isBlock(json.block))
    ) return undefined
    return json as Summary
  } catch {
    return undefined
  }
}

/**
 * Whether a summary should be refreshed at `nowMs`: none, older than {@link FRESH_MS}, from the
 * future (a clock set back), or of another local day.
 *
 * @since 0.4.0
 * @category reading
 */
export const isStale = (summary: Summary | undefined, nowMs: number, today: string): boolean =>
  summary === undefined || nowMs - summary.computedAtMs > FRESH_MS || summary.computedAtMs > nowMs + FRESH_MS ||
  summary.day !== today

interface FoldEntry {
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly mark: string
  readonly state: unknown
}

/** The transcripts (sessions and their subagents) under `<configDir>/projects` written since `sinceMs`. */
const recentFiles = (configDir: string, sinceMs: number): Array<{ file: string; kind: "main" | "subagent" }> => {
  const out: Array<{ file: string; kind: "main" | "subagent" }> = []
  const entries = (dir: string): Array<fs.Dirent> => {
    try {
      return fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return []
    }
  }
  const recent = (file: string): boolean => {
    try {
      return fs.statSync(file).mtimeMs >= sinceMs
    } catch {
      return false
    }
  }
  const projects = path.join(configDir, "projects")
  for (const project of entries(projects)) {
    if (!project.isDirectory()) continue
    const projectDir = path.join(projects, project.name)
    for (const entry of entries(projectDir)) {
      const full = path.join(projectDir, entry.name)
      if (entry.isFile() && entry.name.endsWith(".jsonl")) {
        if (recent(full)) out.push({ file: full, kind: "main" })
      } else if (entry.isDirectory()) {
        const subagents = path.join(full, "subagents")
        for (const agent of entries(subagents)) {
          const file = path.join(subagents, agent.name)
          if (agent.isFile() && agent.name.endsWith(".jsonl") && recent(file)) out.push({ file, kind: "subagent" })
        }
      }
    }
  }
  return out
}

const readFolds = (file: string, fingerprint: string): { [file: string]: FoldEntry } => {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8")) as {
      version?: unknown
      pricing?: unknown
      timeZone?: unknown
      files?: unknown
    }
    if (json.version !== VERSION || json.pricing !== fingerprint || json.timeZone !== timeZone()) return {}
    return typeof json.files === "object" && json.files !== null ? json.files as { [file: string]: FoldEntry } : {}
  } catch {
    return {}
  }
}

// the cached fold still describes the file's first `offset` bytes: it only grew since
const appendedTo = (file: string, entry: FoldEntry | undefined, size: number): boolean =>
  entry !== undefined && size >= entry.offset && typeof entry.mark === "string" &&
  markStill(file, entry.offset, entry.mark)

/** The start of the local day of an epoch time (epoch ms). */
const startOfDay = (ms: number): number => {
  const date = new Date(ms)
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime()
}

/**
 * Today's local day key at `nowMs` (what a summary's `day` must equal to be current).
 *
 * @since 0.4.0
 * @category reading
 */
export const today = (nowMs: number): string => StatsFold.localDayOf()(nowMs)

/**
 * Folds what changed since the last refresh and writes the summary (and the folds it kept) under
 * `cacheDir`; returns the summary. A file that cannot be read counts nothing this time; a cache
 * that cannot be written is reported by the thrown error (the caller logs it).
 *
 * @since 0.4.0
 * @category refreshing
 */
export const refresh = (options: {
  readonly configDir: string
  readonly cacheDir: string
  readonly pricing: Pricing.PricingTable
  readonly nowMs: number
}): Summary => {
  const configDir = path.resolve(options.configDir)
  const day = today(options.nowMs)
  const sinceMs = Math.min(startOfDay(options.nowMs), options.nowMs - LOOKBACK_MS)
  const fingerprint = Pricing.fingerprint(options.pricing)
  const foldsPath = foldsFile(options.cacheDir, configDir)
  const cached = readFolds(foldsPath, fingerprint)
  const kept: { [file: string]: FoldEntry } = {}
  const states: Array<StatsFold.FoldState> = []
  for (const { file, kind } of recentFiles(configDir, sinceMs)) {
    let stat: fs.Stats
    try {
      stat = fs.statSync(file)
    } catch {
      continue
    }
    const hit = Object.hasOwn(cached, file) ? cached[file] : undefined
    let entry: FoldEntry | undefined = hit !== undefined && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs
      ? hit
      : undefined
    if (entry === undefined) {
      const resume = appendedTo(file, hit, stat.size) ? hit : undefined
      try {
        const done = runFoldJob(
          { file, kind, offset: resume?.offset ?? 0, state: resume?.state ?? null },
          options.pricing
        )
        if (done.unread !== undefined) continue
        entry = { size: stat.size, mtimeMs: stat.mtimeMs, offset: done.offset, mark: done.mark, state: done.state }
      } catch {
        continue
      }
    }
    const state = StatsFold.restore(entry.state)
    if (state === undefined) continue
    kept[file] = entry
    states.push(state)
  }
  let todayCostUSD = 0
  for (const state of states) {
    const cell = Object.hasOwn(state.days, day) ? state.days[day] : undefined
    for (const model of Object.values(cell?.models ?? {})) todayCostUSD += model.costUSD
  }
  const open = BillingWindows.currentBlock(states, options.nowMs)
  const summary: Summary = {
    version: VERSION,
    configDir,
    computedAtMs: options.nowMs,
    day,
    todayCostUSD,
    block: open === undefined ? null : {
      startMs: open.startMs,
      endMs: open.endMs,
      firstMs: open.firstMs,
      lastMs: open.lastMs,
      costUSD: open.total.costUSD,
      tokens: BillingWindows.tokensOf(open.total),
      burnUSDPerHour: BillingWindows.burnRate(open)?.costPerHour ?? null
    }
  }
  writePrivateFile(
    foldsPath,
    JSON.stringify({ version: VERSION, pricing: fingerprint, timeZone: timeZone(), files: kept })
  )
  writePrivateFile(summaryFile(options.cacheDir, configDir), JSON.stringify(summary))
  return summary
}
