/**
 * @since 0.1.0
 */

/**
 * What a hook's stdin asks the memory to record, pure: checked, private parts removed, secrets redacted, large values cut.
 *
 * @since 0.1.0
 */
export * as HookCapture from "./HookCapture.js"

/**
 * One hook invocation as a function: records, builds SessionStart's context, spools when the database is locked.
 *
 * @since 0.1.0
 */
export * as HookRunner from "./HookRunner.js"

/**
 * What distilling past sessions with the observer would cost, from the sizes of their events, before anything is spent.
 *
 * @since 0.3.0
 */
export * as BackfillEstimate from "./BackfillEstimate.js"

/**
 * Observations and summaries without a model: files, commands, errors and prompts read from the events.
 *
 * @since 0.1.0
 */
export * as LocalObservations from "./LocalObservations.js"

/**
 * The JSON-RPC front of an MCP server on stdio, pure: string and number ids echoed exactly, `server/discover` answered, -32601 for unknown methods.
 *
 * @since 0.1.0
 */
export * as McpDispatcher from "./McpDispatcher.js"

/**
 * The memory's status and forgetting.
 *
 * @since 0.1.0
 */
export * as MemoryAdmin from "./MemoryAdmin.js"

/**
 * Online backups of the memory database, pruning, damage checks and restore.
 *
 * @since 0.1.0
 */
export * as MemoryBackup from "./MemoryBackup.js"

/**
 * The memory's settings (`$ACX_HOME/config.json`, every key defaulted) and files.
 *
 * @since 0.1.0
 */
export * as MemoryConfig from "./MemoryConfig.js"

/**
 * Curation with undo: observations and summaries forgotten softly (left out by every reader) and restored.
 *
 * @since 0.1.0
 */
export * as MemoryCuration from "./MemoryCuration.js"

/**
 * The context SessionStart injects, within a token budget, pure.
 *
 * @since 0.1.0
 */
export * as MemoryContext from "./MemoryContext.js"

/**
 * The memory database for Effect programs: SQLite, WAL, `@effect/sql` migrations.
 *
 * @since 0.1.0
 */
export * as MemoryDatabase from "./MemoryDatabase.js"

/**
 * What can go wrong in the memory: one typed error with a `reason`.
 *
 * @since 0.1.0
 */
export * as MemoryError from "./MemoryError.js"

/**
 * `acx memory install` / `uninstall`: acx's hooks in Claude Code's settings, backups first, exactly undone.
 *
 * @since 0.1.0
 */
export * as MemoryInstall from "./MemoryInstall.js"

/**
 * What `acx memory install` / `uninstall` did, as lines for the CLI.
 *
 * @since 0.1.0
 */
export * as MemoryInstallReport from "./MemoryInstallReport.js"

/**
 * The options and reports of `MemoryInstall`.
 *
 * @since 0.1.0
 */
export * as MemoryInstallOptions from "./MemoryInstallOptions.js"

/**
 * The memory's capture as Agent SDK programmatic hooks: `query({ options: { hooks: memoryHooks() } })`.
 *
 * @since 0.1.0
 */
export * as MemoryHooks from "./MemoryHooks.js"

/**
 * The memory as an MCP server on stdio: search, get_observations, timeline.
 *
 * @since 0.1.0
 */
export * as MemoryMcp from "./MemoryMcp.js"

/**
 * What `acx memory mcp` says of itself in `server/discover`, pure and without Effect.
 *
 * @since 0.1.0
 */
export * as MemoryMcpDescription from "./MemoryMcpDescription.js"

/**
 * Every read and write the memory's callers need, as one service over `MemoryRows` (SQLite here; a second backend implements the same interface).
 *
 * @since 0.1.0
 */
export * as MemoryRepo from "./MemoryRepo.js"

/**
 * The memory's rows, one type per concept (event, observation, summary, prompt, session), the same for every backend.
 *
 * @since 0.1.0
 */
export * as MemoryRows from "./MemoryRows.js"

/**
 * Full-text search, entries by id, timelines.
 *
 * @since 0.1.0
 */
export * as MemorySearch from "./MemorySearch.js"

/**
 * Test-facing: a memory database seeded through the real hook and `MemoryRepo`, as Claude Code and the worker fill it.
 *
 * @since 0.1.0
 */
export * as MemorySeed from "./MemorySeed.js"

/**
 * The queue, sessions, the usage ledger: the worker's reads and writes.
 *
 * @since 0.1.0
 */
export * as MemoryStore from "./MemoryStore.js"

/**
 * The worker: queued events to observations and summaries through one observer conversation per session.
 *
 * @since 0.1.0
 */
export * as MemoryWorker from "./MemoryWorker.js"

/**
 * `acx memory backfill`: past sessions' transcripts turned into the hook events Claude Code would have sent, queued once per session and distilled locally or by the observer within the daily budget.
 *
 * @since 0.3.0
 */
export * as MemoryBackfill from "./MemoryBackfill.js"

/**
 * The options and report of `MemoryBackfill`.
 *
 * @since 0.5.0
 */
export * as MemoryBackfillOptions from "./MemoryBackfillOptions.js"

/**
 * The hook calls Claude Code would have made for a past session, derived from its transcript and captured with the live hook's privacy rules.
 *
 * @since 0.3.0
 */
export * as TranscriptHooks from "./TranscriptHooks.js"

/**
 * The observer's prompts (files in the package), filled with a session's events.
 *
 * @since 0.1.0
 */
export * as ObserverPrompts from "./ObserverPrompts.js"
