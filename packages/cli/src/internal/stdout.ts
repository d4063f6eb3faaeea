/** Output that may be larger than one string: written chunk by chunk, waiting when stdout is full. */
import * as Effect from "effect/Effect"
import { once } from "node:events"

export const writeStdout = (chunks: Iterable<string>): Effect.Effect<void> =>
  Effect.promise(async () => {
    for (const chunk of chunks) {
      if (!process.stdout.write(chunk)) await once(process.stdout, "drain")
    }
  })

/** `JSON.stringify(values, null, 2) + "\n"`, one element at a time. */
export function* jsonArrayLines(values: ReadonlyArray<unknown>): Generator<string> {
  if (values.length === 0) {
    yield "[]\n"
    return
  }
  yield "["
  for (let i = 0; i < values.length; i++) {
    // JSON text has no raw newlines inside strings, so re-indenting by line is exact
    const element = (JSON.stringify(values[i], null, 2) ?? "null").split("\n").join("\n  ")
    yield `${i === 0 ? "" : ","}\n  ${element}`
  }
  yield "\n]\n"
}
