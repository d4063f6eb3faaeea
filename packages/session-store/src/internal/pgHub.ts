/**
 * The statements of `PostgresHub.init`: the three group roles, their privileges on the store's
 * tables, the grants table and the row-level security policies (docs/design.md, "A hub: Postgres
 * decides who sees what"). Every statement is idempotent or replaces its object with the same
 * definition, so a second run leaves the catalog as it was (`snapshot` compares the two).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createClockNotify, createWriteFunctions, OWNED_TABLES, WRITE_FUNCTIONS } from "./pgMigrations.js"

/** The group roles (cluster-wide: every hub of a cluster shares them). */
export const ROLES = { sync: "acx_sync", viewer: "acx_viewer", admin: "acx_admin" } as const

/** Tables holding session data: a viewer's rows are limited by project on each. */
export const SESSION_TABLES = OWNED_TABLES.filter((table) => table !== "acx_import_ledger")

/** Tables with a `BIGSERIAL` id: a sync member takes numbers from their sequences. */
const SEQUENCES = [
  "claude_session_entries_id_seq",
  "acx_session_usage_id_seq",
  "acx_session_text_id_seq"
] as const

/**
 * What a sync member may do on each table, and nothing more (`init` revokes the rest from the
 * group): no UPDATE or DELETE on entries, ever; the clock and the sessions' owners change only
 * through the store's write functions (`createWriteFunctions`), whose bounds no statement of a
 * member's can pass (it may not set the clock to any value, nor claim another's session).
 */
const SYNC_PRIVILEGES: Record<string, string> = {
  claude_session_entries: "SELECT, INSERT",
  acx_session_keys: "SELECT, INSERT, UPDATE",
  acx_session_summaries: "SELECT, INSERT, UPDATE",
  acx_session_meta: "SELECT, INSERT, UPDATE",
  acx_session_usage: "SELECT, INSERT, UPDATE",
  acx_session_text: "SELECT, INSERT",
  acx_session_origin: "SELECT, INSERT",
  acx_import_ledger: "SELECT, INSERT, UPDATE",
  acx_clock: "SELECT",
  acx_session_owner: "SELECT",
  acx_session_store_migrations: "SELECT",
  acx_hub_grants: "SELECT"
}

/** Every table of a hub's store schema, and its functions: what `init` takes over from a member. */
export const STORE_TABLES: ReadonlyArray<string> = Object.keys(SYNC_PRIVILEGES)
export const STORE_FUNCTIONS: ReadonlyArray<string> = [
  "acx_clock_notify",
  ...WRITE_FUNCTIONS.map((fn) => fn.slice(0, fn.indexOf("(")))
]

/** A viewer reads the session tables, the clock (what a live page follows) and its own grants. */
const VIEWER_TABLES = [...SESSION_TABLES, "acx_clock", "acx_session_store_migrations", "acx_hub_grants"]

/** The roles the session's login role belongs to (directly or through others), as names. */
const MINE = `(SELECT r.rolname FROM pg_catalog.pg_roles r WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER'))`

/**
 * The `USING` expression of a viewer's policy on `table`. Without a grant for any of its roles a
 * viewer sees every project; with one, the sessions whose origin names a granted project. Both
 * subqueries are uncorrelated: Postgres evaluates each once per statement (an InitPlan and a
 * hashed SubPlan), not once per row.
 */
const visibleTo = (schema: string, table: string): string =>
  table === "acx_session_origin"
    ? projectVisible(schema, "project")
    : projectVisible(
      schema,
      "(project_key, session_id)",
      `SELECT o.project_key, o.session_id FROM ${schema}.acx_session_origin o WHERE o.project IN`
    )

/**
 * Whether the row's project is one the session's roles may see: every project when none of its
 * roles has a grant in the hub's `acx_hub_grants`, else the granted ones. `column` is the row's
 * project (or, with `through`, what a subquery of granted projects is matched against).
 */
export const projectVisible = (schema: string, column: string, through?: string): string => {
  const grants = `${schema}.acx_hub_grants`
  const granted = `SELECT g.project FROM ${grants} g WHERE g.role_name IN ${MINE}`
  const unrestricted = `NOT EXISTS (SELECT 1 FROM ${grants} g WHERE g.role_name IN ${MINE})`
  return through === undefined
    ? `${unrestricted} OR ${column} IN (${granted})`
    : `${unrestricted} OR ${column} IN (${through} (${granted}))`
}

