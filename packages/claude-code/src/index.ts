/**
 * @since 0.1.0
 */

/**
 * A typed view over a Claude Code config directory: projects, sessions, subagents, append, delete.
 *
 * @since 0.1.0
 */
export * as ClaudeProjects from "./ClaudeProjects.js"

/**
 * A listed session's one Schema and one order, for `acx sessions --json` and the page's list.
 *
 * @since 0.1.0
 */
export * as SessionListing from "./SessionListing.js"

/**
 * A listing's order and rows without its Schema (for readers that start without Effect).
 *
 * @since 0.3.0
 */
export * as ListingRows from "./ListingRows.js"

/**
 * Claude Code's on-disk layout as a SessionStore (mirror into a second Claude-format directory).
 *
 * @since 0.1.0
 */
export * as ClaudeProjectsSessionStore from "./ClaudeProjectsSessionStore.js"

/**
 * Import a Claude config directory into any SessionStore (idempotent, batched, with progress).
 *
 * @since 0.1.0
 */
export * as ClaudeImport from "./ClaudeImport.js"

/**
 * Push one past Claude Code session to Acontext (full history, resumable, idempotent).
 *
 * @since 0.1.0
 */
export * as ClaudePush from "./ClaudePush.js"

/**
 * The one reader of transcript files: regular files only (checked on the opened descriptor), lines
 * with byte offsets from any offset, an unfinished last line held back, a line-size cap, one UTF-8
 * and CR rule.
 *
 * @since 0.2.0
 */
export * as TranscriptReader from "./TranscriptReader.js"

/**
 * Statistics of many transcripts on every core, each file's fold cached under `$ACX_HOME/cache` and continued when it grows.
 *
 * @since 0.1.0
 */
export * as TranscriptStats from "./TranscriptStats.js"

/**
 * The statistics of a config directory as `acx stats` and the web page compute them.
 *
 * @since 0.1.0
 */
export * as SessionStats from "./SessionStats.js"

/**
 * The statistics' report and `--json` document from folds, without Effect.
 *
 * @since 0.3.0
 */
export * as StatsOutput from "./StatsOutput.js"

/**
 * `acx stats --by block`: 5-hour billing windows with burn rate, projection and quota readings.
 *
 * @since 0.3.0
 */
export * as BlockStats from "./BlockStats.js"

/**
 * A session store read as a config directory: the `ClaudeProjects` service over a SQLite or
 * Postgres store and its catalog (`acx … --from`).
 *
 * @since 0.3.0
 */
export * as StoreProjects from "./StoreProjects.js"

/**
 * A store's transcripts named, and its catalog's sessions listed, as `StoreProjects` does,
 * without Effect.
 *
 * @since 0.3.0
 */
export * as StoreListing from "./StoreListing.js"

/**
 * The statistics of a session store, folded as transcript files are, cached per session.
 *
 * @since 0.3.0
 */
export * as StoreStats from "./StoreStats.js"

/**
 * `StoreStats`' per-store cache, read without Effect.
 *
 * @since 0.3.0
 */
export * as StoreStatsCache from "./StoreStatsCache.js"

/**
 * Where a session came from, as a team sees it: machine, OS user, and the project by its git
 * remote (else its path).
 *
 * @since 0.3.0
 */
export * as ProjectOrigin from "./ProjectOrigin.js"

/**
 * A session in each format of `acx show -f`, chunk by chunk (the CLI and the web page share it).
 *
 * @since 0.1.0
 */
export * as SessionExport from "./SessionExport.js"

/**
 * The error of `ClaudeProjects` (which re-exports it).
 *
 * @since 0.1.0
 */
export * as ClaudeProjectsError from "./ClaudeProjectsError.js"

/**
 * Where each session of the statistics came from (a store's recorded origins, or this machine for
 * a config directory): what `stats --by project|machine|user` groups by.
 *
 * @since 0.3.0
 */
export * as StatsOrigins from "./StatsOrigins.js"

/**
 * The statistics of many transcript files without Effect (what `TranscriptStats` runs).
 *
 * @since 0.4.0
 */
export * as TranscriptFolds from "./TranscriptFolds.js"

/**
 * A config directory's transcripts listed without Effect, when the tree is plain.
 *
 * @since 0.4.0
 */
export * as PlainListing from "./PlainListing.js"

/**
 * What `acx sync` finds in a config directory unchanged since the last sync, without Effect.
 *
 * @since 0.4.0
 */
export * as UnchangedSync from "./UnchangedSync.js"

/**
 * `SessionIndex` without Effect: its cache file and the index itself (head/tail reads, resumes,
 * the cache write).
 *
 * @since 0.4.0
 */
export * as SessionIndexCache from "./SessionIndexCache.js"

/**
 * The one walk of a config directory's `projects` tree, without Effect.
 *
 * @since 0.5.0
 */
export * as ConfigTree from "./ConfigTree.js"

/**
 * The warning lines of a listing and of the stats fold, in the words the CLI prints.
 *
 * @since 0.5.0
 */
export * as ListingWarnings from "./ListingWarnings.js"

/**
 * Claude Code settings and MCP files merged and unmerged, pure: acx's hooks and server added or removed, everything else kept.
 *
 * @since 0.5.0
 */
export * as ClaudeSettingsMerge from "./ClaudeSettingsMerge.js"

/**
 * Claude Code's settings files per scope, read whole, backed up, and replaced atomically.
 *
 * @since 0.5.0
 */
export * as ClaudeSettingsFiles from "./ClaudeSettingsFiles.js"

/**
 * The error of changing Claude Code's settings files.
 *
 * @since 0.5.0
 */
export * as ClaudeSettingsError from "./ClaudeSettingsError.js"

/**
 * A session as a listing shows it: the model the listings and their rows share.
 *
 * @since 0.5.0
 */
export * as SessionInfo from "./SessionInfo.js"
