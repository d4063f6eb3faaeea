/**
 * Whether the day's observer budget (`dailyBudgetUsd`, `dailyBudgetTokens`) is spent, and the
 * sentence that says so: the worker records a session locally then, and a model backfill stops.
 */
import type * as MemoryConfig from "../MemoryConfig.js"
import type * as MemoryStore from "../MemoryStore.js"

/** Why the day's budget is spent, or `undefined` while it lasts. */
export const spentReason = (config: MemoryConfig.MemoryConfig, spend: MemoryStore.DaySpend): string | undefined => {
  if (config.dailyBudgetUsd !== null && spend.costUsd >= config.dailyBudgetUsd) {
    return `the daily budget of $${config.dailyBudgetUsd} is spent ($${spend.costUsd.toFixed(4)} on ${spend.day})`
  }
  if (config.dailyBudgetTokens !== null && spend.tokens >= config.dailyBudgetTokens) {
    return `the daily budget of ${config.dailyBudgetTokens} tokens is spent (${spend.tokens} on ${spend.day})`
  }
  return undefined
}