const quoted = (name: string) => `"${name.replace(/"/g, "\"\"")}"`

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/**
 * A schema's objects (the schema itself, the tables and functions named) owned by a member of
 * `acx_sync` or `acx_viewer` that is no superuser and holds no `acx_admin` privileges: one that
 * created them before the admin set the schema up (docs/design.md, "Who owns a hub's tables").
 * An owner is exempt from row-level security, may grant, rewrite, drop and replace what it owns,
 * so these are what `init` gives to `acx_admin`. Schema first: a table's new owner needs CREATE on
 * its schema. A table's sequences and indexes follow the table.
 */
export const memberOwnedQuery = (
  schema: string,
  tables: ReadonlyArray<string>,
  functions: ReadonlyArray<string>
): string => {
  const list = (names: ReadonlyArray<string>) => `ARRAY[${names.map(literal).join(", ")}]::text[]`
  const nsp = literal(schema)
  return `SELECT o.kind, o.name, r.rolname AS owner FROM (
      SELECT 1 AS rank, 'SCHEMA' AS kind, quote_ident(n.nspname) AS name, n.nspowner AS owner
        FROM pg_catalog.pg_namespace n WHERE n.nspname = ${nsp}
      UNION ALL
      SELECT 2, 'TABLE', quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relowner
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${nsp} AND c.relname = ANY(${list(tables)}) AND c.relkind IN ('r', 'p')
      UNION ALL
      SELECT 3, 'FUNCTION', quote_ident(n.nspname) || '.' || quote_ident(p.proname)
          || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')', p.proowner
        FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = ${nsp} AND p.proname = ANY(${list(functions)})
    ) o JOIN pg_catalog.pg_roles r ON r.oid = o.owner
    WHERE NOT r.rolsuper AND NOT pg_catalog.pg_has_role(o.owner, '${ROLES.admin}', 'USAGE')
      AND (pg_catalog.pg_has_role(o.owner, '${ROLES.sync}', 'MEMBER')
        OR pg_catalog.pg_has_role(o.owner, '${ROLES.viewer}', 'MEMBER'))
    ORDER BY o.rank, o.name`
}

/**
 * What an owner may have set up on a table before it was taken over, undone (run as its new
 * owner): every policy, privilege, trigger and rule on it. The set-up that takes it over creates
 * its own policies, privileges and triggers again in the same transaction; nothing the member
 * left (a policy letting it read every row, `GRANT ALL … TO PUBLIC`, a trigger running its code as
 * whoever writes) outlives the take-over.
 */
const resetTable = (name: string): string =>
  `DO $reset$ DECLARE t regclass := ${literal(name)}; r record; BEGIN
    FOR r IN SELECT polname FROM pg_catalog.pg_policy WHERE polrelid = t LOOP
      EXECUTE format('DROP POLICY %I ON %s', r.polname, t);
    END LOOP;
    FOR r IN SELECT DISTINCT a.grantee FROM pg_catalog.pg_class c, aclexplode(c.relacl) a
        WHERE c.oid = t AND a.grantee <> c.relowner LOOP
      EXECUTE format('REVOKE ALL ON %s FROM %s CASCADE', t,
        CASE WHEN r.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(r.grantee)) END);
    END LOOP;
    FOR r IN SELECT tgname FROM pg_catalog.pg_trigger WHERE tgrelid = t AND NOT tgisinternal LOOP
      EXECUTE format('DROP TRIGGER %I ON %s', r.tgname, t);
    END LOOP;
    FOR r IN SELECT rulename FROM pg_catalog.pg_rewrite WHERE ev_class = t AND rulename <> '_RETURN' LOOP
      EXECUTE format('DROP RULE %I ON %s', r.rulename, t);
    END LOOP;
  END $reset$`

/**
 * The statements for `memberOwnedQuery`'s rows (each object given to `acx_admin`, each table's
 * policies, privileges, triggers and rules dropped for the set-up to create again), and their owners.
 */
export const takeOverPlan = (
  rows: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly owner: string }>
): { readonly statements: ReadonlyArray<string>; readonly owners: ReadonlyArray<string> } => ({
  statements: [
    ...rows.map((row) => `ALTER ${row.kind} ${row.name} OWNER TO ${ROLES.admin}`),
    ...rows.filter((row) => row.kind === "TABLE").map((row) => resetTable(row.name))
  ],
  owners: [...new Set(rows.map((row) => row.owner))]
})

