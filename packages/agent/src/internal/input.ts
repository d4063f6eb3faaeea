/**
 * The SDK reads a streaming-input prompt as an `AsyncIterable<SDKUserMessage>`; acx pushes into
 * an Effect `Queue`. Shutting the queue down ends the iterable, which closes the CLI's stdin: the
 * CLI finishes what it writes and exits.
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"

/** An async iterable over a queue's items, ending when the queue is shut down. */
export const queueIterable = <A>(queue: Queue.Dequeue<A>): AsyncIterable<A> => ({
  async *[Symbol.asyncIterator]() {
    while (true) {
      // a take on a shut-down queue is an interruption: the iterable ends
      const exit = await Effect.runPromiseExit(Queue.take(queue))
      if (exit._tag === "Failure") return
      yield exit.value
    }
  }
})
