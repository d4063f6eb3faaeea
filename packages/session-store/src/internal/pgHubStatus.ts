/**
 * What `PostgresHub.status` and `access` read: the connected role's part in the hub, the kind of
 * any role, the projects the hub knows, and each machine's sessions, entries and sizes, as far as
 * the role's policies let it read them.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { HubRoles } from "./pgHub.js"
import { fail, failure } from "./pgHubErrors.js"

/**
 * What the connected role is to a hub: an `admin` (a member of its admin group, a superuser, or
 * the owner of its tables), a `sync` member, a `viewer` (`restricted` when one of its roles has a
 * grant), or `none` (no member of this hub). `status` shows each what its part covers
 * (docs/hub.md, "Who may do what").
 */
export type HubAccess = "admin" | "sync" | "viewer" | "restricted viewer" | "none"

/**
 * Who a connection is to a hub: its login role, its part, and the hub's groups.
 */
export interface RoleAccess {
  readonly user: string
  readonly access: HubAccess
  readonly roles: HubRoles
}

/**
 * One machine of `status`: what the sessions whose origin names it hold. `machine` is `""` for
 * sessions stored without an origin (by an acx before origins, or by the SDK's own mirroring).
 */
export interface MachineStatus {
  readonly machine: string
  /** The OS users and the database roles that synced its sessions. */
  readonly osUsers: ReadonlyArray<string>
  readonly dbUsers: ReadonlyArray<string>
  readonly sessions: number
  readonly entries: number
  /** The size of its entries' JSON, in bytes. */
  readonly entryBytes: number
  /** The store clock's epoch ms of the last write to one of its sessions. */
  readonly lastSyncMs: number
  /** `lastSyncMs` is older than the lag limit `status` was given. */
  readonly lagging: boolean
}

/**
 * What `status` shows depends on `access`: machines, projects and grants are what the role's
 * policies let it read; `members` is every member of the hub's groups for an admin and an
 * unrestricted viewer, the role itself for the others; `storeBytes` is `null` but for those two.
 */
export interface HubStatus {
  readonly schema: string
  /** The connected role's part in the hub, and the hub's group roles. */
  readonly access: HubAccess
  readonly roles: HubRoles
  readonly machines: ReadonlyArray<MachineStatus>
  /** The roles in each of the hub's groups (login roles and the groups a DBA made in them). */
  readonly members: ReadonlyArray<{ readonly role: string; readonly member: string }>
  readonly grants: ReadonlyArray<{ readonly role: string; readonly project: string }>
  /** The projects of the sessions' origins (the IDs `grant` takes), most sessions first. */
  readonly projects: ReadonlyArray<{ readonly project: string; readonly sessions: number }>
  /** `pg_total_relation_size` over the schema's tables (indexes and TOAST included); `null`: not shown to this role. */
  readonly storeBytes: number | null
  readonly lagHours: number
}

interface MachineRow {
  readonly machine: string | null
  readonly os_users: ReadonlyArray<string> | null
  readonly db_users: ReadonlyArray<string> | null
  readonly sessions: string | number
  readonly last_ms: string | number | null
}

/** The kind of member the role `who` (a fragment naming it) is: the first of admin, sync, viewer it is in. */
export const kindOf = (sql: SqlClient.SqlClient, roles: HubRoles, who: Statement.Fragment) =>
  Effect.map(
    sql<{ readonly groups: ReadonlyArray<string> | null; readonly superuser: boolean | null }>`SELECT
        (SELECT array_agg(g.rolname::text) FROM pg_catalog.pg_roles g
          WHERE g.rolname IN (${roles.admin}, ${roles.sync}, ${roles.viewer})
            AND pg_catalog.pg_has_role(r.oid, g.oid, 'MEMBER')) AS groups, r.rolsuper AS superuser
      FROM pg_catalog.pg_roles r WHERE r.rolname = ${who}`,
    ([row]): "admin" | "sync" | "viewer" | "none" | undefined => {
      if (row === undefined) return undefined
      const groups = row.groups ?? []
      if (row.superuser === true || groups.includes(roles.admin)) return "admin"
      return groups.includes(roles.sync) ? "sync" : groups.includes(roles.viewer) ? "viewer" : "none"
    }
  )

/** The connected role's part in the hub (see {@link HubAccess}). */
export const readAccess = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles, restricted: boolean) =>
  Effect.gen(function*() {
    // the login that ran `init` owns the tables, in no group (a managed service's admin is no superuser)
    const [owner] = yield* sql<{ readonly owns: boolean | null }>`SELECT pg_catalog.pg_has_role(current_user,
        c.relowner, 'MEMBER') AS owns FROM pg_catalog.pg_class c
      WHERE c.oid = pg_catalog.to_regclass(${`${schema}.acx_hub_grants`})`
    if (owner?.owns === true) return "admin" as const
    const kind = yield* kindOf(sql, roles, sql.literal("current_user"))
    return kind === "viewer" && restricted ? "restricted viewer" as const : kind ?? "none"
  })

