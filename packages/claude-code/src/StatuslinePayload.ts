/**
 * What Claude Code hands a statusline command on stdin, read totally: any text in, a
 * {@link Payload} out, each field `undefined` when it is absent or not of its type. Claude Code
 * (2.1.x) sends, besides others this reader ignores:
 *
 * - `session_id`, `transcript_path`, `cwd`, `version`;
 * - `model: { id, display_name }`;
 * - `cost: { total_cost_usd, total_duration_ms, … }` (the session's, cumulative);
 * - `context_window: { total_input_tokens, total_output_tokens, context_window_size,
 *   current_usage: { input_tokens, output_tokens, cache_creation_input_tokens,
 *   cache_read_input_tokens } | null, used_percentage | null, remaining_percentage | null }`;
 * - for subscribers, `rate_limits: { five_hour, seven_day }`, each `{ used_percentage,
 *   resets_at }` (epoch seconds).
 *
 * Plain TypeScript with no Effect import: `acx statusline` runs several times a second and loads
 * only this, the line's rendering and a few Node built-ins.
 *
 * @since 0.4.0
 */

/**
 * One rate-limit window as Claude Code reports it.
 *
 * @since 0.4.0
 * @category models
 */
export interface RateWindow {
  /** 0–100 (as sent; not clamped). */
  readonly usedPercentage: number
  /** When the window resets, epoch milliseconds; `undefined` when not sent. */
  readonly resetsAtMs: number | undefined
}

/**
 * The fields of the statusline input acx reads.
 *
 * @since 0.4.0
 * @category models
 */
export interface Payload {
  readonly sessionId: string | undefined
  readonly transcriptPath: string | undefined
  readonly cwd: string | undefined
  readonly version: string | undefined
  readonly modelId: string | undefined
  readonly modelName: string | undefined
  /** The session's cost so far (US dollars). */
  readonly sessionCostUSD: number | undefined
  readonly sessionDurationMs: number | undefined
  /** How full the context window is, 0–100: `used_percentage`, else computed from `current_usage`. */
  readonly contextPercentage: number | undefined
  readonly contextWindowSize: number | undefined
  readonly fiveHour: RateWindow | undefined
  readonly sevenDay: RateWindow | undefined
}

/**
 * The payload of nothing: what bad or empty stdin reads as.
 *
 * @since 0.4.0
 * @category constructors
 */
export const empty: Payload = {
  sessionId: undefined,
  transcriptPath: undefined,
  cwd: undefined,
  version: undefined,
  modelId: undefined,
  modelName: undefined,
  sessionCostUSD: undefined,
  sessionDurationMs: undefined,
  contextPercentage: undefined,
  contextWindowSize: undefined,
  fiveHour: undefined,
  sevenDay: undefined
}

type Obj = { readonly [key: string]: unknown }

const obj = (value: unknown): Obj | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Obj : undefined

// own keys only: a payload's `constructor` or `__proto__` is not a field
const field = (value: unknown, key: string): unknown => {
  const o = obj(value)
  return o !== undefined && Object.hasOwn(o, key) ? o[key] : undefined
}

const text = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

const nonNegative = (value: unknown): number | undefined => {
  const n = num(value)
  return n !== undefined && n >= 0 ? n : undefined
}

/**
 * A rate-limit window from its JSON (`{ used_percentage, resets_at }`), or `undefined` without a
 * usable percentage. `resets_at` is epoch seconds; a value that large already (over 1e12) is
 * taken as milliseconds.
 *
 * @since 0.4.0
 * @category decoding
 */
export const rateWindow = (value: unknown): RateWindow | undefined => {
  const used = nonNegative(field(value, "used_percentage"))
  if (used === undefined) return undefined
  const resets = nonNegative(field(value, "resets_at"))
  return { usedPercentage: used, resetsAtMs: resets === undefined ? undefined : resets > 1e12 ? resets : resets * 1000 }
}

const contextPercentage = (context: unknown): number | undefined => {
  const given = nonNegative(field(context, "used_percentage"))
  if (given !== undefined) return given
  const size = nonNegative(field(context, "context_window_size"))
  const usage = obj(field(context, "current_usage"))
  if (size === undefined || size === 0 || usage === undefined) return undefined
  const tokens = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .reduce((sum, key) => sum + (nonNegative(usage[key]) ?? 0), 0)
  return (tokens / size) * 100
}

/**
 * The payload of a parsed JSON value; anything but an object is {@link empty}.
 *
 * @since 0.4.0
 * @category decoding
 */
export const fromJson = (json: unknown): Payload => {
  if (obj(json) === undefined) return empty
  const model = field(json, "model")
  const cost = field(json, "cost")
  const context = field(json, "context_window")
  const limits = field(json, "rate_limits")
  return {
    sessionId: text(field(json, "session_id")),
    transcriptPath: text(field(json, "transcript_path")),
    cwd: text(field(json, "cwd")) ?? text(field(field(json, "workspace"), "current_dir")),
    version: text(field(json, "version")),
    modelId: text(field(model, "id")),
    modelName: text(field(model, "display_name")),
    sessionCostUSD: nonNegative(field(cost, "total_cost_usd")),
    sessionDurationMs: nonNegative(field(cost, "total_duration_ms")),
    contextPercentage: contextPercentage(context),
    contextWindowSize: nonNegative(field(context, "context_window_size")),
    fiveHour: rateWindow(field(limits, "five_hour")),
    sevenDay: rateWindow(field(limits, "seven_day"))
  }
}

/**
 * The payload of stdin's text; text that is not JSON is {@link empty}.
 *
 * @since 0.4.0
 * @category decoding
 */
export const decode = (input: string): Payload => {
  try {
    return fromJson(JSON.parse(input))
  } catch {
    return empty
  }
}
