/**
 * A named point of a long write where a test can stop the process for good: the kill tests of
 * `acx sync` (docs/sync.md, "Stopped anywhere") must `kill -9` a sync at an exact point of a phase
 * (reading a file, writing a batch, its ledger record, the origins, deriving a key), and a point
 * reached by timing is a different point on a loaded machine. So the writer names its points
 * ({@link Phase}) and calls {@link pause} there.
 *
 * `ACX_PAUSE_AT=<phase>[:<n>]` (default n = 1) makes the `n`th arrival at that phase write the
 * phase's name into the file `ACX_PAUSE_GATE` and wait there forever, in the middle of whatever
 * the writer holds (a write transaction included); the test waits for the gate file, then kills
 * the process. Without `ACX_PAUSE_AT` (every run but those tests) a pause is one environment
 * lookup and does nothing.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"

/**
 * The points a writer names:
 * - `read`: a transcript opened, before its first line is read;
 * - `append`: inside a batch's write transaction, the entries written, its ledger record not yet;
 * - `ledger`: a batch and its ledger record committed;
 * - `origins`: every file stored, before the sessions' origins are recorded;
 * - `derive`: inside a derive transaction, a key's derived rows written, its watermark not yet;
 * - `derived`: a key's derived data committed (with the other keys of its transaction), before
 *   the next transaction's (one arrival per key).
 *
 * @since 0.5.0
 * @category models
 */
export type Phase = "read" | "append" | "ledger" | "origins" | "derive" | "derived"

const arrivals = new Map<string, number>()

/**
 * The `n`th arrival at `phase` pauses for good when `ACX_PAUSE_AT` names it (see the module doc);
 * otherwise nothing.
 *
 * @since 0.5.0
 * @category pausing
 */
export const pauseSync = (phase: Phase): boolean => {
  const at = process.env["ACX_PAUSE_AT"]
  if (at === undefined || at === "") return false
  const [name, nth] = at.split(":")
  if (name !== phase) return false
  const count = (arrivals.get(phase) ?? 0) + 1
  arrivals.set(phase, count)
  if (count !== Math.max(1, Number(nth ?? 1))) return false
  const gate = process.env["ACX_PAUSE_GATE"]
  if (gate !== undefined && gate !== "") fs.writeFileSync(gate, `${phase}:${count}\n`)
  return true
}

/**
 * {@link pauseSync} as an effect: when the arrival pauses, it never completes.
 *
 * @since 0.5.0
 * @category pausing
 */
export const pause = (phase: Phase): Effect.Effect<void> =>
  Effect.suspend(() => pauseSync(phase) ? Effect.never : Effect.void)