/** The one line of a connection that may not give a member's objects to `acx_admin`. */
export const takeOverRefusal = (what: string, owners: ReadonlyArray<string>, command: string): string => {
  const names = owners.join(", ")
  return `${what} was created by ${names}, a hub member, who would bypass its row-level security: run ` +
    `${command} as a superuser (or a role that can SET ROLE to ${names} and to ${ROLES.admin}) to give it to ` +
    `${ROLES.admin}; nothing was changed`
}

/** `CREATE ROLE … NOLOGIN` unless it exists. */
const ensureRole = (sql: SqlClient.SqlClient, role: string) =>
  sql.unsafe(`DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '${role}') THEN
      CREATE ROLE ${quoted(role)} NOLOGIN;
    END IF;
  END $$`)

/** A policy, replaced by the same definition when it exists. */
const policy = (
  sql: SqlClient.SqlClient,
  target: string,
  name: string,
  clause: string
) =>
  Effect.zipRight(
    sql.unsafe(`DROP POLICY IF EXISTS ${name} ON ${target}`),
    sql.unsafe(`CREATE POLICY ${name} ON ${target} ${clause}`)
  )

/** The grants table and the index a restricted viewer's policy reads origins by. */
const createGrantsTable = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.all([
    sql.unsafe(`CREATE TABLE IF NOT EXISTS ${schema}.acx_hub_grants (
      role_name TEXT NOT NULL,
      project TEXT NOT NULL,
      granted_ms BIGINT NOT NULL,
      PRIMARY KEY (role_name, project)
    )`),
    sql.unsafe(`CREATE INDEX IF NOT EXISTS acx_session_origin_project_idx
      ON ${schema}.acx_session_origin (project, project_key, session_id)`)
  ], { discard: true })

/** Privileges: what each role may do on each table (added to; `init` revokes nothing). */
const grantPrivileges = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    const all = Object.values(ROLES).map(quoted).join(", ")
    yield* sql.unsafe(`GRANT USAGE ON SCHEMA ${schema} TO ${all}`)
    for (const [table, privileges] of Object.entries(SYNC_PRIVILEGES)) {
      // exactly these: what an older acx (UPDATE on the clock) or a DBA granted the group goes
      yield* sql.unsafe(`REVOKE ALL ON ${schema}.${table} FROM ${ROLES.sync}`)
      yield* sql.unsafe(`GRANT ${privileges} ON ${schema}.${table} TO ${ROLES.sync}`)
    }
    for (const fn of WRITE_FUNCTIONS) {
      yield* sql.unsafe(`GRANT EXECUTE ON FUNCTION ${schema}.${fn} TO ${ROLES.sync}, ${ROLES.admin}`)
    }
    for (const sequence of SEQUENCES) {
      yield* sql.unsafe(`GRANT USAGE, SELECT ON SEQUENCE ${schema}.${sequence} TO ${ROLES.sync}, ${ROLES.admin}`)
    }
    for (const table of VIEWER_TABLES) yield* sql.unsafe(`GRANT SELECT ON ${schema}.${table} TO ${ROLES.viewer}`)
    yield* sql.unsafe(`GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${ROLES.admin}`)
    // an admin grants the member roles to the people it adds (ADMIN OPTION), and reads what both do
    yield* sql.unsafe(`GRANT ${ROLES.sync}, ${ROLES.viewer} TO ${ROLES.admin} WITH ADMIN OPTION`)
  })

/**
 * What a sync member may write into `table`: rows of its own (`db_user`), and on a session table
 * only in a session it owns (`acx_session_owner`, which `acx_claim_session` fills: the first role
 * to store a session's rows owns it). A row naming another's session (its project key and id are
 * enough to write one) fails the check, whatever the statement.
 */
const syncWrites = (schema: string, table: string): string =>
  table === "acx_import_ledger"
    ? "db_user = current_user"
    : `db_user = current_user AND EXISTS (SELECT 1 FROM ${schema}.acx_session_owner o
        WHERE o.project_key = ${table}.project_key AND o.session_id = ${table}.session_id
          AND o.db_user = current_user)`

