/**
 * The cached totals `acx statusline` shows beside Claude Code's own figures: today's cost and the
 * current 5-hour block (cost, burn rate, end) of one config directory's transcripts.
 *
 * The statusline runs several times a second and never folds a transcript: it reads a small
 * summary file (`$ACX_HOME/cache/statusline-<hash>.json`, a few hundred bytes, {@link readSummary})
 * and, when that is older than {@link FRESH_MS} or of another day, starts `acx statusline
 * refresh` detached. The refresh ({@link refresh}) folds the transcripts written to in the last
 * {@link LOOKBACK_MS} with the statistics' own fold (`StatsFold`: the same pricing, message
 * dedupe and line rules as `acx stats`), keyed by 15-minute slot instead of by day, and
 * incrementally: each file's fold is kept (`statusline-folds-<hash>.json`) with its size, mtime
 * and end mark, and a file that only grew is folded on from where it stopped, as
 * `TranscriptStats` does. Slots are exact for both figures: local days (every time zone is a
 * multiple of 15 minutes from UTC) and blocks (which start on whole hours) never cut a slot.
 *
 * Plain TypeScript with no Effect import: the statusline's bundle loads {@link readSummary}.
 *
 * @since 0.4.0
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { writePrivateFile } from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import { fnv, timeZone } from "./internal/statsCache.js"
import { markAt, runFoldJob } from "./internal/statsFile.js"
import { isRefusal, openRegularSync } from "./internal/regularFile.js"

/**
 * How old a summary may be before the statusline asks for a refresh: 30 s.
 *
 * @since 0.4.0
 * @category constants
 */
export const FRESH_MS = 30_000

/**
 * How far back the refresh reads: transcripts last written within 24 hours. A block is found
 * from the slots in that span, so one chain of blocks longer than a day (activity without a
 * 5-hour pause) is cut at its start.
 *
 * @since 0.4.0
 * @category constants
 */
export const LOOKBACK_MS = 24 * 3_600_000

/**
 * A billing block's length: 5 hours.
 *
 * @since 0.4.0
 * @category constants
 */
export const BLOCK_MS = 5 * 3_600_000

const SLOT_MS = 15 * 60_000
const HOUR_MS = 3_600_000
const VERSION = 1

/**
 * One 15-minute slot's figures (over every file).
 *
 * @since 0.4.0
 * @category models
 */
export interface Slot {
  readonly slot: number
  firstMs: number
  lastMs: number
  costUSD: number
  tokens: number
}

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
  /** The last block of the look-back span (the caller checks it has not ended). */
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
  return ["startMs", "endMs", "firstMs", "lastMs", "costUSD", "tokens"].every((key) => isNum(b[key]))
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

/**
 * The blocks of time-ordered slots, by ccusage's rule: a block starts at the whole hour of its
 * first entry and lasts {@link BLOCK_MS}; an entry past its end, or more than 5 hours after the
 * previous entry, starts the next.
 *
 * @since 0.4.0
 * @category blocks
 */
export const blocksOf = (slots: ReadonlyArray<Slot>): Array<Block> => {
  const blocks: Array<Block> = []
  let current: { startMs: number; firstMs: number; lastMs: number; costUSD: number; tokens: number } | undefined
  const close = () => {
    if (current !== undefined) blocks.push({ ...current, endMs: current.startMs + BLOCK_MS })
  }
  for (const slot of [...slots].sort((a, b) => a.slot - b.slot)) {
    if (!(slot.firstMs <= slot.lastMs)) continue
    if (current === undefined || slot.firstMs >= current.startMs + BLOCK_MS || slot.firstMs - current.lastMs > BLOCK_MS) {
      close()
      const startMs = Math.floor(slot.firstMs / HOUR_MS) * HOUR_MS
      current = { startMs, firstMs: slot.firstMs, lastMs: slot.lastMs, costUSD: 0, tokens: 0 }
    }
    current.lastMs = Math.max(current.lastMs, slot.lastMs)
    current.costUSD += slot.costUSD
    current.tokens += slot.tokens
  }
  close()
  return blocks
}

