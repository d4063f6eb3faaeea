/**
 * What the `acx memory` handlers share: the memory's files under `$ACX_HOME`, its database
 * (checked for damage first).
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The memory's files under `$ACX_HOME` (default `~/.acx`). */
export const files = () => MemoryConfig.paths(AcxHome.acxHome())

/**
 * The memory database, checked for damage first (the error names the restore command):
 * `MemoryRepo` on it, and its `@effect/sql` client for what runs inside the memory package (the
 * MCP server).
 */
export const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* MemoryBackup.check(files())
    return yield* effect.pipe(
      Effect.provide(Layer.provideMerge(MemoryRepo.layer, MemoryDatabase.layer(files().database)))
    )
  })
