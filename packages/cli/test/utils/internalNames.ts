/**
 * The names a user must never read in an `acx` message, enumerated from the source: modules
 * with two or more humps (`ClaudeProjects`, `SessionIndex`; one-word modules like `Fork` are
 * ordinary words), the operations of the services the CLI calls (`listSessionFiles`), and what
 * the platform says of a failed request.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const PACKAGES = fileURLToPath(new URL("../../../", import.meta.url))

/** Every `.ts` file under `dir`. */
export const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(path.join(dir, entry.name))
      : entry.name.endsWith(".ts")
      ? [path.join(dir, entry.name)]
      : []
  )

const SERVICES = [
  "claude-code/src/ClaudeProjects.ts",
  "claude-code/src/SessionIndex.ts",
  "session-store/src/SessionStore.ts",
  "storage/src/AcontextClient.ts",
  "agent/src/AgentSession.ts"
]

export const internalNames = (): ReadonlyArray<string> => {
  const modules = fs.readdirSync(PACKAGES).flatMap((pkg) => {
    const src = path.join(PACKAGES, pkg, "src")
    return fs.existsSync(src) ? sourceFiles(src).map((file) => path.basename(file, ".ts")) : []
  }).filter((name) => /^[A-Z][a-z0-9]+[A-Z]\w*$/.test(name))
  const operations = SERVICES.flatMap((file) =>
    [...fs.readFileSync(path.join(PACKAGES, file), "utf8").matchAll(/^\s+readonly (\w+): \(/gm)].map((m) => m[1]!)
  ).filter((name) => /[a-z][A-Z]/.test(name))
  return [...new Set([...modules, ...operations, "Transport error", "SystemError", "RequestError", "[object Object]"])]
}
