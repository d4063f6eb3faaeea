/**
 * A user a test can drop to, so that `chmod 000` means something when the tests run as root (as
 * in CI), where permission bits stop nothing: `nobody` (its ids from `id`), with a scratch
 * directory it owns under `/tmp` (the run's `TMPDIR` may be closed to other users). Not root:
 * the test's own user, for whom the bits already hold.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export interface Unprivileged {
  /** What `acx(…, { user })` takes; `undefined` when the tests are not root (run as they are). */
  readonly user: { readonly uid: number; readonly gid: number } | undefined
  /** A scratch directory the user owns (remove it with `removeDir`). */
  readonly dir: string
  /** Gives `target` (a tree built as root) to the user. */
  readonly own: (target: string) => void
}

/** The user to drop to and its scratch directory, or why there is none. */
export const unprivileged = (prefix: string): Unprivileged | { readonly why: string } => {
  const root = process.getuid?.() === 0
  let user: Unprivileged["user"]
  if (root) {
    try {
      const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim())
      const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim())
      user = { uid, gid }
    } catch (error) {
      return { why: `running as root and no user nobody: ${String(error)}`.slice(0, 200) }
    }
  }
  const dir = fs.mkdtempSync(path.join(root ? "/tmp" : (process.env["TMPDIR"] ?? "/tmp"), `acx-cli-${prefix}-`))
  fs.chmodSync(dir, 0o755)
  const own = (target: string) => {
    if (user !== undefined) execFileSync("chown", ["-R", `${user.uid}:${user.gid}`, target])
  }
  own(dir)
  return { user, dir, own }
}
