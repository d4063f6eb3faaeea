/**
 * What Claude models cost, in US dollars per million tokens (MTok), and what one API response
 * cost: input, output, cache writes (5-minute and 1-hour, priced apart), cache reads, web search
 * requests.
 *
 * **Source and date.** The built-in table is Anthropic's list prices as Claude Code 2.1.330
 * carries them in its model catalog (`pricing_tiers`, read on 2026-11-24), which match
 * Anthropic's pricing page (https://docs.anthropic.com/en/docs/about-claude/pricing) for every
 * model listed there; `claude-3-opus` and `claude-3-haiku` (retired, not in the catalog) are
 * from that page. The cost rule is the CLI's too, so acx reproduces the `total_cost_usd` the CLI
 * reports: a response's cache writes split into 1-hour
 * (`cache_creation.ephemeral_1h_input_tokens`, at most the total) and 5-minute (the rest); a
 * model with a long-prompt tier is priced at that tier when the prompt (input + cache read +
 * cache write tokens) is above its threshold; `usage.speed: "fast"` uses the model's fast rates;
 * `inference_geo: "us"` costs 1.1× the token price; each web search request is $0.01.
 *
 * **Model ids** are normalised ({@link normaliseModelId}): case, `[1m]`-style suffixes, dated
 * ids, `-latest`, Bedrock (`us.anthropic.…-v1:0`) and Vertex (`…@20241022`) forms and a
 * provider prefix (`anthropic/…`) all name the same row. A model the table does not know has no
 * price: reports list it as unpriced, never as $0.
 *
 * **A user file** (`$ACX_HOME/pricing.json`, see `PricingFile`) overrides or adds models.
 *
 * Pure and total: any input in, a value or a typed error out.
 *
 * @since 0.1.0
 */
import { get, isObj } from "./internal/plain.js"

/**
 * Prices of one model's tokens, US dollars per million tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenRates {
  readonly input: number
  readonly output: number
  readonly cacheWrite5m: number
  readonly cacheWrite1h: number
  readonly cacheRead: number
}

/**
 * A model's prices: the standard rates, a web search request's price, and the optional tiers.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelRates extends TokenRates {
  /** US dollars per web search request. */
  readonly webSearch: number
  /** Rates for prompts (input + cache read + cache write tokens) above `abovePromptTokens`. */
  readonly longPrompt?: (TokenRates & { readonly abovePromptTokens: number }) | undefined
  /** Rates of responses with `usage.speed: "fast"`. */
  readonly fast?: TokenRates | undefined
}

/**
 * A pricing table: rates by normalised model id, and where they come from.
 *
 * @since 0.1.0
 * @category models
 */
export interface PricingTable {
  /** Where the prices come from. */
  readonly source: string
  /** When they were read (YYYY-MM-DD). */
  readonly date: string
  readonly models: { readonly [model: string]: ModelRates }
}

/**
 * US dollars per web search request.
 *
 * @since 0.1.0
 * @category constants
 */
export const WEB_SEARCH = 0.01

const tier = (input: number, output: number, cacheRead: number): TokenRates => ({
  input,
  output,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  cacheRead
})

const rates = (standard: TokenRates, extra: Omit<ModelRates, keyof TokenRates | "webSearch"> = {}): ModelRates => ({
  ...standard,
  webSearch: WEB_SEARCH,
  ...extra
})

// Claude Code 2.1.330's pricing tiers, by the names its catalog gives them.
const tier_3_15 = tier(3, 15, 0.3)
const tier_5_25 = tier(5, 25, 0.5)
const tier_15_75 = tier(15, 75, 1.5)
const tier_2_10 = tier(2, 10, 0.2)
const tier_10_50 = tier(10, 50, 1)
const fast_30_150 = tier(30, 150, 3)
const fast_8_40 = tier(8, 40, 0.4)
const fast_16_80 = tier(16, 80, 0.4)

/**
 * The prices acx ships with (see the module documentation for their source and date).
 *
 * @since 0.1.0
 * @category constants
 */
