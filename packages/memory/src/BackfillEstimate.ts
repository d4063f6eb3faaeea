/**
 * What distilling past sessions with the observer model would cost, from the sizes of the events
 * the hooks would have queued — pure, so `acx memory backfill --mode model` can show it before
 * spending anything.
 *
 * The observer's calls are counted as the worker makes them: a batch of up to `batchSize` tool and
 * prompt events per call, one call per run of checkpoints (a Stop, or a Stop and the SessionEnd
 * after it). Each call reads its whole conversation again (the instructions, every batch so far
 * and every reply), until the conversation has read `observerMaxContextTokens` and a fresh one
 * starts; tokens are estimated as characters / 4 and every call is priced at the model's input
 * rate, without the cache discount: the figure is a ceiling, the bill is usually lower.
 *
 * @since 0.3.0
 */
import * as Pricing from "@acx/convert/Pricing"
import type { QueuedEvent } from "./HookCapture.js"
import type { MemoryConfig } from "./MemoryConfig.js"

/**
 * What a run would cost.
 *
 * @since 0.3.0
 * @category models
 */
export interface Estimate {
  readonly sessions: number
  readonly events: number
  readonly calls: number
  readonly inputTokens: number
  readonly outputTokens: number
  /** US dollars at the model's list prices (`undefined`: the model has no known price). */
  readonly costUsd: number | undefined
}

/**
 * Tokens a reply is taken to cost: a few observations in XML.
 *
 * @since 0.3.0
 * @category constants
 */
export const REPLY_TOKENS = 400

/**
 * Tokens the instructions cost, at the start of every conversation (the observer's first prompt,
 * `prompts/init.md`, with its system prompt).
 *
 * @since 0.3.0
 * @category constants
 */
export const INSTRUCTION_TOKENS = 1_200

/**
 * What the estimate needs of a queued event: its kind and its payload's length.
 *
 * @since 0.3.0
 * @category models
 */
export interface EventSize {
  readonly kind: QueuedEvent["kind"]
  readonly chars: number
}

/**
 * The sizes of what captures queue (captures that queue nothing left out).
 *
 * @since 0.3.0
 * @category estimating
 */
export const sizesOf = (captures: ReadonlyArray<{ readonly queued: QueuedEvent | undefined }>): Array<EventSize> =>
  captures.flatMap((capture) =>
    capture.queued === undefined ? [] : [{ kind: capture.queued.kind, chars: capture.queued.payload.length }]
  )

/**
 * The calls and tokens of one session's queued events (in queue order).
 *
 * @since 0.3.0
 * @category estimating
 */
export const sessionCost = (
  events: ReadonlyArray<EventSize>,
  config: Pick<MemoryConfig, "batchSize" | "observerMaxContextTokens">
): { readonly calls: number; readonly inputTokens: number; readonly outputTokens: number } => {
  const prompts: Array<number> = []
  let batch = 0
  let inBatch = 0
  let checkpoint = false
  const flush = () => {
    if (inBatch > 0) prompts.push(batch)
    batch = 0
    inBatch = 0
  }
  for (const event of events) {
    if (event.kind === "summarise") {
      flush()
      if (!checkpoint) prompts.push(100)
      checkpoint = true
      continue
    }
    checkpoint = false
    batch += Math.ceil(event.chars / 4) + 20
    inBatch++
    if (inBatch >= Math.max(1, config.batchSize)) flush()
  }
  flush()
  let context = 0
  let inputTokens = 0
  for (const prompt of prompts) {
    if (context === 0 || context >= config.observerMaxContextTokens) context = INSTRUCTION_TOKENS
    context += prompt
    inputTokens += context
    context += REPLY_TOKENS
  }
  return { calls: prompts.length, inputTokens, outputTokens: prompts.length * REPLY_TOKENS }
}

/**
 * What distilling these sessions would cost with `config.model` (see the module documentation).
 *
 * @since 0.3.0
 * @category estimating
 */
export const estimate = (
  sessions: ReadonlyArray<ReadonlyArray<EventSize>>,
  config: Pick<MemoryConfig, "batchSize" | "observerMaxContextTokens" | "model">,
  pricing: Pricing.PricingTable = Pricing.builtinPricing
): Estimate => {
  let calls = 0
  let inputTokens = 0
  let outputTokens = 0
  let events = 0
  for (const session of sessions) {
    const cost = sessionCost(session, config)
    calls += cost.calls
    inputTokens += cost.inputTokens
    outputTokens += cost.outputTokens
    events += session.length
  }
  const rates = Pricing.ratesFor(pricing, config.model)
  return {
    sessions: sessions.length,
    events,
    calls,
    inputTokens,
    outputTokens,
    costUsd: rates === undefined ? undefined : inputTokens / 1e6 * rates.input + outputTokens / 1e6 * rates.output
  }
}
