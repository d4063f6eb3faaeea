/**
 * What the `acx memory` handlers share: the memory's files under `$ACX_HOME`, its database
 * (checked for damage first), and the end of a long-running one on SIGTERM / SIGINT.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as Effect from "effect/Effect"

/** The memory's files under `$ACX_HOME` (default `~/.acx`). */
export const files = () => MemoryConfig.paths(AcxHome.acxHome())

/** The memory database, checked for damage first (the error names the restore command). */
export const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* MemoryBackup.check(files())
    return yield* effect.pipe(Effect.provide(MemoryDatabase.layer(files().database)))
  })

export { untilSignal } from "./signals.js"
