/**
 * Statistics of many transcript files, fast, as a service: `TranscriptFolds.foldTranscripts`
 * (files folded on every core, each file's fold cached under `$ACX_HOME/cache` keyed by path,
 * size and mtime, a file that only grew folded on from where its cached fold stopped), its
 * failures as typed errors, and the pricing table read from `$ACX_HOME/pricing.json`.
 *
 * @since 0.1.0
 */
import * as Pricing from "@acx/convert/Pricing"
import * as PricingFile from "@acx/convert/PricingFile"
import { paths } from "@acx/environment/AcxHome"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as StatsPricing from "./StatsPricing.js"
import * as TranscriptFolds from "./TranscriptFolds.js"

/**
 * Why statistics could not be gathered: `Io`, a transcript could not be read; `Worker`, a worker
 * thread failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptStatsError
  extends Schema.TaggedError<TranscriptStatsError>("@acx/claude-code/TranscriptStats/TranscriptStatsError")(
    "TranscriptStatsError",
    {
      reason: Schema.Literal("Io", "Worker"),
      description: Schema.String
    }
  )
{
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.description
  }
}

/**
 * A transcript file to fold, and the session it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export type TranscriptFile = TranscriptFolds.TranscriptFile

/**
 * What a run did: the folds, files skipped (not regular files, or gone), and how each file was
 * read.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsRun = TranscriptFolds.StatsRun

/**
 * @since 0.1.0
 * @category models
 */
export type TranscriptStatsOptions = TranscriptFolds.FoldOptions

/**
 * @since 0.1.0
 * @category models
 */
export interface TranscriptStats {
  /**
   * Folds `files`. `scope` names the set they come from (the projects directory: one cache file
   * each); with `complete`, `files` is all of that scope, and cache entries of files no longer
   * there are dropped.
   */
  readonly fold: (
    files: ReadonlyArray<TranscriptFile>,
    options: { readonly scope: string; readonly complete: boolean }
  ) => Effect.Effect<StatsRun, TranscriptStatsError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const TranscriptStats: Context.Tag<TranscriptStats, TranscriptStats> = Context.GenericTag<TranscriptStats>(
  "@acx/claude-code/TranscriptStats"
)

/**
 * A {@link TranscriptStats} with these options: `TranscriptFolds.foldTranscripts` (the fold the
 * CLI's plain `acx stats` runs too), its failures as {@link TranscriptStatsError}s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: TranscriptStatsOptions): TranscriptStats => {
  const fold = Effect.fn("TranscriptStats.fold")(function*(
    files: ReadonlyArray<TranscriptFile>,
    scope: { readonly scope: string; readonly complete: boolean }
  ) {
    return yield* Effect.tryPromise({
      try: () => TranscriptFolds.foldTranscripts(files, scope, options),
      catch: (error) => {
        const failure = error instanceof TranscriptFolds.FoldFailure ? error : new TranscriptFolds.FoldFailure(0, error)
        return new TranscriptStatsError({
          reason: failure.workers > 0 && !isNodeIoError(failure.cause) ? "Worker" : "Io",
          description: failure.message
        })
      }
    })
  })
  return { fold: (files, options) => fold(files, options) }
}

const isNodeIoError = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && typeof (cause as NodeJS.ErrnoException).code === "string"

/**
 * The pricing table: the built-in one with the user's `$ACX_HOME/pricing.json` applied when that
 * file exists (`file` names another). A file that cannot be read or decoded is a `PricingError`
 * naming it.
 *
 * @since 0.1.0
 * @category pricing
 */
export const loadPricing = Effect.fn("TranscriptStats.loadPricing")(function*(
  file: string = paths().pricing
) {
  // the one loader (`StatsPricing`, which the CLI's plain readers call too); a refusal typed here
  const loaded = StatsPricing.load(file)
  if (loaded._tag === "Table") return loaded.table
  if (loaded._tag === "Unreadable") {
    return yield* new PricingFile.PricingError({ reason: "Unreadable", description: loaded.description })
  }
  return yield* PricingFile.decode(Pricing.builtinPricing, loaded.text, file)
})

/**
 * A layer of {@link TranscriptStats}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: TranscriptStatsOptions): Layer.Layer<TranscriptStats> =>
  Layer.succeed(TranscriptStats, make(options))