/**
 * The block's burn rate in dollars per hour over its activity so far (first to last entry);
 * `undefined` under a minute of activity.
 *
 * @since 0.4.0
 * @category blocks
 */
export const burnPerHour = (block: Block): number | undefined => {
  const span = block.lastMs - block.firstMs
  return span < 60_000 ? undefined : block.costUSD / (span / HOUR_MS)
}

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
const appendedTo = (file: string, entry: FoldEntry | undefined, size: number): boolean => {
  if (entry === undefined || size < entry.offset || typeof entry.mark !== "string") return false
  const opened = openRegularSync(file)
  if (isRefusal(opened)) return false
  try {
    return markAt(opened.fd, entry.offset) === entry.mark
  } catch {
    return false
  } finally {
    fs.closeSync(opened.fd)
  }
}

/** The slot key of an epoch time (the fold's "day"): 15-minute slots since the epoch. */
const slotOf = (ms: number): string => Number.isFinite(ms) ? String(Math.floor(ms / SLOT_MS)) : StatsFold.UNDATED

const addState = (slots: Map<number, Slot>, state: StatsFold.FoldState): void => {
  for (const [key, cell] of Object.entries(state.days)) {
    const slot = Number(key)
    if (!Number.isInteger(slot)) continue
    let costUSD = 0
    let tokens = 0
    for (const model of Object.values(cell.models)) {
      costUSD += model.costUSD
      tokens += model.input + model.output + model.cacheRead + model.cacheWrite5m + model.cacheWrite1h
    }
    const at = slots.get(slot)
    if (at === undefined) {
      slots.set(slot, { slot, firstMs: cell.firstMs, lastMs: cell.lastMs, costUSD, tokens })
    } else {
      at.firstMs = Math.min(at.firstMs, cell.firstMs)
      at.lastMs = Math.max(at.lastMs, cell.lastMs)
      at.costUSD += costUSD
      at.tokens += tokens
    }
  }
}

/** The local day (`YYYY-MM-DD`) of an epoch time and its bounds. */
const localDay = (ms: number): { readonly day: string; readonly startMs: number; readonly endMs: number } => {
  const date = new Date(ms)
  const y = date.getFullYear()
  const m = date.getMonth()
  const d = date.getDate()
  return {
    day: `${String(y).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
    startMs: new Date(y, m, d).getTime(),
    endMs: new Date(y, m, d + 1).getTime()
  }
}

/**
 * Today's local day key at `nowMs` (what a summary's `day` must equal to be current).
 *
 * @since 0.4.0
 * @category reading
 */
export const today = (nowMs: number): string => localDay(nowMs).day

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
  const { day, endMs, startMs } = localDay(options.nowMs)
  const sinceMs = Math.min(startMs, options.nowMs - LOOKBACK_MS)
  const fingerprint = Pricing.fingerprint(options.pricing)
  const foldsPath = foldsFile(options.cacheDir, configDir)
  const cached = readFolds(foldsPath, fingerprint)
  const kept: { [file: string]: FoldEntry } = {}
  const slots = new Map<number, Slot>()
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
          options.pricing,
          slotOf
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
    addState(slots, state)
  }
  const inSpan = [...slots.values()].filter((slot) => slot.lastMs >= sinceMs)
  const todayCostUSD = inSpan
    .filter((slot) => slot.slot * SLOT_MS >= startMs && slot.slot * SLOT_MS < endMs)
    .reduce((sum, slot) => sum + slot.costUSD, 0)
  const summary: Summary = {
    version: VERSION,
    configDir,
    computedAtMs: options.nowMs,
    day,
    todayCostUSD,
    block: blocksOf(inSpan).at(-1) ?? null
  }
  writePrivateFile(foldsPath, JSON.stringify({ version: VERSION, pricing: fingerprint, timeZone: timeZone(), files: kept }))
  writePrivateFile(summaryFile(options.cacheDir, configDir), JSON.stringify(summary))
  return summary
}
