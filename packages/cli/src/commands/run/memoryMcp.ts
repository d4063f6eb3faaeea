/**
 * What `acx memory mcp [--from TARGET]` does: the memory as an MCP server on stdio, until the
 * client closes stdin (after answering what it read) or a signal stops it. Its session tools read
 * `--from`, else the store `acx sync` keeps, opened when a tool first asks (creating nothing).
 *
 * @since 0.1.0
 */
import * as MemoryMcp from "@acx/memory/MemoryMcp"
import * as SessionTools from "@acx/memory/SessionTools"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { describeError } from "../../CliError.js"
import { CurrentIo } from "../../internal/currentIo.js"
import { takeFront } from "../../internal/mcpFront.js"
import { withDatabase } from "../../internal/memoryHome.js"
import { listenForSignal } from "../../internal/signals.js"
import { readTarget } from "../../internal/target.js"
import { VERSION } from "../../internal/version.js"
import type { McpOptions } from "../args/memoryMcp.js"

/** Stdin as the server reads it: through the front when one started first, else directly. */
const stdin = (): Stream.Stream<Uint8Array, unknown> => {
  const front = takeFront()
  if (front === undefined) return NodeStream.stdin
  return Stream.async<Uint8Array>((emit) => {
    front.take((chunk) => void emit.single(chunk), () => void emit.end())
  })
}

/**
 * The session tools' store, opened once on first use and kept for the server's life (in its
 * scope); a failed open is tried again by the next call (the store may exist by then).
 */
const sessionsSource = (
  from: string | undefined
): Effect.Effect<SessionTools.SessionsSource, never, Scope.Scope | CurrentIo> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const io = yield* CurrentIo
    const lock = yield* Effect.makeSemaphore(1)
    let opened: SessionTools.OpenSessions | undefined
    const open = Effect.gen(function*() {
      if (opened !== undefined) return opened
      const target = yield* readTarget(from, "--from", "")
      const store = Context.get(yield* Layer.buildWithScope(target.layer, scope), SessionStore.SessionStore)
      const catalog = StoreCatalog.catalogOf(store)
      if (catalog === undefined) return yield* Effect.fail(`${target.display} keeps no search index`)
      opened = { store, catalog, target: target.display }
      return opened
    }).pipe(
      Effect.mapError((error) => typeof error === "string" ? error : describeError(error)),
      lock.withPermits(1),
      Effect.provideService(CurrentIo, io)
    )
    return { open }
  })

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ from }: McpOptions) =>
  withDatabase(Effect.scoped(Effect.gen(function*() {
    // the client closed stdin and got every answer it asked for: no one is left to answer
    const done = yield* Deferred.make<void>()
    // listening before the server starts: a signal before a raced listener ran killed it at once
    const stopped = yield* listenForSignal
    const source = yield* sessionsSource(from)
    yield* Layer.launch(
      MemoryMcp.layerDispatched({ version: VERSION, stdin: stdin(), stdout: NodeSink.stdout, done })
    ).pipe(
      Effect.provideService(SessionTools.SessionsSource, source),
      Effect.raceFirst(Deferred.await(done)),
      Effect.raceFirst(stopped),
      // stdout is the protocol: every log line goes to stderr
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: false })))
    )
  })))
