/** What every route reads from: the config directory's projects, acx's home, the server's hosts. */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type { LiveTranscripts } from "./liveTranscripts.js"
import type { MemoryDb } from "./memoryDb.js"

/** The sources the routes read, fixed when the server starts. */
export interface UiContext {
  readonly projects: ClaudeProjects.ClaudeProjects
  /** The Claude Code config directory (absolute). */
  readonly configDir: string
  /** `$ACX_HOME`: the memory database, the caches, pricing.json. */
  readonly acxHome: string
  /** The `Host` values the server answers for (writes check their `Origin` against them). */
  readonly allowedHosts: ReadonlySet<string>
  /** The memory database (`$ACX_HOME/memory.db`), opened on demand, never created. */
  readonly memory: MemoryDb
  /** The session page's live updates: one shared reader per transcript. */
  readonly live: LiveTranscripts
}
