// A costs chart's text alternative: the day rows of `acx stats --by day` with each model's
// figure and the day's total, in a table folded under "Show as table" (the same numbers as the
// chart, and the undated entries the chart leaves out).
import type { CostsResponse } from "../../src/CostsView.js"
import { dollars, tokenCount } from "../../src/CostsView.js"

type DayRow = CostsResponse["day"]["rows"][number]

const usdCell = (row: DayRow, model: string): string => {
  const usage = row.models[model]
  return usage === undefined ? "-" : usage.costUSD === null ? "no price" : dollars(usage.costUSD)
}

const tokensCell = (row: DayRow, model: string): string => {
  const usage = row.models[model]
  return usage === undefined ? "-" : tokenCount(usage.tokens.total)
}

export const DayTable = (
  { body, figure }: { readonly body: CostsResponse; readonly figure: "usd" | "tokens" }
) => {
  // the charts' models, then any only the undated entries used
  const models = [
    ...body.series.models,
    ...Object.keys(body.day.total.models).filter((model) => !body.series.models.includes(model))
  ]
  const cell = figure === "usd" ? usdCell : tokensCell
  const total = (row: DayRow) =>
    figure === "usd"
      ? dollars(row.costUSD) + (row.unpriced.length > 0 ? "+?" : "")
      : tokenCount(row.tokens.total)
  return (
    <details class="chart-table">
      <summary>Show as table</summary>
      <div class="table-wrap">
        <table class="day-table" data-figure={figure}>
          <caption>{figure === "usd" ? "US dollars" : "Tokens"} per day, by model</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="num">Sessions</th>
              {models.map((model) => <th scope="col" class="num" key={model}>{model}</th>)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {body.day.rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.key}</th>
                <td class="num">{row.sessions}</td>
                {models.map((model) => <td class="num" key={model}>{cell(row, model)}</td>)}
                <td class="num">{total(row)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  )
}
