/**
 * The statements of `PostgresHub.init`: the three group roles, their privileges on the store's
 * tables, the grants table and the row-level security policies (docs/design.md, "A hub: Postgres
 * decides who sees what"). Every statement is idempotent or replaces its object with the same
 * definition, so a second run leaves the catalog as it was (`snapshot` compares the two).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { createClockNotify, createWriteFunctions, OWNED_TABLES, WRITE_FUNCTIONS } from "./pgMigrations.js"

/** A hub's three group roles: machines sync as members of `sync`, people read as `viewer`'s. */
export interface HubRoles {
  readonly sync: string
  readonly viewer: string
  readonly admin: string
}

/**
 * The cluster-wide groups every hub shared before each hub had its own: what `init` moves a hub
 * off (their members join the hub's groups, they lose every privilege on it).
 */
export const LEGACY_ROLES: HubRoles = { sync: "acx_sync", viewer: "acx_viewer", admin: "acx_admin" }

/**
 * The group roles of the hub in `schema` of `database`: `acx_<database>_<schema>_<hash>_<role>`,
 * the two names folded to lower-case letters, digits and `_` and cut to 38 characters, the hash
 * (8 hex digits of SHA-256 over the exact names) telling apart two hubs whose folded names meet.
 * At most 58 bytes: a valid unquoted identifier under Postgres' 63.
 */
export const hubRoles = (database: string, schema: string): HubRoles => {
  const folded = `${database}_${schema}`.toLowerCase().replace(/[^a-z0-9_]+/g, "_").slice(0, 38)
  const hash = createHash("sha256").update(`${database}\u0000${schema}`).digest("hex").slice(0, 8)
  const base = `acx_${folded}_${hash}`
  return { sync: `${base}_sync`, viewer: `${base}_viewer`, admin: `${base}_admin` }
}

/** The member groups a login role is made in: a machine's (`sync`) or a person's (`viewer`). */
export type MemberRole = "sync" | "viewer"

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
 * A schema's objects (the schema itself, the tables and functions named) owned by a member of any
 * hub's sync or viewer group (this hub's, another's of the server, or the legacy cluster-wide
 * ones) that is no superuser and holds no privileges of this hub's admin group, or by a legacy
 * group itself: one that created them before the admin set the schema up (docs/design.md, "Who
 * owns a hub's tables"). An owner is exempt from row-level security, may grant, rewrite, drop and
 * replace what it owns, so these are what `init` gives to the hub's admin group. Schema first: a
 * table's new owner needs CREATE on its schema. A table's sequences and indexes follow the table.
 */
export const memberOwnedQuery = (
  schema: string,
  tables: ReadonlyArray<string>,
  functions: ReadonlyArray<string>,
  roles: HubRoles
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
    WHERE (NOT r.rolsuper AND NOT pg_catalog.pg_has_role(o.owner, ${literal(roles.admin)}, 'USAGE')
      AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles g WHERE pg_catalog.pg_has_role(o.owner, g.oid, 'MEMBER')
        AND (g.rolname ~ '^acx_.*_(sync|viewer)$' OR g.rolname IN (${literal(LEGACY_ROLES.sync)}, ${
    literal(LEGACY_ROLES.viewer)
  }))))
      OR r.rolname = ANY(${list(Object.values(LEGACY_ROLES))})
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
  rows: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly owner: string }>,
  roles: HubRoles
): { readonly statements: ReadonlyArray<string>; readonly owners: ReadonlyArray<string> } => ({
  statements: [
    ...rows.map((row) => `ALTER ${row.kind} ${row.name} OWNER TO ${quoted(roles.admin)}`),
    ...rows.filter((row) => row.kind === "TABLE").map((row) => resetTable(row.name))
  ],
  owners: [...new Set(rows.map((row) => row.owner))]
})

