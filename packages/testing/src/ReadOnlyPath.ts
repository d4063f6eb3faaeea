/**
 * Makes a file or directory read-only for a test, also when the tests run as root (as in CI),
 * where permission bits stop nothing: the mode is dropped to read-only, and when the path is
 * still writable (root), the immutable attribute is set with `chattr +i` (ext4, xfs, btrfs …).
 * A directory made read-only accepts no new file (SQLite cannot create its `-wal`/`-shm` there).
 *
 * ```ts
 * const readOnly = makeReadOnly(file)
 * it.skipIf(!readOnly.ok)(`… (${readOnly.why})`, …)
 * // afterwards: readOnly.restore()
 * ```
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The outcome of {@link makeReadOnly}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReadOnlyPath {
  /** Whether the path is now read-only (checked by trying to write it). */
  readonly ok: boolean
  /** How it was made read-only, or why it could not be. */
  readonly why: string
  /** Makes the path writable again (mode and attribute as before); safe to call twice. */
  readonly restore: () => void
}

/**
 * Whether `target` can be written: a file opened for writing, a directory given a new file.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isWritable = (target: string): boolean => {
  try {
    if (fs.statSync(target).isDirectory()) {
      const probe = path.join(target, `.acx-write-probe-${randomUUID()}`)
      fs.writeFileSync(probe, "")
      fs.unlinkSync(probe)
    } else {
      fs.closeSync(fs.openSync(target, "r+"))
    }
    return true
  } catch {
    return false
  }
}

/**
 * Makes `target` read-only (see the module doc); `restore` undoes it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeReadOnly = (target: string): ReadOnlyPath => {
  const stat = fs.statSync(target)
  const mode = stat.mode & 0o7777
  let immutable = false
  const restore = () => {
    if (immutable) {
      execFileSync("chattr", ["-i", target], { stdio: "ignore" })
      immutable = false
    }
    fs.chmodSync(target, mode)
  }
  fs.chmodSync(target, stat.isDirectory() ? 0o555 : 0o444)
  if (!isWritable(target)) return { ok: true, why: "mode read-only", restore }
  try {
    execFileSync("chattr", ["+i", target], { stdio: "ignore" })
    immutable = true
  } catch (error) {
    restore()
    return { ok: false, why: `running as root and chattr +i failed: ${String(error)}`.slice(0, 200), restore }
  }
  if (!isWritable(target)) return { ok: true, why: "immutable (chattr +i)", restore }
  restore()
  return { ok: false, why: "still writable after chmod and chattr +i", restore }
}

/**
 * Whether this machine can make a path under `dir` read-only for this process (tried on a scratch
 * file, then undone): for `it.skipIf(!probe.ok)(`… (${probe.why})`, …)`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const probeReadOnly = (dir: string): ReadOnlyPath => {
  const file = path.join(dir, `.acx-read-only-probe-${randomUUID()}`)
  fs.writeFileSync(file, "")
  const readOnly = makeReadOnly(file)
  readOnly.restore()
  fs.rmSync(file, { force: true })
  return readOnly
}
