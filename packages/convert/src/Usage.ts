/**
 * Token usage of a Claude Code transcript. Claude Code 2.x repeats `message.usage` on every
 * fragment of a streamed assistant message and `output_tokens` grows until the last one, so
 * usage is counted once per `message.id` + `requestId`, from the LAST fragment (ccusage and its
 * clones keep the first and undercount output tokens).
 *
 * Inputs are `unknown`: parsed JSON lines in file order. Every function here is total.
 *
 * @since 0.1.0
 */
import { messageKey } from "./Fragments.js"
import { get, isObj } from "./internal/json.js"

/**
 * Token totals.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenTotals {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

/**
 * Usage overall and per model. `byModel` leaves out the CLI's `<synthetic>` model (locally
 * generated messages, always zero usage) and messages without a model; `total` counts them.
 *
 * @since 0.1.0
 * @category models
 */
export interface UsageSummary {
  readonly total: TokenTotals
  readonly byModel: Readonly<Record<string, TokenTotals>>
  /** Distinct API messages counted (after deduplication). */
  readonly messages: number
}

/**
 * Zero tokens.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyTotals: TokenTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }

/**
 * Sums two totals.
 *
 * @since 0.1.0
 * @category combinators
 */
export const addTotals = (a: TokenTotals, b: TokenTotals): TokenTotals => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite
})

const count = (value: unknown): number => typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0

/**
 * Reads an Anthropic `usage` object (`input_tokens`, `output_tokens`,
 * `cache_read_input_tokens`, `cache_creation_input_tokens`); missing, negative or non-numeric
 * fields count as 0.
 *
 * @since 0.1.0
 * @category conversions
 */
export const totalsOf = (usage: unknown): TokenTotals => ({
  input: count(get(usage, "input_tokens")),
  output: count(get(usage, "output_tokens")),
  cacheRead: count(get(usage, "cache_read_input_tokens")),
  cacheWrite: count(get(usage, "cache_creation_input_tokens"))
})

/**
 * The model name `<synthetic>` that Claude Code gives locally generated assistant messages.
 *
 * @since 0.1.0
 * @category constants
 */
export const SYNTHETIC_MODEL = "<synthetic>"

/**
 * Which fragment's usage counts for a `message.id` + `requestId`: `"last"` (correct, the
 * default) or `"first"` (the ccusage rule, kept for comparison).
 *
 * @since 0.1.0
 * @category models
 */
export type FragmentRule = "last" | "first"

interface Counted {
  readonly model: string | undefined
  readonly usage: TokenTotals
}

/**
 * Token usage of transcript entries: every assistant entry with a `message.usage` object
 * counts, once per `message.id` + `requestId` (the last fragment's usage by default); entries
 * without `message.id` count individually. Non-assistant and malformed entries are skipped.
 *
 * @since 0.1.0
 * @category analytics
 */
export const usageOf = (entries: ReadonlyArray<unknown>, rule: FragmentRule = "last"): UsageSummary => {
  const counted: Array<Counted> = []
  const byKey = new Map<string, number>()
  if (Array.isArray(entries)) {
    for (const entry of entries) {
      if (!isObj(entry) || entry.type !== "assistant") continue
      const message = entry.message
      const usage = get(message, "usage")
      if (!isObj(usage)) continue
      const modelValue = get(message, "model")
      const model = typeof modelValue === "string" && modelValue !== "" ? modelValue : undefined
      const item: Counted = { model, usage: totalsOf(usage) }
      const key = messageKey(entry)
      if (key === undefined) {
        counted.push(item)
        continue
      }
      const index = byKey.get(key)
      if (index === undefined) {
        byKey.set(key, counted.length)
        counted.push(item)
      } else if (rule === "last") {
        counted[index] = item
      }
    }
  }
  let total = emptyTotals
  const byModel = new Map<string, TokenTotals>()
  for (const { model, usage } of counted) {
    total = addTotals(total, usage)
    if (model === undefined || model === SYNTHETIC_MODEL) continue
    byModel.set(model, addTotals(byModel.get(model) ?? emptyTotals, usage))
  }
  return { total, byModel: Object.fromEntries(byModel), messages: counted.length }
}
