/**
 * The memory database as the page's server holds it: opened on the first request that finds
 * `$ACX_HOME/memory.db` (never created: no file, no memory), once, in the server's scope, with
 * its own SQLite client (`MemoryDatabase.layerExisting`: WAL, busy timeout, a missing migration
 * applied in an immediate transaction like the hook's, so the worker or a hook migrating at the
 * same moment cannot apply one twice).
 */
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import type { MemoryError } from "@acx/memory/MemoryError"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"

/** The memory database, opened on demand. */
export interface MemoryDb {
  /** `$ACX_HOME/memory.db`. */
  readonly file: string
  /** Whether the file exists now. */
  readonly exists: () => boolean
  /** Runs `effect` on the memory; `None` when there is no database (nothing is created). */
  readonly use: <A, E>(
    effect: Effect.Effect<A, E, MemoryRepo.MemoryRepo>
  ) => Effect.Effect<Option.Option<A>, E | MemoryError>
}

/** The handle; the client it opens closes with `scope`'s close (the server's). */
export const make = (acxHome: string): Effect.Effect<MemoryDb, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const file = MemoryConfig.paths(acxHome).database
    const exists = () => fs.existsSync(file)
    const lock = yield* Effect.makeSemaphore(1)
    let opened: Context.Context<MemoryRepo.MemoryRepo> | undefined
    const client = lock.withPermits(1)(Effect.suspend(() => {
      if (opened !== undefined) return Effect.succeed(Option.some(opened))
      if (!exists()) return Effect.succeed(Option.none())
      return Layer.buildWithScope(MemoryRepo.layerExisting(file), scope).pipe(
        Effect.map((context) => {
          opened = context
          return Option.some<Context.Context<MemoryRepo.MemoryRepo>>(context)
        }),
        // deleted between the check and the open: still no memory
        Effect.catchIf((error) => error.reason === "NotFound", () => Effect.succeed(Option.none()))
      )
    }))
    const use = <A, E>(effect: Effect.Effect<A, E, MemoryRepo.MemoryRepo>) =>
      Effect.flatMap(client, (context) =>
        Option.isNone(context) || !exists()
          ? Effect.succeed(Option.none<A>())
          : Effect.map(Effect.provide(effect, context.value), Option.some))
    return { file, exists, use }
  })
