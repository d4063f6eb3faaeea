/**
 * The memory database's schema, one entry per migration, applied by ONE runner
 * (`internal/sqlite.ts` `migrate`: the hook's synchronous open, and `MemoryDatabase`'s layers
 * before their `@effect/sql` client opens). It records them in the table `@effect/sql`'s
 * Migrator used to keep (`effect_sql_migrations`), so files migrated by older versions read the
 * same.
 *
 * Times are epoch milliseconds (integers); lists are JSON arrays in TEXT columns. The FTS5
 * indexes are external-content tables kept in step by triggers, so every write that touches a
 * row updates its index entry in the same transaction.
 */

/**
 * A migration: its id, name and statements (run in one transaction). Statements are kept
 * apart because a prepared statement holds exactly one (the `@effect/sql` client prepares).
 */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

/** Splits DDL on the semicolons that end statements (a trigger's body ends with `END;`). */
const statements = (ddl: string): Array<string> => {
  const out: Array<string> = []
  let current = ""
  for (const line of ddl.split("\n")) {
    current += `${line}\n`
    const trimmed = line.trim()
    const inTrigger = /^CREATE TRIGGER/i.test(current.trim()) && !/^END;$/i.test(trimmed)
    if (trimmed.endsWith(";") && !inTrigger) {
      out.push(current.trim())
      current = ""
    }
  }
  if (current.trim() !== "") out.push(current.trim())
  return out
}

const ftsOver = (table: string, columns: ReadonlyArray<string>): string => {
  const list = columns.join(", ")
  const values = (prefix: string) => columns.map((column) => `${prefix}.${column}`).join(", ")
  return `
CREATE VIRTUAL TABLE ${table}_fts USING fts5(${list}, content='${table}', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER ${table}_fts_insert AFTER INSERT ON ${table} BEGIN
  INSERT INTO ${table}_fts(rowid, ${list}) VALUES (new.id, ${values("new")});
END;
CREATE TRIGGER ${table}_fts_delete AFTER DELETE ON ${table} BEGIN
  INSERT INTO ${table}_fts(${table}_fts, rowid, ${list}) VALUES ('delete', old.id, ${values("old")});
END;
CREATE TRIGGER ${table}_fts_update AFTER UPDATE ON ${table} BEGIN
  INSERT INTO ${table}_fts(${table}_fts, rowid, ${list}) VALUES ('delete', old.id, ${values("old")});
  INSERT INTO ${table}_fts(rowid, ${list}) VALUES (new.id, ${values("new")});
END;`
}

const teamColumns = (table: string): ReadonlyArray<string> => [
  `ALTER TABLE ${table} ADD COLUMN uid TEXT`,
  `ALTER TABLE ${table} ADD COLUMN author TEXT`,
  `ALTER TABLE ${table} ADD COLUMN machine TEXT`,
  `ALTER TABLE ${table} ADD COLUMN team_forgotten INTEGER`,
  `CREATE UNIQUE INDEX ${table}_uid ON ${table} (uid) WHERE uid IS NOT NULL`
]

// A local forget, restore or delete of a shared entry queues its new state for the team; a pull
// sets `forgotten_at` and `team_forgotten` alike, which queues nothing
const teamTriggers = (table: string, kind: string): ReadonlyArray<string> => [
  `CREATE TRIGGER ${table}_team_forget AFTER UPDATE OF forgotten_at ON ${table}
  WHEN new.uid IS NOT NULL AND new.forgotten_at IS NOT new.team_forgotten BEGIN
  INSERT INTO memory_team_outbox (kind, uid, forgotten_at, created_at)
  VALUES ('${kind}', new.uid, new.forgotten_at, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END`,
  `CREATE TRIGGER ${table}_team_delete AFTER DELETE ON ${table}
  WHEN old.uid IS NOT NULL AND old.team_forgotten IS NULL BEGIN
  INSERT INTO memory_team_outbox (kind, uid, forgotten_at, created_at)
  VALUES ('${kind}', old.uid, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END`
]

