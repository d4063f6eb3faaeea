/**
 * The tables of `PostgresSessionStore` in one schema (see its module comment), created by the
 * `@effect/sql` Migrator; migrations are recorded in `<schema>.acx_session_store_migrations`.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createTables } from "./pgDerived.js"
import { createOriginTable } from "./pgOrigins.js"

const migrations = (schema: string) => ({
  "1_create_session_store": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = (name: string) => sql(`${schema}.${name}`)
    yield* sql`CREATE TABLE IF NOT EXISTS ${t("claude_session_entries")} (
      id BIGSERIAL PRIMARY KEY,
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      subpath TEXT NOT NULL DEFAULT '',
      entry JSONB NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    )`
    yield* sql`ALTER TABLE ${t("claude_session_entries")} ADD COLUMN IF NOT EXISTS uuid TEXT NULL`
    yield* sql`CREATE INDEX IF NOT EXISTS claude_session_entries_key_idx
      ON ${t("claude_session_entries")} (project_key, session_id, subpath, id)`
    yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS claude_session_entries_uuid_idx
      ON ${t("claude_session_entries")} (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL`
    yield* sql`CREATE TABLE ${t("acx_session_keys")} (
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      subpath TEXT NOT NULL,
      mtime BIGINT NOT NULL,
      PRIMARY KEY (project_key, session_id, subpath)
    )`
    yield* sql`CREATE INDEX acx_session_keys_mtime_idx ON ${t("acx_session_keys")} (mtime)`
    yield* sql`CREATE TABLE ${t("acx_session_summaries")} (
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      mtime BIGINT NOT NULL,
      data JSONB NOT NULL,
      PRIMARY KEY (project_key, session_id)
    )`
    yield* sql`CREATE TABLE ${t("acx_clock")} (
      id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
      last BIGINT NOT NULL
    )`
    yield* sql`INSERT INTO ${t("acx_clock")} (id, last) VALUES (TRUE, 0)`
  }),
  // JSONB cannot hold U+0000 or unpaired surrogates; JSON keeps the text as written. An in-place
  // rewrite of both tables (under the Migrator's lock; other processes' appends wait for it).
  "2_lossless_json": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = (name: string) => sql(`${schema}.${name}`)
    yield* sql`ALTER TABLE ${t("claude_session_entries")} ALTER COLUMN entry TYPE JSON USING entry::json`
    yield* sql`ALTER TABLE ${t("acx_session_summaries")} ALTER COLUMN data TYPE JSON USING data::json`
  }),
  "3_import_ledger": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(`${schema}.acx_import_ledger`)} (
      source TEXT NOT NULL,
      file TEXT NOT NULL,
      size BIGINT NOT NULL,
      mtime_ms DOUBLE PRECISION NOT NULL,
      "offset" BIGINT NOT NULL,
      fingerprint TEXT NOT NULL,
      PRIMARY KEY (source, file)
    )`
  }),
  // Session metadata, per-message usage and the full-text index (see pgDerived); the entries a
  // store written by an older acx holds derive on the first catalog read: no re-import.
  "4_derived_data": createTables(schema),
  // where each session came from (SessionOrigins): machine, OS user, project across machines
  "5_session_origin": Effect.flatMap(SqlClient.SqlClient, (sql) => createOriginTable(sql, schema)),
  // the clock announced (pgNotify.ts): every writer's append or delete notifies the schema's
  // channel at its commit, so a follower (the page over a hub) listens instead of polling
  "6_clock_notify": Effect.flatMap(SqlClient.SqlClient, (sql) => createClockNotify(sql, schema)),
  // who wrote each row (the login role): a hub's row-level security lets a sync member read and
  // extend only its own rows (PostgresHub). Rows written before stay NULL (nobody's): the column
  // is added without a default first, so no row is rewritten and none is attributed to whoever
  // runs the migration, and the default applies to new rows only.
  "7_row_owner": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const table of OWNED_TABLES) {
      const t = sql(`${schema}.${table}`)
      yield* sql`ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS db_user TEXT NULL`
      yield* sql`ALTER TABLE ${t} ALTER COLUMN db_user SET DEFAULT current_user`
    }
  }),
  // every session's owner, and the functions a writer changes shared state through (a hub's
  // members hold no UPDATE on the clock: PostgresHub); sessions stored before are their main
  // key's writer's
  "8_write_functions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(`${schema}.acx_session_owner`)} (
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      db_user TEXT NULL,
      PRIMARY KEY (project_key, session_id)
    )`
    yield* sql`INSERT INTO ${sql(`${schema}.acx_session_owner`)} (project_key, session_id, db_user)
      SELECT DISTINCT ON (project_key, session_id) project_key, session_id, db_user
      FROM ${sql(`${schema}.acx_session_keys`)} ORDER BY project_key, session_id, subpath
      ON CONFLICT DO NOTHING`
    yield* createWriteFunctions(sql, schema)
  }),
  // each writer's ledger records in a key space of its own: the primary key (db_user, source,
  // file). Keyed by (source, file) alone, a hub member that knew another machine's source could
  // insert a record first, which that machine could then neither read nor update (its policies),
  // and its every sync failed. Records written before owners were kept go to the table's owner
  // (the role that set the store up and imported into it), not to whoever runs the migration.
  "9_ledger_per_writer": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ledger = sql(`${schema}.acx_import_ledger`)
    yield* sql`UPDATE ${ledger} SET db_user = (SELECT pg_catalog.pg_get_userbyid(c.relowner)
      FROM pg_catalog.pg_class c WHERE c.oid = (pg_catalog.quote_ident(${schema}) || '.acx_import_ledger')::regclass) WHERE db_user IS NULL`
    yield* sql`ALTER TABLE ${ledger} ALTER COLUMN db_user SET NOT NULL`
    yield* sql`ALTER TABLE ${ledger} DROP CONSTRAINT IF EXISTS acx_import_ledger_pkey`
    yield* sql`ALTER TABLE ${ledger} ADD CONSTRAINT acx_import_ledger_pkey PRIMARY KEY (db_user, source, file)`
  })
})

/** The functions every writer of the store changes shared state through (migration 8). */
export const WRITE_FUNCTIONS = ["acx_clock_tick()", "acx_clock_lock()", "acx_claim_session(text, text)"] as const