/** The one line of a connection that may not give a member's objects to `acx_admin`. */
export const takeOverRefusal = (
  what: string,
  owners: ReadonlyArray<string>,
  command: string,
  roles: HubRoles
): string => {
  const names = owners.join(", ")
  return `${what} was created by ${names}, a hub member, who would bypass its row-level security: run ` +
    `${command} as a superuser (or a role that can SET ROLE to ${names} and to ${roles.admin}) to give it to ` +
    `${roles.admin}; nothing was changed`
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

/** The tables whose `id` a sequence numbers (`SEQUENCES`). */
const NUMBERED_TABLES: ReadonlyArray<string> = SEQUENCES.map((sequence) => sequence.replace(/_id_seq$/, ""))

/**
 * `privileges` on `table` to the sync group. On a numbered table its INSERT and UPDATE cover
 * every column but `id`: a member's row takes its number from the sequence. A member that chose
 * one (the sequence's next value, or a row of its own moved there) would hold the number the
 * next writer's insert draws, and that writer's every sync would fail on the primary key.
 */
const grantSync = (sql: SqlClient.SqlClient, schema: string, table: string, privileges: string, sync: string) =>
  Effect.gen(function*() {
    if (!NUMBERED_TABLES.includes(table)) {
      return yield* sql.unsafe(`GRANT ${privileges} ON ${schema}.${table} TO ${sync}`)
    }
    const all = privileges.split(", ")
    const whole = all.filter((privilege) => privilege !== "INSERT" && privilege !== "UPDATE")
    const columns = yield* sql<{ readonly name: string }>`SELECT a.attname AS name FROM pg_catalog.pg_attribute a
      WHERE a.attrelid = (pg_catalog.quote_ident(${schema}) || '.' || ${table})::regclass
        AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> 'id' ORDER BY a.attnum`
    const list = columns.map((column) => quoted(column.name)).join(", ")
    yield* sql.unsafe(`GRANT ${whole.join(", ")} ON ${schema}.${table} TO ${sync}`)
    for (const privilege of all.filter((privilege) => !whole.includes(privilege))) {
      yield* sql.unsafe(`GRANT ${privilege} (${list}) ON ${schema}.${table} TO ${sync}`)
    }
  })

/** Privileges: what each role may do on each table (added to; `init` revokes only the legacy groups'). */
const grantPrivileges = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    const [sync, viewer, admin] = [quoted(roles.sync), quoted(roles.viewer), quoted(roles.admin)]
    yield* sql.unsafe(`GRANT USAGE ON SCHEMA ${schema} TO ${sync}, ${viewer}, ${admin}`)
    for (const [table, privileges] of Object.entries(SYNC_PRIVILEGES)) {
      // exactly these: what an older acx (UPDATE on the clock) or a DBA granted the group goes
      // (a table's REVOKE takes its columns' privileges too)
      yield* sql.unsafe(`REVOKE ALL ON ${schema}.${table} FROM ${sync}`)
      yield* grantSync(sql, schema, table, privileges, sync)
    }
    for (const fn of WRITE_FUNCTIONS) {
      yield* sql.unsafe(`GRANT EXECUTE ON FUNCTION ${schema}.${fn} TO ${sync}, ${admin}`)
    }
    for (const sequence of SEQUENCES) {
      yield* sql.unsafe(`GRANT USAGE, SELECT ON SEQUENCE ${schema}.${sequence} TO ${sync}, ${admin}`)
    }
    for (const table of VIEWER_TABLES) yield* sql.unsafe(`GRANT SELECT ON ${schema}.${table} TO ${viewer}`)
    yield* sql.unsafe(`GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${admin}`)
    // an admin grants the member roles to the people it adds (ADMIN OPTION), and reads what both do
    yield* sql.unsafe(`GRANT ${sync}, ${viewer} TO ${admin} WITH ADMIN OPTION`)
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
const enablePolicies = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    const [sync, viewer, admin] = [quoted(roles.sync), quoted(roles.viewer), quoted(roles.admin)]
    for (const table of OWNED_TABLES) {
      const target = `${schema}.${table}`
      const own = `USING (db_user = current_user) WITH CHECK (${syncWrites(schema, table)})`
      yield* sql.unsafe(`ALTER TABLE ${target} ENABLE ROW LEVEL SECURITY`)
      yield* policy(sql, target, "acx_sync_own", `FOR ALL TO ${sync} ${own}`)
      yield* policy(sql, target, "acx_admin_all", `FOR ALL TO ${admin} USING (true) WITH CHECK (true)`)
      if (table !== "acx_import_ledger") {
        yield* policy(sql, target, "acx_viewer_read", `FOR SELECT TO ${viewer} USING (${visibleTo(schema, table)})`)
      }
    }
    const grants = `${schema}.acx_hub_grants`
    yield* sql.unsafe(`ALTER TABLE ${grants} ENABLE ROW LEVEL SECURITY`)
    yield* policy(sql, grants, "acx_member_own", `FOR SELECT TO ${sync}, ${viewer} USING (role_name IN ${MINE})`)
    yield* policy(sql, grants, "acx_admin_all", `FOR ALL TO ${admin} USING (true) WITH CHECK (true)`)
    // a member reads which sessions it owns (its policies ask); it writes none (only the claim does)
    const owners = `${schema}.acx_session_owner`
    yield* sql.unsafe(`ALTER TABLE ${owners} ENABLE ROW LEVEL SECURITY`)
    yield* policy(sql, owners, "acx_sync_own", `FOR SELECT TO ${sync} USING (db_user = current_user)`)
    yield* policy(sql, owners, "acx_admin_all", `FOR ALL TO ${admin} USING (true) WITH CHECK (true)`)
  })

