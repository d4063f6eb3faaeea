/**
 * The one way acx imports a lazily loaded database driver (`better-sqlite3` through
 * `@effect/sql-sqlite-node`, `pg` through `@effect/sql-pg` or directly), so that no earlier file
 * operation changes how the driver resolves.
 *
 * Node 20's `fs.realpathSync`, which its module loaders use, reads the type of a cached path
 * component from the stat buffer the last synchronous or callback `stat` filled. When that last
 * `stat` was of a FIFO or a socket (a transcript listing that met one), it stops resolving links
 * early and the driver loads from its `node_modules` link, where its own dependencies
 * (`bindings`, `pg-types`) cannot be found. A `stat` of this module's own file, just before the
 * import, refills that buffer with a regular file's type.
 *
 * @since 0.4.0
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"

/**
 * Refills Node's shared stat buffer with a regular file's `stat` (see the module doc).
 *
 * @since 0.4.0
 * @category loading
 */
export const forgetLastStat = (): void => {
  try {
    fs.statSync(fileURLToPath(import.meta.url))
  } catch {
    // a bundle moved away from its file: nothing was resolved through it either
  }
}

/**
 * Runs `load` (a dynamic `import()` of a driver) after `forgetLastStat`. Every driver import in
 * acx goes through here; the caller maps a rejection to its own typed `MissingDriver` error.
 *
 * @since 0.4.0
 * @category loading
 */
export const load = <A>(load: () => Promise<A>): Promise<A> => {
  forgetLastStat()
  return load()
}
