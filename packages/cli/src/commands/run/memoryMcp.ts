/**
 * What `acx memory mcp` does: the memory as an MCP server on stdio, until the client closes
 * stdin or a signal stops it.
 *
 * @since 0.1.0
 */
import * as MemoryMcp from "@acx/memory/MemoryMcp"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
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

/** Ends when the client closes stdin: the server has no one left to answer. */
const untilStdinEnds = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = () =>
  withDatabase(
    Layer.launch(MemoryMcp.layerDispatched({ version: VERSION, stdin: stdin(), stdout: NodeSink.stdout })).pipe(
      Effect.raceFirst(untilStdinEnds),
      Effect.raceFirst(untilSignal),
      // stdout is the protocol: every log line goes to stderr
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: false })))
    )
  )