/** Every migration, oldest first. */
export const migrations: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "memory_init",
    statements: statements(`
CREATE TABLE memory_sessions (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'interrupted', 'failed')),
  observer_session_id TEXT,
  observer_usage TEXT,
  observer_local_reason TEXT,
  transcript_path TEXT,
  prompt_count INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  last_event_at INTEGER NOT NULL,
  ended_at INTEGER,
  end_reason TEXT,
  last_error TEXT
);
CREATE INDEX memory_sessions_project ON memory_sessions (project, last_event_at);
CREATE INDEX memory_sessions_status ON memory_sessions (status, last_event_at);

CREATE TABLE memory_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('prompt', 'tool', 'tool_failure', 'summarise')),
  idempotency_key TEXT NOT NULL UNIQUE,
  tool_name TEXT,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  last_reply TEXT,
  processed_at INTEGER
);
CREATE INDEX memory_events_pending ON memory_events (state, session_id, id);
CREATE INDEX memory_events_session ON memory_events (session_id, id);

CREATE TABLE memory_prompts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  prompt_number INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_prompts_session ON memory_prompts (session_id, prompt_number);
CREATE INDEX memory_prompts_project ON memory_prompts (project, created_at);
${ftsOver("memory_prompts", ["text"])}

CREATE TABLE memory_observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  type TEXT NOT NULL,
  title TEXT NOT NULL,
  subtitle TEXT,
  narrative TEXT NOT NULL,
  facts TEXT NOT NULL DEFAULT '[]',
  concepts TEXT NOT NULL DEFAULT '[]',
  files_read TEXT NOT NULL DEFAULT '[]',
  files_modified TEXT NOT NULL DEFAULT '[]',
  event_ids TEXT NOT NULL DEFAULT '[]',
  source TEXT NOT NULL CHECK (source IN ('model', 'local')),
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_observations_project ON memory_observations (project, created_at);
CREATE INDEX memory_observations_session ON memory_observations (session_id, id);
${
      ftsOver("memory_observations", [
        "title",
        "subtitle",
        "narrative",
        "facts",
        "concepts",
        "files_read",
        "files_modified"
      ])
    }

CREATE TABLE memory_summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  request TEXT NOT NULL,
  investigated TEXT NOT NULL,
  learned TEXT NOT NULL,
  completed TEXT NOT NULL,
  next_steps TEXT NOT NULL,
  files_read TEXT NOT NULL DEFAULT '[]',
  files_edited TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL,
  event_ids TEXT NOT NULL DEFAULT '[]',
  source TEXT NOT NULL CHECK (source IN ('model', 'local')),
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_summaries_project ON memory_summaries (project, created_at);
CREATE INDEX memory_summaries_session ON memory_summaries (session_id, id);
${
      ftsOver("memory_summaries", [
        "request",
        "investigated",
        "learned",
        "completed",
        "next_steps",
        "files_read",
        "files_edited",
        "notes"
      ])
    }

CREATE TABLE memory_usage (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_creation_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  day TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_usage_day ON memory_usage (day);

CREATE TABLE memory_worker (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  pid INTEGER,
  started_at INTEGER,
  heartbeat_at INTEGER,
  stopped_at INTEGER,
  last_error TEXT,
  local_reason TEXT
);
INSERT INTO memory_worker (id) VALUES (1);
`)
  },
  {
    id: 2,
    name: "memory_worker_spawned_at",
    // when a hook last started a worker: hooks in a burst start one, not one each
    statements: ["ALTER TABLE memory_worker ADD COLUMN spawned_at INTEGER"]
  },
  {
    id: 3,
    name: "memory_forgotten_at",
    // soft delete (forget from the page, undo): readers leave rows with a time out; the partial
    // indexes list the few forgotten rows without reading the others
    statements: [
      "ALTER TABLE memory_observations ADD COLUMN forgotten_at INTEGER",
      "ALTER TABLE memory_summaries ADD COLUMN forgotten_at INTEGER",
      "CREATE INDEX memory_observations_forgotten ON memory_observations (forgotten_at) WHERE forgotten_at IS NOT NULL",
      "CREATE INDEX memory_summaries_forgotten ON memory_summaries (forgotten_at) WHERE forgotten_at IS NOT NULL"
    ]
  },
  {
    id: 4,
    name: "memory_worker_settings",
    // the mode and model the running worker uses (it re-reads config.json): what status shows
    statements: ["ALTER TABLE memory_worker ADD COLUMN settings TEXT"]
  },
  {
    id: 5,
    name: "memory_backfill",
    // `acx memory backfill`, per past session: `recorded` once its hook events are queued (in the
    // same transaction), `done` once they are distilled; a session's row is written once, so a
    // rerun (or one after kill -9) queues nothing twice
    statements: [
      `CREATE TABLE memory_backfill (
  session_id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  source TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('local', 'model')),
  state TEXT NOT NULL CHECK (state IN ('recorded', 'done')),
  events INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL,
  done_at INTEGER
)`,
      "CREATE INDEX memory_backfill_state ON memory_backfill (state) WHERE state = 'recorded'"
    ]
  },
  {
    id: 6,
    name: "memory_meta",
    // facts about the file as a whole: which redaction rules its text was redacted with
    // (`internal/reRedact.ts` redacts again, once, when the rules change)
    statements: ["CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]
  },
  {
    id: 7,
    name: "memory_team",
    // the team memory (`TeamSync`): an entry shared with the team has a `uid` (given when it is
    // first pushed, or the teammate's when pulled); a teammate's has its `author` and `machine`
    // (NULL: one's own); `team_forgotten` is the forgotten state the team last agreed on, so a
    // local change (forget, restore, delete) is told apart from one pulled, and the triggers queue
    // only local changes in the outbox the worker pushes
    statements: [
      ...teamColumns("memory_observations"),
      ...teamColumns("memory_summaries"),
      // a working directory's project identity (its git remote), written by the worker: a
      // SessionStart reads the teammates' entries of `identity` for `path` with it
      "CREATE TABLE memory_team_projects (path TEXT PRIMARY KEY, identity TEXT NOT NULL)",
      // how far the team's entries of a project were pulled from a team database (`target`: its
      // server, database and schema, never a password): the last Postgres transaction and uid read
      `CREATE TABLE memory_team_pulls (
  target TEXT NOT NULL,
  identity TEXT NOT NULL,
  kind TEXT NOT NULL,
  txid TEXT NOT NULL,
  uid TEXT NOT NULL,
  PRIMARY KEY (target, identity, kind)
)`,
      `CREATE TABLE memory_team_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('observation', 'summary')),
  uid TEXT NOT NULL,
  forgotten_at INTEGER,
  created_at INTEGER NOT NULL
)`,
      ...teamTriggers("memory_observations", "observation"),
      ...teamTriggers("memory_summaries", "summary")
    ]
  },
  {
    id: 8,
    name: "memory_worker_pid_start",
    // the holder's start time (clock ticks since boot, from /proc; NULL where there is none)
    // beside its pid: a pid reused by another process is not taken for the worker
    // (`ProcessLiveness`); a row without it is judged by the process's state and the heartbeat
    statements: ["ALTER TABLE memory_worker ADD COLUMN pid_start INTEGER"]
  }
]

/** The bookkeeping table (the columns `@effect/sql`'s Migrator created on SQLite, kept for older files). */
export const MIGRATIONS_TABLE = "effect_sql_migrations"

/** Its DDL, as `@effect/sql`'s Migrator wrote it for SQLite. */
export const migrationsTableSql = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  migration_id integer PRIMARY KEY NOT NULL,
  created_at datetime NOT NULL DEFAULT current_timestamp,
  name VARCHAR(255) NOT NULL
)`