export const builtinPricing: PricingTable = {
  source: "Anthropic list prices, as in Claude Code 2.1.330's model catalog (and docs.anthropic.com pricing)",
  date: "2026-11-24",
  models: {
    "claude-3-haiku": rates({ input: 0.25, output: 1.25, cacheWrite5m: 0.3, cacheWrite1h: 0.5, cacheRead: 0.03 }),
    "claude-3-opus": rates(tier_15_75),
    "claude-3-5-haiku": rates(tier(0.8, 4, 0.08)),
    "claude-haiku-4-5": rates(tier(1, 5, 0.1)),
    "claude-haiku-5-5": rates(tier(0.1, 0.5, 0.01), {
      longPrompt: { ...tier(0.5, 2.5, 0.05), abovePromptTokens: 100_000 }
    }),
    "claude-3-5-sonnet": rates(tier_3_15),
    "claude-3-7-sonnet": rates(tier_3_15),
    "claude-sonnet-4-0": rates(tier_3_15),
    "claude-sonnet-4-5": rates(tier_3_15),
    "claude-sonnet-4-6": rates(tier_3_15),
    "claude-sonnet-5": rates(tier_2_10),
    "claude-sonnet-5-5": rates(tier(2, 10, 0.1)),
    "claude-opus-4-0": rates(tier_15_75),
    "claude-opus-4-1": rates(tier_15_75),
    "claude-opus-4-5": rates(tier_5_25),
    "claude-opus-4-6": rates(tier_5_25, { fast: fast_30_150 }),
    "claude-opus-4-7": rates(tier_5_25, { fast: fast_30_150 }),
    "claude-opus-4-8": rates(tier_5_25, { fast: tier_10_50 }),
    "claude-opus-5": rates(tier_5_25, { fast: tier_10_50 }),
    "claude-opus-5-5": rates(tier(4, 20, 0.2), { fast: fast_8_40 }),
    "claude-fable-5": rates(tier_10_50),
    "claude-fable-5-1": rates(tier(10, 50, 0.25)),
    "claude-fable-5-2": rates(tier(8, 40, 0.2), { fast: fast_16_80 }),
    "claude-mythos-5": rates(tier_10_50),
    "claude-mythos-5-1": rates(tier(10, 50, 0.25)),
    "claude-mythos-5-2": rates(tier(8, 40, 0.2), { fast: fast_16_80 })
  }
}

// Undated short names the API accepts for the first Claude 4 models.
const ALIASES: { readonly [alias: string]: string } = {
  "claude-sonnet-4": "claude-sonnet-4-0",
  "claude-opus-4": "claude-opus-4-0"
}

const SUFFIXES: ReadonlyArray<RegExp> = [
  /\[[^\]]*\]$/, // `[1m]`: Claude Code's context-window marker
  /-v\d+(?::\d+)?$/, // Bedrock's version
  /@[^@]*$/, // Vertex's `@20241022`
  /-(?:\d{8}|latest)$/ // a dated id or `-latest`
]
const PREFIXES: ReadonlyArray<RegExp> = [
  /^[^/]*\//, // `anthropic/…` (gateways), up to the first slash
  /^(?:[a-z]+\.)?anthropic\./ // Bedrock's `us.anthropic.`, `global.anthropic.`
]

const strip = (id: string): string => {
  let out = id
  for (const pattern of [...PREFIXES, ...SUFFIXES]) out = out.replace(pattern, "")
  return out
}

/**
 * The id a model's prices are listed under: trimmed, lower case, without a provider prefix
 * (`anthropic/`, Bedrock's `us.anthropic.`), a `[1m]`-style suffix, a Bedrock version
 * (`-v1:0`), a Vertex (`@…`) or dated (`-20250929`) suffix or `-latest`; `claude-sonnet-4` and
 * `claude-opus-4` become `-4-0`. Total and idempotent; an id it does not recognise comes out
 * lower-cased and stripped, never an error.
 *
 * @since 0.1.0
 * @category models
 */
export const normaliseModelId = (id: string): string => {
  let current = typeof id === "string" ? id.trim().toLowerCase() : ""
  // every pass only removes characters, so this ends; several passes for stacked decorations
  for (;;) {
    const next = strip(current).trim()
    if (next === current) break
    current = next
  }
  // own keys only: "__proto__" or "constructor" is a model id like any other
  return Object.hasOwn(ALIASES, current) ? ALIASES[current]! : current
}

