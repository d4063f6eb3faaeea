// A bar chart of days stacked by model, drawn by uPlot on a canvas: uPlot has no stacking, so
// each model's bar is drawn from 0 to the sum of the models below it and itself, the tallest
// first, each over the one before (opaque bars: what shows of each is its own part). The legend
// shows each model's own figure of the day under the cursor, and with no day under it the
// model's figure over all the days shown (never a name with nothing after it). It follows its box's width
// (ResizeObserver) and the system's light or dark scheme (the colors are CSS variables).
import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"
import { daySeconds, stack } from "../../src/CostsView.js"

/** How many colors the palette has (`--chart-0` … in style.css); more models reuse them. */
export const PALETTE_SIZE = 8

const HEIGHT = 260
const HALF_DAY = 43_200

const cssVar = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

/** A model's color, by its place in the list of the page's models. */
export const seriesColor = (index: number): string => cssVar(`--chart-${index % PALETTE_SIZE}`)

export interface StackedBarsProps {
  /** `YYYY-MM-DD`, one bar each. */
  readonly days: ReadonlyArray<string>
  /** Bottom of the stack first. */
  readonly models: ReadonlyArray<string>
  /** `values[m][d]`: model `m`'s figure on day `d`. */
  readonly values: ReadonlyArray<ReadonlyArray<number>>
  /** The chart's text for screen readers (the table of the same numbers follows it). */
  readonly label: string
  /** A figure as the axis and legend show it. */
  readonly format: (value: number) => string
}

const options = (props: StackedBarsProps, width: number): uPlot.Options => {
  const muted = cssVar("--muted")
  const line = cssVar("--line")
  const axis: uPlot.Axis = { stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } }
  const bars = uPlot.paths.bars!({ size: [0.7, 48, 2], align: 0 })
  // tallest (every model) first: drawn top model, then the ones under it over it
  const order = props.models.map((_, m) => m).reverse()
  return {
    width,
    height: HEIGHT,
    // the x values are UTC noons of the days: show them in UTC so each bar is labelled its day
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: {
      x: { time: true, range: (_u, min, max) => [min - HALF_DAY * 1.2, max + HALF_DAY * 1.2] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] }
    },
    axes: [
      axis,
      { ...axis, size: 64, values: (_u, splits) => splits.map((value) => props.format(value)) }
    ],
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    legend: { live: true },
    series: [
      {
        label: "Day",
        value: (_u, ts) =>
          ts === null ? "all days" : props.days[Math.round((ts - daySeconds(props.days[0]!)) / 86_400)] ?? ""
      },
      ...order.map((m): uPlot.Series => {
        const color = seriesColor(m)
        return {
          label: props.models[m]!,
          stroke: color,
          fill: color,
          width: 0,
          paths: bars,
          points: { show: false },
          // the legend shows the model's own figure, not the stack's height
          value: (_u, _v, _si, idx) =>
            props.format(
              idx === null
                ? (props.values[m] ?? []).reduce((sum, value) => sum + value, 0)
                : props.values[m]?.[idx] ?? 0
            )
        }
      })
    ]
  }
}

export const StackedBars = (props: StackedBarsProps) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (element === null || props.days.length === 0) return
    const stacked = stack(props.values)
    const data: uPlot.AlignedData = [
      props.days.map(daySeconds),
      ...props.models.map((_, m) => m).reverse().map((m) => stacked[m]!)
    ]
    const width = () => Math.max(200, Math.floor(element.clientWidth))
    const draw = () => {
      const drawn = new uPlot(options(props, width()), data, element)
      // the series are the models top of the stack first; the legend lists them bottom first
      // (uPlot keeps its own references to the rows: moving them is safe)
      const rows = drawn.root.querySelector(".u-legend tbody")
      if (rows !== null) rows.append(...[...rows.children].slice(1).reverse())
      return drawn
    }
    let chart = draw()
    // a new scheme changes the colors: draw again with them
    const scheme = matchMedia("(prefers-color-scheme: dark)")
    const redraw = () => {
      chart.destroy()
      chart = draw()
    }
    scheme.addEventListener("change", redraw)
    const resize = new ResizeObserver(() => {
      if (chart.width !== width()) chart.setSize({ width: width(), height: HEIGHT })
    })
    resize.observe(element)
    return () => {
      resize.disconnect()
      scheme.removeEventListener("change", redraw)
      chart.destroy()
    }
  }, [props.days, props.models, props.values, props.format])
  return <div class="chart" ref={box} role="img" aria-label={props.label} />
}
