/**
 * Which `ClaudeProjects` services read a session store (`--from`) rather than a config directory:
 * a module of its own, so that `storeSource.ts` (imported only with `--from`) and `source.ts`
 * (which imports it lazily) share it without importing each other.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"

// The services that read a store (`storeSource.ts`), not a config directory.
const storeBacked = new WeakSet<ClaudeProjects.ClaudeProjects>()

/** Marks `projects` as reading a session store (`--from`); returns it. */
export const markStoreBacked = (projects: ClaudeProjects.ClaudeProjects): ClaudeProjects.ClaudeProjects => {
  storeBacked.add(projects)
  return projects
}

/**
 * Whether `projects` reads a session store (`--from`): its listings' `size` is 0 (a store keeps
 * entries, not files), its `projectsDir` the store's name.
 */
export const isStoreBacked = (projects: ClaudeProjects.ClaudeProjects): boolean => storeBacked.has(projects)
