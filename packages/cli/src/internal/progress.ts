/**
 * A progress bar on the io's stderr for long operations, drawn only when stderr is a terminal (and not
 * for `--json`): scripts and CI logs stay quiet.
 */
import * as Effect from "effect/Effect"
import type { CommandIo } from "../CommandIo.js"

export interface Progress {
  /** Sets the amount done (and the total, when it becomes known), and a detail shown after it. */
  readonly update: (done: number, total?: number, detail?: string) => Effect.Effect<void>
  /** Erases the bar. */
  readonly clear: Effect.Effect<void>
}

const quiet: Progress = { update: () => Effect.void, clear: Effect.void }

const WIDTH = 28
const REDRAW_MILLIS = 80

export const progress = (
  label: string,
  io: CommandIo,
  options: { readonly enabled: boolean; readonly unit: string }
): Progress => {
  if (!options.enabled || !io.stderrIsTTY) return quiet
  let total = 0
  let lastDraw = 0
  let drawn = false
  let detail = ""
  const draw = (done: number) => {
    const ratio = total > 0 ? Math.min(1, done / total) : 0
    const filled = Math.round(ratio * WIDTH)
    const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`
    const amount = total > 0 ? `${done}/${total}` : String(done)
    io.stderr(`\r${label} ${bar} ${Math.round(ratio * 100)}% ${amount} ${options.unit}${detail}\x1b[K`)
    drawn = true
  }
  return {
    update: (done, newTotal, newDetail) =>
      Effect.sync(() => {
        if (newTotal !== undefined) total = newTotal
        if (newDetail !== undefined) detail = ` · ${newDetail}`
        const now = Date.now()
        if (now - lastDraw < REDRAW_MILLIS && done < total) return
        lastDraw = now
        draw(done)
      }),
    clear: Effect.sync(() => {
      if (drawn) io.stderr("\r\x1b[K")
      drawn = false
    })
  }
}
