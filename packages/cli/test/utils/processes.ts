/**
 * Processes a test started that may outlive it: a hook starts the memory worker or a sync
 * detached, and it can still write (its log, the database, a lock) after the test's checks, so a
 * directory removed under it comes back and is left in the run's temp dir.
 */
import * as fs from "node:fs"

/** The variables that say where a process writes: acx's home, the user's home, Claude's config. */
const PLACES = ["ACX_HOME=", "HOME=", "CLAUDE_CONFIG_DIR="]

/**
 * The pids of live processes (this one aside) whose `ACX_HOME`, `HOME` or `CLAUDE_CONFIG_DIR` is
 * `root` or lies under it. Linux's `/proc`; a process that went away while being read is not
 * counted.
 */
export const processesUnder = (root: string): Array<number> => {
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      const inside = fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").some((variable) => {
        const place = PLACES.find((name) => variable.startsWith(name))
        const value = place === undefined ? undefined : variable.slice(place.length)
        return value !== undefined && (value === root || value.startsWith(`${root}/`))
      })
      if (inside) found.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }
  return found
}

/**
 * Removes a test's directory once no process that writes inside it ({@link processesUnder}) runs
 * any more; waits at most `timeoutMs`, then removes it anyway and fails naming the survivors.
 */
export const removeTreeWhenIdle = async (root: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let left = processesUnder(root)
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    left = processesUnder(root)
  }
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  if (left.length > 0) throw new Error(`processes still writing in ${root} after ${timeoutMs} ms: ${left.join(", ")}`)
}
