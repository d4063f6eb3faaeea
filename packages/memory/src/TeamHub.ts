/**
 * The team memory on a hub (docs/hub.md, "Team memory"): `acx hub init … --team SCHEMA` creates
 * the team tables (as the first `acx memory install --team` would) and gives the hub's group roles
 * what the memory's worker needs, with row-level security by project — the same grants that limit
 * a viewer's sessions (`acx hub grant`) limit what a member reads of the team memory, and what a
 * sync member may write there:
 *
 * - the hub's sync group (machines): reads and inserts the rows of the projects it may see, and may change
 *   only an entry's forgotten state (`forgotten_at`, `forgotten_by`, `txid`): never its text,
 *   never a delete;
 * - its viewer group (people): reads the rows of the projects it may see;
 * - its admin group: every row.
 *
 * Every statement is idempotent or replaces its object with the same definition: a second run
 * changes nothing, and says so.
 *
 * A schema a member created first (its `acx memory install --team` ran before the admin's
 * `hub init --team`) is taken over: an owner is exempt from row-level security and holds every
 * privilege, so the schema and tables a member of the sync or viewer group owns are given to
 * the admin group in the same transaction as the grants and policies, and what the member put on
 * those tables (policies, privileges, triggers, rules) is dropped first: the hub's own take-over
 * (`PostgresHub.memberOwned`, docs/design.md, "Who owns a hub's tables"). A connection that may
 * not do that fails with one line saying who must run it, and nothing of the set-up is applied.
 *
 * @since 0.4.0
 */
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Pg from "pg"
import * as Remote from "./internal/teamPostgres.js"
import { shapes } from "./internal/teamShapes.js"
import { MemoryError } from "./MemoryError.js"
import * as TeamSync from "./TeamSync.js"

/** What a sync member may do on each team table (the forgotten state is all it may change). */
const SYNC_PRIVILEGES = "SELECT, INSERT"
const SYNC_UPDATABLE = "forgotten_at, forgotten_by, txid"

