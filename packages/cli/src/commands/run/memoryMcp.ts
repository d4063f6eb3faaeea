/**
 * What `acx memory mcp` does: the memory as an MCP server on stdio, until the client closes
 * stdin (after answering what it read) or a signal stops it.
 *
 * @since 0.1.0
 */
import * as MemoryMcp from "@acx/memory/MemoryMcp"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import { takeFront } from "../../internal/mcpFront.js"
import { untilSignal, withDatabase } from "../../internal/memoryHome.js"
import { VERSION } from "../../internal/version.js"

/** Stdin as the server reads it: through the front when one started first, else directly. */
const stdin = (): Stream.Stream<Uint8Array, unknown> => {
  const front = takeFront()
  if (front === undefined) return NodeStream.stdin
  return Stream.async<Uint8Array>((emit) => {
    front.take((chunk) => void emit.single(chunk), () => void emit.end())
  })
}

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = () =>
  withDatabase(Effect.gen(function*() {
    // the client closed stdin and got every answer it asked for: no one is left to answer
    const done = yield* Deferred.make<void>()
    yield* Layer.launch(
      MemoryMcp.layerDispatched({ version: VERSION, stdin: stdin(), stdout: NodeSink.stdout, done })
    ).pipe(
      Effect.raceFirst(Deferred.await(done)),
      Effect.raceFirst(untilSignal),
      // stdout is the protocol: every log line goes to stderr
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: false })))
    )
  }))
