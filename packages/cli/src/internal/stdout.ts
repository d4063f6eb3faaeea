/** Output that may be larger than one string: written chunk by chunk to the io's stdout, waiting when it is full. */
import * as Effect from "effect/Effect"
import { CurrentIo } from "./currentIo.js"

export const writeStdout = (chunks: Iterable<string>): Effect.Effect<void, never, CurrentIo> =>
  Effect.flatMap(CurrentIo, (io) =>
    Effect.promise(async () => {
      for (const chunk of chunks) await io.stdout(chunk)
    }))