/**
 * The write functions, (re)created with acx's definition: by migration 8, and by `hub init` (which
 * then gives them to the admin group and lets only sync members run them). Each runs as its owner
 * (`SECURITY DEFINER`, the search path pinned): on a hub, members change the clock and claim
 * sessions only through them, within their bounds.
 *
 * - `acx_clock_tick()`: the clock moved to now, or one past its last value (the store-wide write
 *   lock, held to commit), and returned; nothing else can be asked of it.
 * - `acx_clock_lock()`: the clock row's lock without moving it (no notice: see the trigger).
 * - `acx_claim_session(project_key, session_id)`: the session's owner, the login role calling it
 *   when the session has none yet (a session stored before owners were kept: its main key's
 *   writer). The primary key decides between two members storing a session's first rows at once:
 *   the second waits for the first's commit and then reads its owner.
 */
export const createWriteFunctions = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    const t = (name: string) => `${schema}.${name}`
    const definer = "SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION ${t("acx_clock_tick")}() RETURNS bigint LANGUAGE sql ${definer} AS $$
      UPDATE ${t("acx_clock")}
        SET last = GREATEST((extract(epoch FROM clock_timestamp()) * 1000)::bigint, last + 1) RETURNING last
    $$`)
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION ${t("acx_clock_lock")}() RETURNS void LANGUAGE sql ${definer} AS $$
      UPDATE ${t("acx_clock")} SET last = last
    $$`)
    const owner = `SELECT o.db_user INTO who FROM ${t("acx_session_owner")} o
      WHERE o.project_key = p_project AND o.session_id = p_session`
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION ${t("acx_claim_session")}(p_project text, p_session text)
      RETURNS text LANGUAGE plpgsql ${definer} AS $$
      DECLARE who text;
      BEGIN
        ${owner};
        IF FOUND THEN RETURN who; END IF;
        SELECT k.db_user INTO who FROM ${t("acx_session_keys")} k
          WHERE k.project_key = p_project AND k.session_id = p_session ORDER BY k.subpath LIMIT 1;
        IF NOT FOUND THEN who := session_user; END IF;
        INSERT INTO ${t("acx_session_owner")} (project_key, session_id, db_user)
          VALUES (p_project, p_session, who) ON CONFLICT DO NOTHING;
        ${owner};
        RETURN who;
      END
    $$`)
    // nobody but the owner runs them unless granted (Postgres lets PUBLIC run a new function)
    for (const fn of WRITE_FUNCTIONS) yield* sql.unsafe(`REVOKE ALL ON FUNCTION ${t(fn)} FROM PUBLIC`)
  })

/**
 * The clock's trigger and its function, (re)created with acx's definition: by migration 6, and by
 * `hub init` (whose take-over of a member's tables drops the triggers and function body that
 * member may have planted while it owned them).
 */
export const createClockNotify = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    const fn = sql(`${schema}.acx_clock_notify`)
    // the channel and payload from the trigger's own schema: no name spliced into the body
    yield* sql`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(left('acx_clock_' || TG_TABLE_SCHEMA, 63), TG_TABLE_SCHEMA);
        RETURN NULL;
      END
    $$`
    // a lock taken with `SET last = last` (the ledger's, the origins') moves nothing: no notice.
    // Dropped first: a schema rebuilt by hand (a restore, an older acx's tables re-created) may
    // keep the trigger while the migration is missing from its bookkeeping
    yield* sql`DROP TRIGGER IF EXISTS acx_clock_notify ON ${sql(`${schema}.acx_clock`)}`
    yield* sql`CREATE TRIGGER acx_clock_notify AFTER UPDATE ON ${sql(`${schema}.acx_clock`)}
      FOR EACH ROW WHEN (NEW.last IS DISTINCT FROM OLD.last) EXECUTE FUNCTION ${fn}()`
  })

/**
 * The tables whose rows record the role that wrote them (`db_user`, migration 7): those holding
 * session data, and the import ledger.
 */
export const OWNED_TABLES = [
  "claude_session_entries",
  "acx_session_keys",
  "acx_session_summaries",
  "acx_session_meta",
  "acx_session_usage",
  "acx_session_text",
  "acx_session_origin",
  "acx_import_ledger"
] as const

/**
 * The newest migration's number (from the names, `<n>_…`): a store that has it needs no migration
 * (nor the right to run one).
 */
export const LATEST_MIGRATION = Math.max(...Object.keys(migrations("public")).map((name) => Number.parseInt(name, 10)))

/**
 * Creates the schema and runs the migrations. A transaction-scoped advisory lock serialises
 * `CREATE SCHEMA` and the creation of the migrations table across processes (the Migrator's own
 * `LOCK TABLE` then serialises the migrations themselves).
 */
export const migrate = (schema: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = `${schema}.acx_session_store_migrations`
    // A store that is current is opened with one read: a hub's members may not create schemas or
    // lock tables (the Migrator's `LOCK TABLE` needs a write privilege), nor need to.
    // A missing table is looked for first rather than read and failed on: `hub init` migrates
    // inside its transaction, which one failed statement would abort.
    const current = yield* sql<{ readonly present: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS present`.pipe(
      Effect.flatMap(([row]) =>
        row?.present === true
          ? sql<{ readonly id: number | null }>`SELECT max(migration_id) AS id FROM ${sql(table)}`.pipe(
            Effect.map(([latest]) => Number(latest?.id ?? 0) >= LATEST_MIGRATION)
          )
          : Effect.succeed(false)
      ),
      Effect.orElseSucceed(() => false)
    )
    if (current) return
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`acx_session_store:${schema}`}))`
      yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
    }))
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations(schema)), table })
  })