/** Row-level security on every table a member reads, with each role's policy. */
const enablePolicies = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    for (const table of OWNED_TABLES) {
      const target = `${schema}.${table}`
      const own = `USING (db_user = current_user) WITH CHECK (${syncWrites(schema, table)})`
      yield* sql.unsafe(`ALTER TABLE ${target} ENABLE ROW LEVEL SECURITY`)
      yield* policy(sql, target, "acx_sync_own", `FOR ALL TO ${ROLES.sync} ${own}`)
      yield* policy(sql, target, "acx_admin_all", `FOR ALL TO ${ROLES.admin} USING (true) WITH CHECK (true)`)
      if (table !== "acx_import_ledger") {
        yield* policy(
          sql,
          target,
          "acx_viewer_read",
          `FOR SELECT TO ${ROLES.viewer} USING (${visibleTo(schema, table)})`
        )
      }
    }
    const grants = `${schema}.acx_hub_grants`
    yield* sql.unsafe(`ALTER TABLE ${grants} ENABLE ROW LEVEL SECURITY`)
    yield* policy(
      sql,
      grants,
      "acx_member_own",
      `FOR SELECT TO ${ROLES.sync}, ${ROLES.viewer} USING (role_name IN ${MINE})`
    )
    yield* policy(sql, grants, "acx_admin_all", `FOR ALL TO ${ROLES.admin} USING (true) WITH CHECK (true)`)
    // a member reads which sessions it owns (its policies ask); it writes none (only the claim does)
    const owners = `${schema}.acx_session_owner`
    yield* sql.unsafe(`ALTER TABLE ${owners} ENABLE ROW LEVEL SECURITY`)
    yield* policy(sql, owners, "acx_sync_own", `FOR SELECT TO ${ROLES.sync} USING (db_user = current_user)`)
    yield* policy(sql, owners, "acx_admin_all", `FOR ALL TO ${ROLES.admin} USING (true) WITH CHECK (true)`)
  })

/**
 * The write functions with acx's bodies (a member that owned them may have replaced one), run by
 * members of the sync group. Set up by a superuser, they go to the admin group: no function a
 * member runs runs as a superuser. Otherwise they stay with the role that set the store up, the
 * tables' owner (a role that may not `SET ROLE` to the admin group cannot give them away).
 */
const setUpWriteFunctions = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    yield* createWriteFunctions(sql, schema)
    const owner = WRITE_FUNCTIONS.map((fn) => `ALTER FUNCTION ${schema}.${fn} OWNER TO ${ROLES.admin};`).join("\n")
    yield* sql.unsafe(`DO $owner$ BEGIN
      IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        ${owner}
      END IF;
    END $owner$`)
  })

/** The group roles, created when missing (the first step of `init`'s transaction). */
export const ensureRoles = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    // roles are cluster-wide: two hubs set up at once on one cluster would race on CREATE ROLE
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('acx_hub:roles'))`
    for (const role of Object.values(ROLES)) yield* ensureRole(sql, role)
  })

/** Grants table, privileges and policies on a migrated store's schema whose roles exist. */
export const setUp = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    yield* createGrantsTable(sql, schema)
    // acx's own clock trigger and function, whatever a member that owned them left
    yield* createClockNotify(sql, schema)
    yield* setUpWriteFunctions(sql, schema)
    yield* grantPrivileges(sql, schema)
    yield* enablePolicies(sql, schema)
  })

/**
 * What `init` sets, read back from the catalog: roles and memberships, table privileges,
 * row-level security flags, policies, and the functions' owners and privileges. Two equal snapshots: nothing changed.
 */
export const snapshot = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    const roles = yield* sql`SELECT r.rolname, r.rolcanlogin, m.rolname AS member_of, a.admin_option
      FROM pg_catalog.pg_roles r
      LEFT JOIN pg_catalog.pg_auth_members a ON a.member = r.oid
      LEFT JOIN pg_catalog.pg_roles m ON m.oid = a.roleid
      WHERE r.rolname IN (${ROLES.sync}, ${ROLES.viewer}, ${ROLES.admin})
      ORDER BY 1, 3`
    const privileges = yield* sql`SELECT grantee, table_name, privilege_type
      FROM information_schema.role_table_grants
      WHERE table_schema = ${schema} AND grantee IN (${ROLES.sync}, ${ROLES.viewer}, ${ROLES.admin})
      ORDER BY 1, 2, 3`
    const security = yield* sql`SELECT c.relname, c.relrowsecurity FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND c.relkind = 'r' ORDER BY 1`
    const policies = yield* sql`SELECT tablename, policyname, roles::text, cmd, qual, with_check
      FROM pg_catalog.pg_policies WHERE schemaname = ${schema} ORDER BY 1, 2`
    const functions = yield* sql`SELECT p.proname, pg_catalog.pg_get_userbyid(p.proowner) AS owner,
        p.prosecdef, p.proconfig, p.proacl::text AS acl
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${schema} ORDER BY 1`
    return JSON.stringify({ roles, privileges, security, policies, functions })
  })
