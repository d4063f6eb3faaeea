/**
 * @since 0.1.0
 */

/**
 * acx's home directory (`ACX_HOME`, else `~/.acx`), the paths acx keeps there, and the one way
 * acx creates things in it: directories 0700, files 0600.
 *
 * @since 0.1.0
 */
export * as AcxHome from "./AcxHome.js"

/**
 * Where the Claude Code binary is: `ACX_CLAUDE_PATH`, the installed `@anthropic-ai/claude-code`, `claude` on `PATH`.
 *
 * @since 0.1.0
 */
export * as ClaudeBinary from "./ClaudeBinary.js"

/**
 * The one way a database driver is imported, so that an earlier `stat` of a FIFO cannot change
 * how it resolves.
 *
 * @since 0.4.0
 */
export * as DriverImport from "./DriverImport.js"

/**
 * The one grammar for naming a database (`sqlite:FILE`, `FILE.db`, `postgres://…?schema=`), the
 * password never shown.
 *
 * @since 0.1.0
 */
export * as DatabaseSpec from "./DatabaseSpec.js"

/**
 * Where better-sqlite3's native addon is, resolved once (for processes that open SQLite without Effect).
 *
 * @since 0.3.0
 */
export * as SqliteAddon from "./SqliteAddon.js"

/**
 * The SQLite half of `DatabaseSpec`'s grammar, without Effect (for readers that start without it).
 *
 * @since 0.3.0
 */
export * as SqliteSpec from "./SqliteSpec.js"

/**
 * The Postgres half of `DatabaseSpec`'s grammar, without Effect (for readers that start without it).
 *
 * @since 0.4.0
 */
export * as PostgresSpec from "./PostgresSpec.js"

/**
 * Finding a session by its id or a unique prefix of at least 4 characters, case-insensitively.
 *
 * @since 0.1.0
 */
export * as SessionIdLookup from "./SessionIdLookup.js"

/**
 * Whether the process that recorded a pid is still that process: not exited, not a zombie, its
 * pid not reused (the start time recorded beside it, from `/proc`).
 *
 * @since 0.3.0
 */
export * as ProcessLiveness from "./ProcessLiveness.js"
