/** Output that may be larger than one string: written chunk by chunk, waiting when stdout is full. */
import * as Effect from "effect/Effect"
import { once } from "node:events"

export const writeStdout = (chunks: Iterable<string>): Effect.Effect<void> =>
  Effect.promise(async () => {
    for (const chunk of chunks) {
      if (!process.stdout.write(chunk)) await once(process.stdout, "drain")
    }
  })