/**
 * The write functions with acx's bodies (a member that owned them may have replaced one), run by
 * members of the sync group. Set up by a superuser, they go to the admin group: no function a
 * member runs runs as a superuser. Otherwise they stay with the role that set the store up, the
 * tables' owner (a role that may not `SET ROLE` to the admin group cannot give them away).
 */
const setUpWriteFunctions = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    yield* createWriteFunctions(sql, schema)
    const owner = WRITE_FUNCTIONS.map((fn) => `ALTER FUNCTION ${schema}.${fn} OWNER TO ${quoted(roles.admin)};`).join(
      "\n"
    )
    yield* sql.unsafe(`DO $owner$ BEGIN
      IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        ${owner}
      END IF;
    END $owner$`)
  })

/**
 * The hub's roles, from the database the connection is on: every statement naming a group goes
 * through this (`PostgresHub.groupRoles` for a caller that knows the database's name).
 */
export const rolesOf = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.map(
    sql<{ readonly db: string }>`SELECT current_database() AS db`,
    ([row]) => hubRoles(row!.db, schema)
  )

/** The group roles, created when missing (the first step of `init`'s transaction). */
export const ensureRoles = (sql: SqlClient.SqlClient, roles: HubRoles) =>
  Effect.gen(function*() {
    // roles are cluster-wide: two hubs set up at once on one cluster would race on CREATE ROLE
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('acx_hub:roles'))`
    for (const role of Object.values(roles)) yield* ensureRole(sql, role)
  })

/** A member of a legacy group that `init` made a member of the hub's own. */
export interface MovedMember {
  readonly member: string
  readonly role: keyof HubRoles
}

/**
 * Moves a hub off the cluster-wide groups (`LEGACY_ROLES`), when they hold privileges on its
 * schema: each of their members (but the groups themselves) joins the hub's group of the same
 * kind, grants naming a legacy group name the hub's, and the legacy groups lose every privilege
 * on the schema, its tables, sequences and functions (the policies, replaced by `setUp`, name the hub's
 * groups). The legacy groups and their memberships stay: other hubs of the cluster may still use
 * them until their own `init`. Run in `init`'s transaction, after `ensureRoles`.
 */
export const moveOffLegacy = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    const legacy = Object.values(LEGACY_ROLES)
    const [held] = yield* sql<{ readonly held: boolean }>`SELECT EXISTS (
        SELECT 1 FROM pg_catalog.pg_namespace n, aclexplode(n.nspacl) a
        JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
        WHERE n.nspname = ${schema} AND r.rolname IN ${sql.in(legacy)}) AS held`
    if (held?.held !== true) return [] as ReadonlyArray<MovedMember>
    const members = yield* sql<{ readonly grp: string; readonly member: string }>`SELECT g.rolname AS grp,
        m.rolname AS member FROM pg_catalog.pg_auth_members a
      JOIN pg_catalog.pg_roles g ON g.oid = a.roleid JOIN pg_catalog.pg_roles m ON m.oid = a.member
      WHERE g.rolname IN ${sql.in(legacy)} AND m.rolname NOT IN ${sql.in(legacy)} ORDER BY 2, 1`
    const moved: Array<MovedMember> = []
    for (const row of members) {
      const role = (Object.keys(LEGACY_ROLES) as Array<keyof HubRoles>).find((key) => LEGACY_ROLES[key] === row.grp)!
      yield* sql.unsafe(`GRANT ${quoted(roles[role])} TO ${quoted(row.member)}`)
      moved.push({ member: row.member, role })
    }
    const grants = sql(`${schema}.acx_hub_grants`)
    for (const role of Object.keys(LEGACY_ROLES) as Array<keyof HubRoles>) {
      yield* sql`INSERT INTO ${grants} (role_name, project, granted_ms)
        SELECT ${roles[role]}, project, granted_ms FROM ${grants} WHERE role_name = ${LEGACY_ROLES[role]}
        ON CONFLICT DO NOTHING`
    }
    yield* sql`DELETE FROM ${grants} WHERE role_name IN ${sql.in(legacy)}`
    const from = legacy.map(quoted).join(", ")
    yield* sql.unsafe(`REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${from}`)
    yield* sql.unsafe(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${from}`)
    yield* sql.unsafe(`REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${schema} FROM ${from}`)
    yield* sql.unsafe(`REVOKE ALL ON SCHEMA ${schema} FROM ${from}`)
    return moved as ReadonlyArray<MovedMember>
  })

