/**
 * The user's pricing file (`$ACX_HOME/pricing.json`) checked and applied without Effect: the one
 * set of rules for which files are taken and what table they make, whichever way `acx stats`
 * starts (`@acx/claude-code/StatsPricing` loads the file through it; `PricingFile.decode` applies
 * it and words a refused shape with its Schema). A property test holds it to that Schema: the same
 * files accepted, the same table made.
 *
 * @since 0.4.0
 */
import { type ModelRates, normaliseModelId, type PricingTable, WEB_SEARCH } from "./Pricing.js"

/**
 * A model's row in the file: US dollars per million tokens (per request for `webSearch`).
 *
 * @since 0.4.0
 * @category models
 */
export interface PricingRow {
  readonly input: number
  readonly output: number
  readonly cacheWrite5m?: number | undefined
  readonly cacheWrite1h?: number | undefined
  readonly cacheRead?: number | undefined
  readonly webSearch?: number | undefined
}

const REQUIRED = ["input", "output"] as const
const ROW_KEYS: ReadonlySet<string> = new Set([...REQUIRED, "cacheWrite5m", "cacheWrite1h", "cacheRead", "webSearch"])

const isRate = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0

// An object that is not an array, as a Schema struct or record takes it.
const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isRow = (value: unknown): value is PricingRow =>
  isObject(value) && REQUIRED.every((key) => Object.hasOwn(value, key)) &&
  Object.keys(value).every((key) => ROW_KEYS.has(key) && isRate(value[key]))

/**
 * The models a parsed file prices, when it is of the `PricingFile` shape (`{ "models": { "<id>":
 * row } }`, nothing else, every rate a finite number ≥ 0); `undefined` otherwise.
 *
 * @since 0.4.0
 * @category parsing
 */
export const modelsOf = (json: unknown): { readonly [id: string]: PricingRow } | undefined => {
  if (!isObject(json) || !Object.hasOwn(json, "models") || Object.keys(json).some((key) => key !== "models")) {
    return undefined
  }
  const models = json["models"]
  if (!isObject(models)) return undefined
  if (!Object.keys(models).every((id) => id !== "" && isRow(models[id]))) return undefined
  const rows = models as { readonly [id: string]: PricingRow }
  // a model named `__proto__` is checked, then dropped, as the Schema's decoder drops it
  return Object.hasOwn(rows, "__proto__")
    ? Object.fromEntries(Object.entries(rows).filter(([id]) => id !== "__proto__"))
    : rows
}

const ratesOf = (row: PricingRow): ModelRates => ({
  input: row.input,
  output: row.output,
  cacheWrite5m: row.cacheWrite5m ?? row.input * 1.25,
  cacheWrite1h: row.cacheWrite1h ?? row.input * 2,
  cacheRead: row.cacheRead ?? row.input * 0.1,
  webSearch: row.webSearch ?? WEB_SEARCH
})

/**
 * `base` with the file's `models` applied: each (by normalised id) replaces or adds a row, and
 * the source says which file (`name`) priced which models. Missing cache rates follow Anthropic's
 * multipliers of the input price (1.25×, 2×, 0.1×); a missing `webSearch` is $0.01.
 *
 * @since 0.4.0
 * @category pricing
 */
export const withModels = (
  base: PricingTable,
  name: string,
  models: { readonly [id: string]: PricingRow }
): PricingTable => {
  const ids = Object.keys(models)
  return {
    source: `${base.source}; ${name} for ${ids.join(", ") || "no model"}`,
    date: base.date,
    models: { ...base.models, ...Object.fromEntries(ids.map((id) => [normaliseModelId(id), ratesOf(models[id]!)])) }
  }
}