/** What `grant` checks: the kind of a role, and the projects the hub knows. */
export const lookups = (sql: SqlClient.SqlClient, schema: string, roles: HubRoles) => ({
  memberKind: Effect.fn("PostgresHub.memberKind")(function*(role: string) {
    const kind = yield* kindOf(sql, roles, sql`${role}`).pipe(Effect.mapError(failure("grant")))
    if (kind === undefined) return yield* fail("grant", "NotFound", `there is no role ${JSON.stringify(role)}`)
    return kind
  }),
  knownProjects: Effect.fn("PostgresHub.knownProjects")(function*() {
    const rows = yield* sql<{ readonly project: string }>`SELECT DISTINCT project FROM (
        SELECT project FROM ${sql(`${schema}.acx_session_origin`)}
        UNION SELECT project FROM ${sql(`${schema}.acx_hub_grants`)}) p ORDER BY 1`.pipe(
      Effect.mapError(failure("grant"))
    )
    return rows.map((row) => row.project)
  })
})

/** Who the connection is (see {@link RoleAccess}); restricted when one of its roles has a grant. */
export const readRoleAccess = (
  sql: SqlClient.SqlClient,
  schema: string,
  roles: HubRoles
): Effect.Effect<RoleAccess, SqlError> =>
  Effect.gen(function*() {
    const [me] = yield* sql<{ readonly user: string }>`SELECT current_user AS user`
    const [granted] = yield* sql<{ readonly any: boolean }>`SELECT EXISTS (SELECT 1
      FROM ${sql(`${schema}.acx_hub_grants`)} g WHERE g.role_name IN (SELECT r.rolname FROM pg_catalog.pg_roles r
        WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER'))) AS any`
      .pipe(Effect.orElseSucceed(() => [{ any: false }]))
    const access = yield* readAccess(sql, schema, roles, granted?.any === true)
    return { user: me!.user, access, roles }
  })

/** The machines of `status`, with their entries' counts and sizes: what the role's policies let it read. */
export const readMachines = (sql: SqlClient.SqlClient, schema: string, lagHours: number) =>
  Effect.gen(function*() {
    const t = (name: string) => sql(`${schema}.${name}`)
    const origin = sql`LEFT JOIN ${t("acx_session_origin")} o
      ON o.project_key = x.project_key AND o.session_id = x.session_id`
    const machines = yield* sql<MachineRow>`SELECT o.machine,
        array_remove(array_agg(DISTINCT o.os_user), NULL) AS os_users,
        array_remove(array_agg(DISTINCT o.db_user), NULL) AS db_users,
        count(DISTINCT (x.project_key, x.session_id)) AS sessions, max(x.mtime) AS last_ms
      FROM ${t("acx_session_keys")} x ${origin} GROUP BY o.machine ORDER BY o.machine NULLS LAST`
    const sizes = yield* sql<
      { readonly machine: string | null; readonly entries: string; readonly bytes: string }
    >`SELECT
        o.machine, count(*) AS entries, coalesce(sum(pg_column_size(x.entry)), 0) AS bytes
      FROM ${t("claude_session_entries")} x ${origin} GROUP BY o.machine`
    const bySize = new Map(sizes.map((row) => [row.machine ?? "", row]))
    const cutoff = Date.now() - lagHours * 3_600_000
    return machines.map((row): MachineStatus => {
      const machine = row.machine ?? ""
      const lastSyncMs = Number(row.last_ms ?? 0)
      return {
        machine,
        osUsers: row.os_users ?? [],
        dbUsers: row.db_users ?? [],
        sessions: Number(row.sessions),
        entries: Number(bySize.get(machine)?.entries ?? 0),
        entryBytes: Number(bySize.get(machine)?.bytes ?? 0),
        lastSyncMs,
        lagging: lastSyncMs < cutoff
      }
    })
  })

/** `PostgresHub.status`: the grants, the role's part, the machines, members, projects and size it may see. */
export const readStatus = (
  sql: SqlClient.SqlClient,
  schema: string,
  roles: HubRoles,
  lagHours: number
): Effect.Effect<HubStatus, SqlError> =>
  Effect.gen(function*() {
    const t = (name: string) => sql(`${schema}.${name}`)
    // a store that was never made a hub has no grants table; a member reads only its own grants
    const grants = yield* sql<{ readonly role: string; readonly project: string }>`SELECT role_name AS role, project
      FROM ${t("acx_hub_grants")} ORDER BY 1, 2`.pipe(Effect.orElseSucceed(() => []))
    const access = yield* readAccess(sql, schema, roles, grants.length > 0)
    // the size of the whole store and the team's names: for those who see every project
    const seesAll = access === "admin" || access === "viewer"
    const machines = yield* readMachines(sql, schema, lagHours)
    const [store] = seesAll
      ? yield* sql<{ readonly bytes: string | number }>`SELECT
        coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND c.relkind = 'r'`
      : []
    const members = yield* sql<{ readonly role: string; readonly member: string }>`SELECT g.rolname AS role,
        r.rolname AS member
      FROM pg_catalog.pg_auth_members a JOIN pg_catalog.pg_roles g ON g.oid = a.roleid
      JOIN pg_catalog.pg_roles r ON r.oid = a.member
      WHERE g.rolname IN (${roles.sync}, ${roles.viewer}, ${roles.admin}) AND r.rolname <> ${roles.admin}
        AND (${seesAll} OR r.rolname = current_user) ORDER BY 1, 2`
    const projects = yield* sql<{ readonly project: string; readonly sessions: string | number }>`SELECT project,
        count(*) AS sessions FROM ${t("acx_session_origin")} GROUP BY project ORDER BY 2 DESC, 1`
    return {
      schema,
      access,
      roles,
      machines,
      members,
      grants,
      projects: projects.map((row) => ({ project: row.project, sessions: Number(row.sessions) })),
      storeBytes: store === undefined ? null : Number(store.bytes),
      lagHours
    }
  })
