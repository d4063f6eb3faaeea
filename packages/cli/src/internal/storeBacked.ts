/**
 * Which `ClaudeProjects` services read a session store (`--from`) rather than a config directory:
 * a module of its own, so that `storeSource.ts` (imported only with `--from`) and `source.ts`
 * (which imports it lazily) share it without importing each other.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as SessionStore from "@acx/session-store/SessionStore"

// The services that read a store (`storeSource.ts`), not a config directory, and their store.
const storeBacked = new WeakMap<ClaudeProjects.ClaudeProjects, SessionStore.SessionStore>()

/** Marks `projects` as reading the session store `store` (`--from`); returns it. */
export const markStoreBacked = (
  projects: ClaudeProjects.ClaudeProjects,
  store: SessionStore.SessionStore
): ClaudeProjects.ClaudeProjects => {
  storeBacked.set(projects, store)
  return projects
}

/** The store `projects` reads (`--from`), or `undefined` for a config directory. */
export const storeOf = (projects: ClaudeProjects.ClaudeProjects): SessionStore.SessionStore | undefined =>
  storeBacked.get(projects)

/**
 * Whether `projects` reads a session store (`--from`): its listings' `size` is 0 (a store keeps
 * entries, not files), its `projectsDir` the store's name.
 */
export const isStoreBacked = (projects: ClaudeProjects.ClaudeProjects): boolean => storeBacked.has(projects)