/**
 * The rates of a model, looked up by its normalised id; `undefined` for a model the table does
 * not know (unpriced, never $0).
 *
 * @since 0.1.0
 * @category lookup
 */
export const ratesFor = (table: PricingTable, model: string): ModelRates | undefined => {
  let known = lookups.get(table)
  if (known === undefined) lookups.set(table, known = new Map())
  if (known.has(model)) return known.get(model)
  const key = normaliseModelId(model)
  const rates = Object.hasOwn(table.models, key) ? table.models[key] : undefined
  // a transcript names a handful of models a hundred thousand times: each is normalised once
  if (known.size < MAX_LOOKUPS) known.set(model, rates)
  return rates
}

// Per table (they are read-only), the rates each model id found.
const lookups = new WeakMap<PricingTable, Map<string, ModelRates | undefined>>()
const MAX_LOOKUPS = 4096

/**
 * The token figures of one API response, as Claude Code records them in `message.usage`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResponseUsage {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  /** All cache-write tokens (`cache_creation_input_tokens`). */
  readonly cacheWrite: number
  /** Of those, written for 1 hour (`cache_creation.ephemeral_1h_input_tokens`), capped at `cacheWrite`. */
  readonly cacheWrite1h: number
  readonly webSearchRequests: number
  readonly fast: boolean
  readonly inferenceGeoUs: boolean
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.min(value, Number.MAX_SAFE_INTEGER) : 0

/**
 * Reads an Anthropic `usage` object. Missing, negative or non-numeric figures count as 0; the
 * 1-hour cache writes are capped at the total cache writes (the CLI's rule).
 *
 * @since 0.1.0
 * @category conversions
 */
export const responseUsage = (usage: unknown): ResponseUsage => {
  const cacheWrite = count(get(usage, "cache_creation_input_tokens"))
  return {
    input: count(get(usage, "input_tokens")),
    output: count(get(usage, "output_tokens")),
    cacheRead: count(get(usage, "cache_read_input_tokens")),
    cacheWrite,
    cacheWrite1h: Math.min(cacheWrite, count(get(get(usage, "cache_creation"), "ephemeral_1h_input_tokens"))),
    webSearchRequests: count(get(get(usage, "server_tool_use"), "web_search_requests")),
    fast: get(usage, "speed") === "fast",
    inferenceGeoUs: get(usage, "inference_geo") === "us"
  }
}

/**
 * The rates that apply to one response: the fast rates for a fast response (when the model has
 * them), else the long-prompt tier when the prompt is above its threshold, else the standard ones.
 *
 * @since 0.1.0
 * @category pricing
 */
export const ratesOfResponse = (model: ModelRates, usage: ResponseUsage): TokenRates => {
  if (usage.fast && model.fast !== undefined) return model.fast
  const long = model.longPrompt
  if (long !== undefined && usage.input + usage.cacheRead + usage.cacheWrite > long.abovePromptTokens) return long
  return model
}

/**
 * What one response cost, in US dollars (the CLI's rule: see the module documentation).
 *
 * @since 0.1.0
 * @category pricing
 */
export const costOfResponse = (model: ModelRates, usage: ResponseUsage): number => {
  const r = ratesOfResponse(model, usage)
  const oneHour = Math.min(usage.cacheWrite1h, usage.cacheWrite)
  const tokens = usage.input / 1e6 * r.input +
    usage.output / 1e6 * r.output +
    usage.cacheRead / 1e6 * r.cacheRead +
    oneHour / 1e6 * r.cacheWrite1h +
    (usage.cacheWrite - oneHour) / 1e6 * r.cacheWrite5m
  return tokens * (usage.inferenceGeoUs ? 1.1 : 1) + usage.webSearchRequests * model.webSearch
}

/**
 * A short fingerprint of a table's rates (FNV-1a of its canonical JSON), for caches of costs.
 *
 * @since 0.1.0
 * @category pricing
 */
export const fingerprint = (table: PricingTable): string => {
  const models = isObj(table.models) ? table.models : {}
  const text = JSON.stringify(Object.keys(models).sort().map((key) => [key, models[key]]))
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}
