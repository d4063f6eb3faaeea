/**
 * `StatsFold.restore`: a fold state from its serialised JSON, every part checked (a damaged
 * cache is refolded, never trusted).
 *
 * @internal
 */
import type { DayCell, FoldState, ModelCell } from "./foldCells.js"
import { isObj, setOwn } from "./plain.js"

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)
const isTime = (value: unknown): value is number =>
  typeof value === "number" && (Number.isFinite(value) || Math.abs(value) === Number.POSITIVE_INFINITY)

const CELL_KEYS: ReadonlyArray<keyof ModelCell> = [
  "messages",
  "input",
  "output",
  "cacheRead",
  "cacheWrite5m",
  "cacheWrite1h",
  "webSearchRequests",
  "costUSD"
]
const isModelCell = (value: unknown): value is ModelCell =>
  isObj(value) && CELL_KEYS.every((key) => isCount(value[key]))
const isCounts = (value: unknown): boolean => isObj(value) && Object.values(value).every(isCount)

const isDayCell = (value: unknown): value is DayCell =>
  isObj(value) &&
  isTime(value.firstMs) && isTime(value.lastMs) &&
  ["activeMs", "user", "assistant", "toolResults", "meta", "compactions"].every((key) => isCount(value[key])) &&
  isCounts(value.toolCalls) &&
  isObj(value.models) && Object.values(value.models).every(isModelCell)

/** @internal `StatsFold.restore`. */
export const restoreState = (json: unknown): FoldState | undefined => {
  if (
    !isObj(json) || !isObj(json.days) || !isObj(json.hours) || !Array.isArray(json.agents) ||
    !Array.isArray(json.recent)
  ) return undefined
  const days: { [day: string]: DayCell } = {}
  for (const [day, raw] of Object.entries(json.days)) {
    if (!isObj(raw)) return undefined
    const cell = {
      ...raw,
      firstMs: raw.firstMs ?? Number.POSITIVE_INFINITY,
      lastMs: raw.lastMs ?? Number.NEGATIVE_INFINITY,
      toolCalls: { ...(isObj(raw.toolCalls) ? raw.toolCalls : {}) },
      models: Object.fromEntries(
        Object.entries(isObj(raw.models) ? raw.models : {}).map(([model, value]) => [model, { ...(value as object) }])
      )
    }
    if (!isDayCell(cell)) return undefined
    setOwn(days, day, cell)
  }
  const hours = restoreHours(json.hours)
  if (hours === undefined) return undefined
  if (!json.agents.every((agent) => typeof agent === "string")) return undefined
  const recent: FoldState["recent"] = new Map()
  for (const item of json.recent) {
    if (!Array.isArray(item) || typeof item[0] !== "string" || typeof item[1] !== "string") return undefined
    const model = typeof item[2] === "string" ? item[2] : undefined
    const cell = item[3] === null ? undefined : isModelCell(item[3]) ? { ...item[3] } : null
    if (cell === null) return undefined
    if (item[4] !== undefined && item[4] !== null && !isCount(item[4])) return undefined
    recent.set(item[0], { day: item[1], model, cell, ms: isCount(item[4]) ? item[4] : undefined })
  }
  const previousMs = json.previousMs
  return {
    days,
    hours,
    agents: [...(json.agents as Array<string>)],
    anonymousSidechain: json.anonymousSidechain === true,
    previousMs: isCount(previousMs) ? previousMs : undefined,
    malformed: isCount(json.malformed) ? json.malformed : 0,
    recent
  }
}

const restoreHours = (json: { readonly [key: string]: unknown }): FoldState["hours"] | undefined => {
  const hours: FoldState["hours"] = {}
  for (const [hour, raw] of Object.entries(json)) {
    if (!isObj(raw) || !isCount(raw.firstMs) || !isCount(raw.lastMs) || !isObj(raw.models)) return undefined
    const models: { [model: string]: ModelCell } = {}
    for (const [model, value] of Object.entries(raw.models)) {
      if (!isModelCell(value)) return undefined
      setOwn(models, model, { ...value })
    }
    setOwn(hours, hour, { firstMs: raw.firstMs, lastMs: raw.lastMs, models })
  }
  return hours
}
