// The costs page's "now" panel: the active 5-hour window (its cost, burn rate, projection to its
// end, time to its reset) and the quota readings the statusline recorded, drawn as a line per
// window (5-hour, 7-day) over time with the latest readings as a table (the chart's text
// alternative). From `GET /api/costs/now`, refreshed every minute; every text is rendered as text.
import { useEffect, useState } from "preact/hooks"
import type { NowResponse, QuotaPoint } from "../../src/CostsView.js"
import { dollars } from "../../src/CostsView.js"
import { getJson } from "../api.js"
import * as format from "../format.js"

const REFRESH_MS = 60_000
const WIDTH = 640
const HEIGHT = 180
const PAD = 32
const LATEST_ROWS = 8

const WINDOW_NAMES: Readonly<Record<QuotaPoint["window"], string>> = { five_hour: "5-hour", seven_day: "7-day" }

const remaining = (ms: number): string => {
  const minutes = Math.max(0, Math.round(ms / 60_000))
  return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`
}

const percent = (value: number): string => `${Math.round(value * 10) / 10}%`

const QuotaChart = ({ points }: { readonly points: ReadonlyArray<QuotaPoint> }) => {
  const first = points[0]!.at
  const last = points[points.length - 1]!.at
  const top = Math.max(100, ...points.map((p) => p.usedPercentage))
  const x = (at: number) => PAD + (last === first ? 0 : ((at - first) / (last - first)) * (WIDTH - 2 * PAD))
  const y = (used: number) => HEIGHT - PAD - (used / top) * (HEIGHT - 2 * PAD)
  const lines = (["five_hour", "seven_day"] as const).map((window, i) => {
    const mine = points.filter((p) => p.window === window)
    return { window, i, path: mine.map((p) => `${x(p.at).toFixed(1)},${y(p.usedPercentage).toFixed(1)}`).join(" ") }
  }).filter((line) => line.path !== "")
  return (
    <figure class="quota-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Line chart: quota used in percent, from ${format.dateTime(first)} to ${
          format.dateTime(last)
        }, one line per window; the table below holds the latest readings.`}
      >
        <line class="axis" x1={PAD} y1={y(0)} x2={WIDTH - PAD} y2={y(0)} />
        <line class="axis" x1={PAD} y1={y(100)} x2={WIDTH - PAD} y2={y(100)} stroke-dasharray="4 4" />
        <text x={2} y={y(100) + 4} class="tick">100%</text>
        <text x={2} y={y(0) + 4} class="tick">0%</text>
        {lines.map((line) => (
          <polyline
            key={line.window}
            data-window={line.window}
            points={line.path}
            fill="none"
            stroke={`var(--chart-${line.i})`}
            stroke-width={2}
          />
        ))}
      </svg>
      <figcaption class="muted small">
        {lines.map((line) => (
          <span key={line.window} class="legend-item">
            <span class="swatch" style={{ background: `var(--chart-${line.i})` }} /> {WINDOW_NAMES[line.window]}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}

const LatestReadings = ({ points }: { readonly points: ReadonlyArray<QuotaPoint> }) => (
  <div class="table-wrap">
    <table class="quota-table">
      <thead>
        <tr>
          <th scope="col">Observed</th>
          <th scope="col">Window</th>
          <th scope="col" class="num">Used</th>
          <th scope="col">Resets</th>
        </tr>
      </thead>
      <tbody>
        {points.slice(-LATEST_ROWS).reverse().map((point) => (
          <tr key={`${point.at}-${point.window}`}>
            <td>{format.dateTime(point.at)}</td>
            <td>{WINDOW_NAMES[point.window]}</td>
            <td class="num">{percent(point.usedPercentage)}</td>
            <td>{format.dateTime(point.resetsAt * 1000)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
)

export const NowPanel = () => {
  const [body, setBody] = useState<NowResponse | undefined>()
  const [error, setError] = useState<string | undefined>()
  useEffect(() => {
    const abort = new AbortController()
    const load = () =>
      getJson<NowResponse>("/api/costs/now", abort.signal).then((next) => {
        setBody(next)
        setError(undefined)
      }, (e: Error) => {
        if (!abort.signal.aborted) setError(e.message)
      })
    void load()
    const timer = setInterval(() => void load(), REFRESH_MS)
    return () => {
      clearInterval(timer)
      abort.abort()
    }
  }, [])
  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (body === undefined) return <p class="loading">Loading the current window…</p>
  const window = body.window
  const items: ReadonlyArray<readonly [string, string, string]> = window === null ? [] : [
    ["window", "Window", `${format.dateTime(window.start).slice(11)}–${format.dateTime(window.end).slice(11)}`],
    ["usd", "Cost so far", dollars(window.costUSD) + (window.unpriced.length > 0 ? "+?" : "")],
    ["burn", "Burn rate", window.costPerHour === null ? "-" : `${dollars(window.costPerHour)}/h`],
    ["projected", "Projected at reset", window.projectedUSD === null ? "-" : dollars(window.projectedUSD)],
    ["reset", "Resets in", remaining(window.remainingMs)],
    ["tokens", "Tokens", format.count(window.tokens)]
  ]
  return (
    <section class="now-panel" aria-labelledby="now-heading">
      <h2 id="now-heading">Now</h2>
      {window === null
        ? <p class="muted" data-now="idle">No active 5-hour window: no message in it yet.</p>
        : (
          <dl class="now-figures" data-now="active">
            {items.map(([key, label, value]) => (
              <div key={key} data-now-item={key}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      <h3>Quota used</h3>
      {body.quota.length === 0
        ? (
          <p class="muted" data-quota="none">
            No quota readings yet: <code>acx statusline</code> records those Claude Code reports.
          </p>
        )
        : (
          <>
            <QuotaChart points={body.quota} />
            <LatestReadings points={body.quota} />
          </>
        )}
    </section>
  )
}