/**
 * `CONNECT` on the hub's database: granted to the hub's groups, and taken from `PUBLIC` when the
 * connecting role owns the database (or is a superuser): only then may it. Whether `PUBLIC` may
 * still connect afterwards (the output of `init` says so, and who can close it).
 */
export const closeDatabase = (sql: SqlClient.SqlClient, roles: HubRoles) =>
  Effect.gen(function*() {
    const [db] = yield* sql<{ readonly name: string; readonly owns: boolean }>`SELECT d.datname AS name,
        pg_catalog.pg_has_role(current_user, d.datdba, 'USAGE')
          OR (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) AS owns
      FROM pg_catalog.pg_database d WHERE d.datname = current_database()`
    const database = quoted(db!.name)
    if (!db!.owns) return { database: db!.name, publicConnect: true }
    yield* sql.unsafe(
      `GRANT CONNECT ON DATABASE ${database} TO ${quoted(roles.sync)}, ${quoted(roles.viewer)}, ${quoted(roles.admin)}`
    )
    yield* sql.unsafe(`REVOKE CONNECT ON DATABASE ${database} FROM PUBLIC`)
    return { database: db!.name, publicConnect: false }
  })

/** Grants table, privileges and policies on a migrated store's schema whose roles exist. */
export const setUp = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    yield* createGrantsTable(sql, schema)
    // acx's own clock trigger and function, whatever a member that owned them left
    yield* createClockNotify(sql, schema)
    yield* setUpWriteFunctions(sql, schema, roles)
    yield* grantPrivileges(sql, schema, roles)
    yield* enablePolicies(sql, schema, roles)
  })

/**
 * What `init` sets, read back from the catalog: roles and memberships, table privileges,
 * row-level security flags and policies, the functions' owners and privileges, and who may
 * connect to the database. Two equal snapshots: nothing changed.
 */
export const snapshot = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) =>
  Effect.gen(function*() {
    const names = [...Object.values(roles), ...Object.values(LEGACY_ROLES)]
    const roleRows = yield* sql`SELECT r.rolname, r.rolcanlogin, m.rolname AS member_of, a.admin_option
      FROM pg_catalog.pg_roles r
      LEFT JOIN pg_catalog.pg_auth_members a ON a.member = r.oid
      LEFT JOIN pg_catalog.pg_roles m ON m.oid = a.roleid
      WHERE r.rolname IN ${sql.in(names)} OR m.rolname IN ${sql.in(names)}
      ORDER BY 1, 3`
    const privileges = yield* sql`SELECT grantee, table_name, privilege_type
      FROM information_schema.role_table_grants
      WHERE table_schema = ${schema} AND grantee IN ${sql.in(names)}
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
    const database = yield* sql`SELECT datacl::text FROM pg_catalog.pg_database WHERE datname = current_database()`
    return JSON.stringify({ roles: roleRows, privileges, security, policies, database, functions })
  })
