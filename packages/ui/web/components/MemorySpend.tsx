// The observer's spend per day against the daily budget: a bar per day (its height the share of
// the budget, or of the dearest day when there is no budget) and the table of the same figures.
import type { SpendResponse } from "../../src/MemoryView.js"
import * as format from "../format.js"

const LAST_DAYS = 30

export const MemorySpend = ({ spend }: { readonly spend: SpendResponse }) => {
  const days = spend.days.slice(-LAST_DAYS)
  if (days.length === 0) {
    return <p class="muted">No model calls yet (local observations cost nothing).</p>
  }
  const scale = Math.max(spend.budget.usd ?? 0, ...days.map((day) => day.costUsd)) || 1
  return (
    <div class="spend">
      <p class="muted">
        Daily budget: {spend.budget.usd === null ? "none in USD" : format.usd(spend.budget.usd)}
        {spend.budget.tokens !== null && `, ${format.count(spend.budget.tokens)} tokens`} · total{" "}
        {format.usd(spend.totals.costUsd)}, {format.count(spend.totals.tokens)} tokens, {spend.totals.calls} calls
      </p>
      <div class="spend-bars" role="img" aria-label="Observer spend per day against the daily budget">
        {spend.budget.usd !== null && (
          <div class="spend-budget" style={{ bottom: `${(spend.budget.usd / scale) * 100}%` }} />
        )}
        {days.map((day) => (
          <div
            key={day.day}
            class={day.overBudget ? "spend-bar over" : "spend-bar"}
            style={{ height: `${Math.max(1, (day.costUsd / scale) * 100)}%` }}
            title={`${day.day}: ${format.usd(day.costUsd)}, ${format.count(day.tokens)} tokens`}
          />
        ))}
      </div>
      <div class="table-wrap">
        <table class="spend-table">
          <thead>
            <tr>
              <th>Day (UTC)</th>
              <th class="num">Calls</th>
              <th class="num">Input</th>
              <th class="num">Output</th>
              <th class="num">Cache read</th>
              <th class="num">Cache write</th>
              <th class="num">USD</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((day) => (
              <tr key={day.day} class={day.overBudget ? "outlier" : undefined}>
                <td>
                  {day.day}
                  {day.overBudget && <span class="badge warn">over budget</span>}
                </td>
                <td class="num">{day.calls}</td>
                <td class="num">{format.count(day.inputTokens)}</td>
                <td class="num">{format.count(day.outputTokens)}</td>
                <td class="num">{format.count(day.cacheReadTokens)}</td>
                <td class="num">{format.count(day.cacheCreationTokens)}</td>
                <td class="num">{format.usd(day.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
