/**
 * The fold's cells and state, declared apart from `StatsFold` so that its parts in `internal/`
 * (`foldRestore`) read them without importing `StatsFold` back. `StatsFold` exports each under
 * its own name.
 *
 * @internal
 */

/**
 * Tokens, messages and dollars of one model.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelCell {
  messages: number
  input: number
  output: number
  cacheRead: number
  cacheWrite5m: number
  cacheWrite1h: number
  webSearchRequests: number
  /** US dollars; 0 for a model without a price. */
  costUSD: number
}

/**
 * What one local day of one file holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface DayCell {
  firstMs: number
  lastMs: number
  activeMs: number
  user: number
  assistant: number
  toolResults: number
  meta: number
  compactions: number
  toolCalls: { [name: string]: number }
  models: { [model: string]: ModelCell }
}

/**
 * What one API message counts so far: the model it is counted under (`undefined`: Claude Code's
 * `<synthetic>` message, which counts nothing) and its figures (the last fragment with usage).
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageFigures {
  readonly model: string | undefined
  readonly cell: ModelCell | undefined
}

/**
 * What the messages of one UTC hour count: their figures by model, and the first and last
 * message time (epoch ms) in it.
 *
 * @since 0.3.0
 * @category models
 */
export interface HourCell {
  firstMs: number
  lastMs: number
  models: { [model: string]: ModelCell }
}

export interface Counted extends MessageFigures {
  readonly day: string
  /** The time of the message's first fragment (epoch ms), when it had one. */
  readonly ms: number | undefined
}

/**
 * The fold of one file so far.
 *
 * @since 0.1.0
 * @category models
 */
export interface FoldState {
  /** By local day `YYYY-MM-DD`; entries without a timestamp go under `UNDATED`. */
  days: { [day: string]: DayCell }
  /** Counted messages by the UTC hour (its start, epoch ms, as a key) of their first fragment. */
  hours: { [hourMs: string]: HourCell }
  agents: Array<string>
  anonymousSidechain: boolean
  /** The last timestamp in file order (ms), for the next gap. */
  previousMs: number | undefined
  /** Lines that were not JSON objects. */
  malformed: number
  /** The messages counted, by key, newest last (trimmed by `StatsFold.serialise`). */
  recent: Map<string, Counted>
}
