/** What every route reads from: the transcripts' source, acx's home, the server's hosts. */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type { LiveTranscripts } from "./liveTranscripts.js"
import type { MemoryDb } from "./memoryDb.js"
import type { SearchIndex } from "./searchIndex.js"
import type { SessionsList } from "./sessionsList.js"
import type { TranscriptSource } from "./transcriptSource.js"

/** The sources the routes read, fixed when the server starts. */
export interface UiContext {
  /** Where the transcripts come from: a config directory's files or a store. */
  readonly source: TranscriptSource
  /** `source.projects`: the session index and listings. */
  readonly projects: ClaudeProjects.ClaudeProjects
  /** The Claude Code config directory (absolute), or the store (`source.location`). */
  readonly configDir: string
  /** What the search box searches: the store read, else the default sync store if there is one. */
  readonly search: SearchIndex
  /** `$ACX_HOME`: the memory database, the caches, pricing.json. */
  readonly acxHome: string
  /** The `Host` values the server answers for (writes check their `Origin` against them). */
  readonly allowedHosts: ReadonlySet<string>
  /** The memory database (`$ACX_HOME/memory.db`), opened on demand, never created. */
  readonly memory: MemoryDb
  /** The sessions list, kept and paged from memory. */
  readonly sessions: SessionsList
  /** The session page's live updates: one shared reader per transcript. */
  readonly live: LiveTranscripts
}
