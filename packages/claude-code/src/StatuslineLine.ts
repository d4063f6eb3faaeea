/**
 * The one line `acx statusline` prints, from Claude Code's input ({@link StatuslinePayload}) and
 * acx's cached totals (today's cost, the current 5-hour block). Pure and total: any figures in,
 * one line out, never a newline inside it.
 *
 * A template names fields in braces (`{model} {context} {five_hour}`); a field with nothing to
 * show renders empty and the spaces around it collapse. Unknown names stay as written. Colour is
 * ANSI (Claude Code draws it), off with `color: false` (`NO_COLOR`, `--plain`).
 *
 * @since 0.4.0
 */
import * as TerminalText from "@acx/convert/TerminalText"
import type { Payload, RateWindow } from "./StatuslinePayload.js"

/**
 * The current 5-hour block of the transcripts, as the cache holds it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Block {
  readonly startMs: number
  readonly endMs: number
  readonly costUSD: number
  /** Dollars per hour over the block's activity so far. */
  readonly burnUSDPerHour: number | undefined
}

/**
 * acx's cached totals for the line; `undefined` where the cache has none (yet).
 *
 * @since 0.4.0
 * @category models
 */
export interface Totals {
  readonly todayCostUSD: number | undefined
  readonly block: Block | undefined
}

/**
 * How to render.
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  readonly color: boolean
  /** The template; default {@link DEFAULT_TEMPLATE}. */
  readonly template?: string | undefined
  /** Now, epoch milliseconds (countdowns). */
  readonly nowMs: number
}

/**
 * The field names a template may use.
 *
 * @since 0.4.0
 * @category constants
 */
export const FIELDS = ["model", "context", "session_cost", "today_cost", "five_hour", "seven_day", "block"] as const

/**
 * A template field's name.
 *
 * @since 0.4.0
 * @category models
 */
export type Field = typeof FIELDS[number]

/**
 * The line without `--format`: `{five_hour}` is the quota window when Claude Code reports one,
 * else the transcripts' current block.
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_TEMPLATE = "{model} │ {context} │ {session_cost} │ {today_cost} │ {five_hour} │ {seven_day}"

const ESC = "\u001b["
const paint = (color: boolean, code: string, text: string): string => color ? `${ESC}${code}m${text}${ESC}0m` : text

const DIM = "2"
const BOLD = "1"
const GREEN = "32"
const YELLOW = "33"
const RED = "31"

/** Green below half, yellow below 80 %, red from there. */
const levelColor = (percentage: number): string => percentage < 50 ? GREEN : percentage < 80 ? YELLOW : RED

/**
 * Dollars as the line shows them: cents below $1000, whole dollars with separators above.
 *
 * @since 0.4.0
 * @category formatting
 */
export const money = (usd: number): string => {
  if (!Number.isFinite(usd)) return "$?"
  const sign = usd < 0 ? "-" : ""
  const abs = Math.abs(usd)
  if (abs >= 1000) return `${sign}$${Math.round(abs).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",")}`
  return `${sign}$${abs.toFixed(2)}`
}

/**
 * A duration as a countdown: `3d4h`, `2h05m`, `45m`, `<1m`; 0 or less is `now`.
 *
 * @since 0.4.0
 * @category formatting
 */
export const countdown = (ms: number): string => {
  if (!(ms > 0)) return "now"
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 1) return "<1m"
  const days = Math.floor(minutes / 1440)
  const hours = Math.floor((minutes % 1440) / 60)
  const mins = minutes % 60
  if (days > 0) return `${days}d${hours}h`
  if (hours > 0) return `${hours}h${String(mins).padStart(2, "0")}m`
  return `${mins}m`
}

/**
 * A percentage rounded for the line (`42%`), clamped to 0–999.
 *
 * @since 0.4.0
 * @category formatting
 */
export const percent = (value: number): string => `${Math.min(999, Math.max(0, Math.round(value)))}%`

// a field's text must not break the line or the terminal: control characters as `?`
const printable = (value: string, max = 80): string => TerminalText.line(value).slice(0, max)

const windowText = (label: string, window: RateWindow, options: Options): string => {
  const reset = window.resetsAtMs === undefined
    ? ""
    : ` ${paint(options.color, DIM, `↻${countdown(window.resetsAtMs - options.nowMs)}`)}`
  return `${label} ${paint(options.color, levelColor(window.usedPercentage), percent(window.usedPercentage))}${reset}`
}

const blockText = (block: Block | undefined, options: Options): string => {
  if (block === undefined || block.endMs <= options.nowMs) return ""
  const burn = block.burnUSDPerHour === undefined ? "" : ` ${money(block.burnUSDPerHour)}/h`
  return `block ${money(block.costUSD)}${burn} ${
    paint(options.color, DIM, `↻${countdown(block.endMs - options.nowMs)}`)
  }`
}

/**
 * One field's text (empty when there is nothing to show).
 *
 * @since 0.4.0
 * @category formatting
 */
export const fieldText = (name: Field, payload: Payload, totals: Totals, options: Options): string => {
  switch (name) {
    case "model": {
      const model = payload.modelName ?? payload.modelId
      return model === undefined ? "" : paint(options.color, BOLD, printable(model))
    }
    case "context":
      return payload.contextPercentage === undefined
        ? ""
        : `ctx ${paint(options.color, levelColor(payload.contextPercentage), percent(payload.contextPercentage))}`
    case "session_cost":
      return payload.sessionCostUSD === undefined ? "" : `session ${money(payload.sessionCostUSD)}`
    case "today_cost":
      return totals.todayCostUSD === undefined ? "" : `today ${money(totals.todayCostUSD)}`
    case "five_hour":
      return payload.fiveHour === undefined
        ? blockText(totals.block, options)
        : windowText("5h", payload.fiveHour, options)
    case "seven_day":
      return payload.sevenDay === undefined ? "" : windowText("7d", payload.sevenDay, options)
    case "block":
      return blockText(totals.block, options)
  }
}

const isField = (name: string): name is Field => (FIELDS as ReadonlyArray<string>).includes(name)

/**
 * The line: the template with each `{field}` replaced; separators (`│`, `|`, `·`) left without a
 * field on one side are dropped with it, runs of spaces collapse, and the ends are trimmed.
 *
 * @since 0.4.0
 * @category formatting
 */
export const render = (payload: Payload, totals: Totals, options: Options): string => {
  const template = printable(options.template ?? DEFAULT_TEMPLATE, 1000)
  const filled = template.replace(
    /\{([a-z_]+)\}/g,
    (whole, name: string) => isField(name) ? fieldText(name, payload, totals, options) || "\u0000" : whole
  )
  // an empty field takes one separator beside it, so `a │ {empty} │ b` reads `a │ b`
  const line = filled
    .replace(/\s*[│|·]\s*\u0000/g, "")
    .replace(/\u0000\s*[│|·]\s*/g, "")
    .replace(/\u0000/g, "")
    .replace(/ {2,}/g, " ")
    .trim()
  return line
}

/**
 * The line for input that could not be read (bad, empty or late stdin): what is known without it.
 *
 * @since 0.4.0
 * @category formatting
 */
export const minimal = (totals: Totals, options: Options): string => {
  const parts = [
    totals.todayCostUSD === undefined ? "" : `today ${money(totals.todayCostUSD)}`,
    blockText(totals.block, options)
  ].filter((part) => part !== "")
  return parts.length === 0 ? "acx" : `acx │ ${parts.join(" │ ")}`
}
