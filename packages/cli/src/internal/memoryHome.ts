/**
 * What the `acx memory` handlers share: the memory's files under `$ACX_HOME`, its database
 * (checked for damage first).
 */
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { acxPaths, CurrentIo } from "./currentIo.js"

/** The memory's files under `$ACX_HOME` (default `~/.acx`) of the command's io. */
export const files: Effect.Effect<MemoryConfig.MemoryPaths, never, CurrentIo> = Effect.map(
  CurrentIo,
  (io) => MemoryConfig.paths(acxPaths(io).home)
)

/** The memory database's layer, at {@link files}. */
export const databaseLayer = Layer.unwrapEffect(Effect.map(files, (paths) => MemoryDatabase.layer(paths.database)))

/**
 * The memory database, checked for damage first (the error names the restore command):
 * `MemoryRepo` on it, and its `@effect/sql` client for what runs inside the memory package (the
 * MCP server).
 */
export const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const paths = yield* files
    yield* MemoryBackup.check(paths)
    return yield* effect.pipe(
      Effect.provide(Layer.provideMerge(MemoryRepo.layer, MemoryDatabase.layer(paths.database)))
    )
  })
