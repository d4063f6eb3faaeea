/**
 * Dollars as acx shows them, on the command line and on the page alike: cents with thousands
 * separated (`$1,234.56`), `<$0.01` for a positive amount under half a cent, `-` for a figure
 * that is not a number. One precision for every amount, so `$0.10` stands beside `$12.23`, never
 * `$0.1043`. Not locale-dependent (the page, the CLI and their tests agree).
 *
 * @since 0.5.0
 */

/**
 * A run of digits with its thousands separated by commas (`15780123` → `15,780,123`).
 *
 * @since 0.5.0
 * @category formatting
 */
export const grouped = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * `value` US dollars as text: `$1,234.56`, `-$2.00`, `<$0.01`, `$0.00`, `-`.
 *
 * @since 0.5.0
 * @category formatting
 */
export const usd = (value: number): string => {
  if (!Number.isFinite(value)) return "-"
  if (value > 0 && value < 0.005) return "<$0.01"
  const text = cents().format(Math.abs(value))
  return `${value < 0 && text !== "0.00" ? "-" : ""}$${text}`
}

// One formatter, made on first use: `toLocaleString` with options builds a new one per call
// (≈ 0.1 ms each: 55 ms of a 200-session `acx stats` table); `format` gives the same text.
let centsFormat: Intl.NumberFormat | undefined
const cents = (): Intl.NumberFormat =>
  centsFormat ??= new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