const statements = (
  teamSchema: string,
  hubSchema: string,
  roles: PostgresHub.GroupRoles
): ReadonlyArray<string> => {
  const visible = PostgresHub.projectVisibility(hubSchema, "project")
  const schema = `"${teamSchema}"`
  const [sync, viewer, admin] = [roles.sync, roles.viewer, roles.admin].map((role) => `"${role}"`)
  return [
    `GRANT USAGE ON SCHEMA ${schema} TO ${sync}, ${viewer}, ${admin}`,
    ...shapes.flatMap((shape) => {
      const table = `${schema}.${shape.remote}`
      const policy = (name: string, clause: string) => [
        `DROP POLICY IF EXISTS ${name} ON ${table}`,
        `CREATE POLICY ${name} ON ${table} ${clause}`
      ]
      return [
        `GRANT ${SYNC_PRIVILEGES} ON ${table} TO ${sync}`,
        `GRANT UPDATE (${SYNC_UPDATABLE}) ON ${table} TO ${sync}`,
        `GRANT SELECT ON ${table} TO ${viewer}`,
        `GRANT ALL ON ${table} TO ${admin}`,
        `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
        ...policy("acx_member_read", `FOR SELECT TO ${sync}, ${viewer} USING (${visible})`),
        ...policy("acx_sync_insert", `FOR INSERT TO ${sync} WITH CHECK (${visible})`),
        ...policy("acx_sync_forget", `FOR UPDATE TO ${sync} USING (${visible}) WITH CHECK (${visible})`),
        ...policy("acx_admin_all", `FOR ALL TO ${admin} USING (true) WITH CHECK (true)`)
      ]
    })
  ]
}

// SQLSTATE 42501: the connection may not give the member's objects away.
const isPermissionDenied = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { readonly code?: unknown }).code === "42501"

/**
 * Gives what a member owns of the team schema to the hub's admin group (in the caller's transaction), or
 * fails with one line saying who may when this connection may not: the hub's own take-over
 * (`PostgresHub.memberOwned`), on the team's tables.
 */
const takeOver = async (client: Pg.Client, teamSchema: string, roles: PostgresHub.GroupRoles): Promise<void> => {
  const tables = shapes.map((shape) => shape.remote)
  const { rows } = await client.query<{ readonly kind: string; readonly name: string; readonly owner: string }>(
    PostgresHub.memberOwned.query(teamSchema, tables, [], roles)
  )
  const { owners, statements } = PostgresHub.memberOwned.plan(rows, roles)
  for (const statement of statements) {
    await client.query(statement).catch((error) => {
      if (!isPermissionDenied(error)) throw error
      throw new MemoryError({
        reason: "Team",
        description: PostgresHub.memberOwned.refusal(
          `the team schema ${teamSchema}`,
          owners,
          `acx hub init --team ${teamSchema}`,
          roles
        )
      })
    })
  }
}

/** The hub's group roles, from the database `client` is on. */
const hubRoles = async (client: Pg.Client, hubSchema: string): Promise<PostgresHub.GroupRoles> => {
  const { rows } = await client.query<{ readonly db: string }>("SELECT current_database() AS db")
  return PostgresHub.groupRoles(rows[0]!.db, hubSchema)
}

/**
 * The cluster-wide groups of older acx lose every privilege on the team schema (the hub's own
 * groups get theirs next, and the policies, replaced, name only those).
 */
const revokeLegacy = async (client: Pg.Client, teamSchema: string): Promise<void> => {
  const legacy = Object.values(PostgresHub.LEGACY_GROUP_ROLES)
  const { rows } = await client.query<{ readonly rolname: string }>(
    "SELECT rolname FROM pg_catalog.pg_roles WHERE rolname = ANY($1::text[])",
    [legacy]
  )
  if (rows.length === 0) return
  const from = rows.map((row) => `"${row.rolname}"`).join(", ")
  await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA "${teamSchema}" FROM ${from}`)
  await client.query(`REVOKE ALL ON SCHEMA "${teamSchema}" FROM ${from}`)
}

/** Owners, privileges, row-level security flags and policies of the team schema: equal twice, nothing changed. */
const snapshot = async (client: Pg.Client, teamSchema: string): Promise<string> => {
  const read = async (text: string) => (await client.query(text, [teamSchema])).rows
  return JSON.stringify([
    await read(`SELECT c.relname, pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY 1`),
    await read(`SELECT pg_catalog.pg_get_userbyid(nspowner) FROM pg_catalog.pg_namespace WHERE nspname = $1`),
    await read(`SELECT grantee, table_name, privilege_type FROM information_schema.role_table_grants
      WHERE table_schema = $1 ORDER BY 1, 2, 3`),
    await read(`SELECT grantee, table_name, column_name, privilege_type FROM information_schema.column_privileges
      WHERE table_schema = $1 ORDER BY 1, 2, 3, 4`),
    await read(`SELECT c.relname, c.relrowsecurity FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY 1`),
    await read(`SELECT tablename, policyname, roles::text, cmd, qual, with_check FROM pg_catalog.pg_policies
      WHERE schemaname = $1 ORDER BY 1, 2`)
  ])
}

/**
 * Sets the team memory's schema up on a hub whose roles `acx hub init` made (connected as a role
 * that may create the schema and grant on it): tables, privileges, row-level security by project.
 * `changed` is false when it was all there already.
 *
 * @since 0.4.0
 * @category hub
 */
export const setUp = Effect.fn("TeamHub.setUp")(function*(options: {
  readonly url: Redacted.Redacted<string>
  readonly teamSchema: string
  readonly hubSchema: string
}): Effect.fn.Return<{ readonly changed: boolean }, MemoryError> {
  const settings = { url: options.url, schema: options.teamSchema, user: "", machine: "" }
  // the schema is created (when missing) in the set-up's transaction, after any take-over: an
  // admin may not even look into a schema a member owns until it is the admin's
  return yield* Effect.scoped(
    Effect.flatMap(TeamSync.connect(settings, undefined, false), (client) =>
      Effect.tryPromise({
        try: async () => {
          const before = await snapshot(client, options.teamSchema)
          const roles = await hubRoles(client, options.hubSchema)
          await client.query("BEGIN")
          try {
            await takeOver(client, options.teamSchema, roles)
            await Remote.createMissing(client, options.teamSchema)
            await revokeLegacy(client, options.teamSchema)
            for (const statement of statements(options.teamSchema, options.hubSchema, roles)) {
              await client.query(statement)
            }
            await client.query("COMMIT")
          } catch (error) {
            await client.query("ROLLBACK").catch(() => undefined)
            throw error
          }
          return { changed: before !== await snapshot(client, options.teamSchema) }
        },
        catch: (cause) => TeamSync.teamFailure(settings, cause)
      }))
  )
})
