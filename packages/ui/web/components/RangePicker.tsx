// The costs page's date range: two date fields and the quick ranges (the last 7, 30 or 90 local
// days up to today, or every day: no bounds). It only says what was chosen; the page keeps it in
// the hash.
import * as format from "../format.js"

const QUICK: ReadonlyArray<readonly [label: string, days: number | undefined]> = [
  ["Last 7 days", 7],
  ["Last 30 days", 30],
  ["Last 90 days", 90],
  ["All", undefined]
]

/** The last `days` local days up to today (no bounds for `undefined`: every day). */
export const lastDays = (days: number | undefined): { readonly since: string; readonly until: string } => {
  if (days === undefined) return { since: "", until: "" }
  const today = new Date()
  const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1))
  return { since: format.day(first), until: format.day(today) }
}

export interface RangePickerProps {
  readonly since: string
  readonly until: string
  readonly onChange: (range: { readonly since: string; readonly until: string }) => void
}

export const RangePicker = ({ onChange, since, until }: RangePickerProps) => (
  <div class="toolbar range-picker">
    <label>
      From <input type="date" value={since} onChange={(e) => onChange({ since: e.currentTarget.value, until })} />
    </label>
    <label>
      To <input type="date" value={until} onChange={(e) => onChange({ since, until: e.currentTarget.value })} />
    </label>
    <div class="quick" role="group" aria-label="Quick ranges">
      {QUICK.map(([label, days]) => {
        const range = lastDays(days)
        return (
          <button
            type="button"
            key={label}
            aria-pressed={range.since === since && range.until === until}
            onClick={() => onChange(range)}
          >
            {label}
          </button>
        )
      })}
    </div>
  </div>
)
