/**
 * A hub: one Postgres store shared by a team, where Postgres itself (roles, privileges, row-level
 * security) decides who may read or write what (docs/hub.md; docs/design.md, "A hub: Postgres
 * decides who sees what"). `init` sets a store's schema up once, as a role that may create roles;
 * `addUser`, `removeUser`, `rotateUser`, `grant` and `revoke` manage its members; `status` says what each
 * machine synced.
 *
 * Each hub (a schema of a database) has three group roles of its own (`groupRoles`), so that a
 * member of one hub reads nothing of another on the same server:
 *
 * - sync (machines): inserts session data and reads its own rows (`db_user = current_user`), only
 *   into sessions it owns (`acx_session_owner`); no `UPDATE` or `DELETE` on entries; the clock and
 *   a new session's owner change only through the store's write functions.
 * - viewer (people): `SELECT` only. A viewer none of whose roles has a grant sees every project;
 *   one with grants sees the sessions of the granted projects (the `project` of each session's
 *   origin, `acx sessions --json`'s `project`).
 * - admin: every row, and the grants; grants the two member roles to others.
 *
 * Members are login roles in these groups, made by `addUser` or by a DBA's own
 * `CREATE ROLE … LOGIN IN ROLE <the hub's viewer group>`: the policies name the groups, never a
 * member. `CONNECT` on the database is the groups' (taken from `PUBLIC` when the admin owns the
 * database). A hub set up with the cluster-wide groups of older acx (`acx_sync`, `acx_viewer`,
 * `acx_admin`) is moved to its own by the next `init`.
 *
 * A store a member created first (its `acx sync --to` ran before `init` on that schema) is taken
 * over by `init`: an owner is exempt from row-level security, so the schema, tables and function
 * it owns go to the hub's admin group and what it put on them is dropped, in `init`'s one
 * transaction.
 *
 * @since 0.4.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as HubCredentials from "./HubCredentials.js"
import { describeStatementFailure, isPermissionDenied, rootCause } from "./internal/pgConnect.js"
import {
  closeDatabase,
  ensureRoles,
  type HubRoles,
  hubRoles,
  LEGACY_ROLES,
  memberOwnedQuery,
  type MemberRole as InternalMemberRole,
  type MovedMember,
  moveOffLegacy,
  projectVisible,
  rolesOf,
  setUp,
  snapshot,
  STORE_FUNCTIONS,
  STORE_TABLES,
  takeOverPlan,
  takeOverRefusal
} from "./internal/pgHub.js"
import { fail, failure } from "./internal/pgHubErrors.js"
import { createMember, memberRole, membership, roleName, rotateMember } from "./internal/pgHubMembers.js"
import type * as Status from "./internal/pgHubStatus.js"
import { lookups, readRoleAccess, readStatus } from "./internal/pgHubStatus.js"
import { LATEST_MIGRATION, migrate } from "./internal/pgMigrations.js"
import { openPool } from "./internal/pgPool.js"
import { PostgresHubError } from "./PostgresHubError.js"
import * as PostgresSessionStore from "./PostgresSessionStore.js"
import type * as SessionStore from "./SessionStore.js"
import { SessionStoreError } from "./SessionStore.js"

/**
 * Why a hub operation failed (its reasons: `PostgresHubError.ts`).
 *
 * @since 0.4.0
 * @category errors
 */
export { PostgresHubError } from "./PostgresHubError.js"

/**
 * A hub's group roles: machines sync as members of `sync`, people read as members of `viewer`,
 * `admin` manages.
 *
 * @since 0.4.0
 * @category models
 */
export type GroupRoles = HubRoles

/**
 * The group roles of the hub in `schema` of `database` (the one place their names are made):
 * `acx_<database>_<schema>_<hash>_sync|viewer|admin`, lower-case, at most 58 bytes, the hash of
 * the exact names keeping two hubs apart whose names fold alike. Other schemas shared through
 * the hub (the team memory's) give these same roles their privileges.
 *
 * @since 0.4.0
 * @category constants
 */
export const groupRoles = (database: string, schema: string): GroupRoles => hubRoles(database, schema)

/**
 * The cluster-wide group roles older acx made for every hub of a server; `init` moves a hub off
 * them (their members join the hub's own groups, they lose every privilege on the hub).
 *
 * @since 0.4.0
 * @category constants
 */
export const LEGACY_GROUP_ROLES: GroupRoles = LEGACY_ROLES

/**
 * The SQL condition the hub's row-level security uses for "a project the session's roles may see",
 * on a row whose project is `column`: every project when none of the connected role's groups has
 * a `grant`, else only the granted ones (read from the hub schema's grants table). Another schema
 * shared through the hub (the team memory's tables, whose rows carry `project`) limits its rows
 * with the same condition, so one `acx hub grant` covers both.
 *
 * @since 0.4.0
 * @category row-level security
 */
export const projectVisibility = (hubSchema: string, column: string): string => projectVisible(hubSchema, column)

/**
 * Taking over what a hub member created first (docs/design.md, "Who owns a hub's tables"): the
 * query listing a schema's objects (the schema, the tables and functions named) that a member of
 * the hub's sync or viewer group owns (or a legacy cluster-wide group), and, for its rows, the
 * `ALTER … OWNER TO <admin group>` statements and the one line a connection that may not run them
 * fails with. `init` runs them on the store's schema, the team memory's set-up on its own, each in
 * its set-up's transaction.
 *
 * @since 0.4.0
 * @category row-level security
 */
export const memberOwned: {
  readonly query: typeof memberOwnedQuery
  readonly plan: typeof takeOverPlan
  readonly refusal: typeof takeOverRefusal
} = { query: memberOwnedQuery, plan: takeOverPlan, refusal: takeOverRefusal }

/**
 * The member roles `addUser` makes.
 *
 * @since 0.4.0
 * @category models
 */
export type MemberRole = InternalMemberRole

/**
 * What the connected role is to a hub: an `admin` (a member of its admin group, a superuser, or
 * the owner of its tables), a `sync` member, a `viewer` (`restricted` when one of its roles has a
 * grant), or `none` (no member of this hub). `status` shows each what its part covers
 * (docs/hub.md, "Who may do what").
 *
 * @since 0.4.0
 * @category models
 */
export type HubAccess = Status.HubAccess

/**
 * Who a connection is to a hub: its login role, its part, and the hub's groups.
 *
 * @since 0.4.0
 * @category models
 */
export type RoleAccess = Status.RoleAccess

const partOf = (who: RoleAccess): string => {
  switch (who.access) {
    case "admin":
      return `an admin of this hub (${who.roles.admin})`
    case "sync":
      return `a sync member of this hub (${who.roles.sync})`
    case "viewer":
    case "restricted viewer":
      return `a ${who.access} of this hub (${who.roles.viewer})`
    case "none":
      return `no member of this hub (${who.roles.sync}, ${who.roles.viewer}, ${who.roles.admin})`
  }
}

/**
 * The one line for a command the connected role may not run: which role the URL is (the hub
 * group it is in), which the command needs, and the server's own reason.
 *
 * @since 0.4.0
 * @category errors
 */
export const roleRefusal = (who: RoleAccess, command: string, needs: "sync" | "admin", reason: string): string => {
  const need = needs === "sync"
    ? `a sync member (${who.roles.sync}; acx hub user add NAME --role sync makes one)`
    : `the hub's admin (a role that may create roles and owns the store, or a member of ${who.roles.admin})`
  return `${who.user} is ${partOf(who)}: ${command} needs ${need} (${reason})`
}

/**
 * One machine of `status`: what the sessions whose origin names it hold. `machine` is `""` for
 * sessions stored without an origin (by an acx before origins, or by the SDK's own mirroring).
 *
 * @since 0.4.0
 * @category models
 */
export type MachineStatus = Status.MachineStatus

/**
 * What `status` shows depends on `access`: machines, projects and grants are what the role's
 * policies let it read; `members` is every member of the hub's groups for an admin and an
 * unrestricted viewer, the role itself for the others; `storeBytes` is `null` but for those two.
 *
 * @since 0.4.0
 * @category models
 */
export type HubStatus = Status.HubStatus

/**
 * What `init` did: whether anything changed, the hub's groups, the members it moved from the
 * legacy cluster-wide groups, and whether every role may still connect to the database (`init`
 * closes it only when its role owns the database).
 *
 * @since 0.4.0
 * @category models
 */
export interface InitResult {
  readonly changed: boolean
  readonly roles: GroupRoles
  readonly moved: ReadonlyArray<{ readonly member: string; readonly role: keyof GroupRoles }>
  readonly database: string
  readonly publicConnect: boolean
}

/**
 * @since 0.4.0
 * @category models
 */
export interface PostgresHub {
  /** The hub's group roles. */
  readonly roles: GroupRoles
  /** Who the connection is to this hub. */
  readonly access: () => Effect.Effect<RoleAccess, PostgresHubError>
  /** Migrates the store and sets roles, privileges and policies up; whether anything changed. */
  readonly init: () => Effect.Effect<InitResult, PostgresHubError>
  /** Creates a login role in the hub's sync or viewer group with a generated password; its connection URL. */
  readonly addUser: (
    name: string,
    role: MemberRole
  ) => Effect.Effect<{ readonly url: Redacted.Redacted }, PostgresHubError>
  /** Drops a member (a login role in the hub's sync or viewer group) and its grants; its rows stay. */
  readonly removeUser: (name: string) => Effect.Effect<void, PostgresHubError>
  /**
   * What `role` is to the hub: `sync` or `viewer` (a member, or a group, of that group), `admin`,
   * or `none`; fails `NotFound` when no such role exists.
   */
  readonly memberKind: (role: string) => Effect.Effect<"sync" | "viewer" | "admin" | "none", PostgresHubError>
  /** The project identities the hub knows: its sessions' origins' and its grants'. */
  readonly knownProjects: () => Effect.Effect<ReadonlyArray<string>, PostgresHubError>
  /**
   * Hands member `from`'s rows, sessions and grants to `to` and drops `from`, in one transaction
   * (a leaked credential replaced: the machine then syncs as `to` and its sessions follow it).
   * `to` is created in `from`'s group with a generated password when it does not exist (its URL
   * returned, as `addUser`'s), else it must be a member of the same group. How many sessions moved.
   *
   * @since 0.4.0
   */
  readonly rotateUser: (
    from: string,
    to: string
  ) => Effect.Effect<
    { readonly url: Redacted.Redacted | undefined; readonly sessions: number; readonly role: MemberRole },
    PostgresHubError
  >
  /** Lets `role` see `project`; how many of the project's sessions the hub holds today. */
  readonly grant: (
    project: string,
    role: string
  ) => Effect.Effect<{ readonly added: boolean; readonly sessions: number }, PostgresHubError>
  /** Takes a grant back; how many grants `role` has left (none: it sees every project again). */
  readonly revoke: (
    project: string,
    role: string
  ) => Effect.Effect<{ readonly removed: boolean; readonly left: number }, PostgresHubError>
  readonly status: (options?: { readonly lagHours?: number | undefined }) => Effect.Effect<HubStatus, PostgresHubError>
}

/** What a member owns of the store, given to the admin group before anything else, or init fails. */
const takeOverStore = (sql: SqlClient.SqlClient, schema: string, roles: GroupRoles) =>
  Effect.gen(function*() {
    const rows = yield* sql.unsafe<{ readonly kind: string; readonly name: string; readonly owner: string }>(
      memberOwnedQuery(schema, STORE_TABLES, STORE_FUNCTIONS, roles)
    )
    const { owners, statements } = takeOverPlan(rows, roles)
    for (const statement of statements) {
      yield* sql.unsafe(statement).pipe(Effect.catchIf(
        isPermissionDenied,
        (cause) =>
          Effect.fail(
            new PostgresHubError({
              reason: "Privilege",
              operation: "init",
              description: takeOverRefusal(`the store schema ${schema}`, owners, "acx hub init", roles),
              cause
            })
          )
      ))
    }
  })

/** `init`'s transaction: roles, the move off the legacy groups, the take-over, migrations, set-up. */
const initTransaction = (
  sql: SqlClient.SqlClient,
  schema: string,
  roles: GroupRoles,
  takeOver: Effect.Effect<void, PostgresHubError | SqlError>
) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* ensureRoles(sql, roles)
    const moved: ReadonlyArray<MovedMember> = yield* moveOffLegacy(sql, schema, roles)
    yield* takeOver
    yield* migrate(schema).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    yield* setUp(sql, schema, roles)
    const connect = yield* closeDatabase(sql, roles)
    return { moved, ...connect, snapshot: yield* snapshot(sql, schema, roles) }
  }))

/**
 * The hub over an open `SqlClient` connected as an admin (`status` works as any role: a member
 * sees what its policies let it).
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeWithClient = (options: {
  readonly adminUrl: Redacted.Redacted
  readonly schema?: string | undefined
}): Effect.Effect<PostgresHub, SessionStore.SessionStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const schema = yield* PostgresSessionStore.validateOptions({ schema: options.schema })
    const sql = yield* SqlClient.SqlClient
    const roles = yield* rolesOf(sql, schema).pipe(
      Effect.mapError((cause) =>
        new SessionStoreError({
          reason: "Storage",
          operation: "connect",
          description: describeStatementFailure(cause),
          cause
        })
      )
    )
    const grants = sql(`${schema}.acx_hub_grants`)
    const latest = sql<{ readonly id: number | null }>`SELECT max(migration_id) AS id
      FROM ${sql(`${schema}.acx_session_store_migrations`)}`.pipe(
      Effect.map(([row]) => Number(row?.id ?? 0)),
      Effect.orElseSucceed(() => 0)
    )

    const takeOver = takeOverStore(sql, schema, roles)

    const init = Effect.fn("PostgresHub.init")(function*() {
      const before = yield* latest
      const was = yield* snapshot(sql, schema, roles).pipe(Effect.mapError(failure("init")))
      // one transaction: roles, the take-over, the migrations and the policies, or nothing
      const is = yield* initTransaction(sql, schema, roles, takeOver).pipe(
        Effect.mapError((error) => error instanceof PostgresHubError ? error : failure("init")(error))
      )
      return {
        changed: before < LATEST_MIGRATION || was !== is.snapshot,
        roles,
        moved: is.moved,
        database: is.database,
        publicConnect: is.publicConnect
      }
    })

    const addUser = Effect.fn("PostgresHub.addUser")(function*(name: string, role: MemberRole) {
      yield* roleName("addUser", name)
      if ((yield* membership(sql, name).pipe(Effect.mapError(failure("addUser")))) !== undefined) {
        return yield* fail("addUser", "Conflict", `the role ${name} exists already; nothing was changed`)
      }
      const password = HubCredentials.generatePassword()
      yield* createMember(sql, name, role, password, roles).pipe(Effect.mapError(failure("addUser")))
      return { url: HubCredentials.memberUrl(options.adminUrl, name, password, schema) }
    })

    const rotateUser = Effect.fn("PostgresHub.rotateUser")((from: string, to: string) =>
      rotateMember(sql, { adminUrl: options.adminUrl, roles, schema }, from, to)
    )

    const removeUser = Effect.fn("PostgresHub.removeUser")(function*(name: string) {
      if ((yield* memberRole(sql, "removeUser", name, roles)).role === undefined) {
        return yield* fail(
          "removeUser",
          "NotFound",
          `${name} is no member of the hub (${roles.sync} or ${roles.viewer})`
        )
      }
      yield* sql.withTransaction(Effect.zipRight(
        sql`DELETE FROM ${grants} WHERE role_name = ${name}`,
        sql.unsafe(`DROP ROLE "${name}"`)
      )).pipe(Effect.mapError(failure("removeUser")))
    })

    const { knownProjects, memberKind } = lookups(sql, schema, roles)

    const grant = Effect.fn("PostgresHub.grant")(function*(project: string, role: string) {
      if ((yield* membership(sql, role).pipe(Effect.mapError(failure("grant")))) === undefined) {
        return yield* fail("grant", "NotFound", `there is no role ${JSON.stringify(role)}`)
      }
      const added = yield* sql`INSERT INTO ${grants} (role_name, project, granted_ms)
        VALUES (${role}, ${project}, ${Date.now()}) ON CONFLICT DO NOTHING RETURNING 1`
      const [count] = yield* sql<{ readonly n: string | number }>`SELECT count(*) AS n
        FROM ${sql(`${schema}.acx_session_origin`)} WHERE project = ${project}`
      return { added: added.length > 0, sessions: Number(count?.n ?? 0) }
    }, (effect) => Effect.catchTag(effect, "SqlError", (cause) => Effect.fail(failure("grant")(cause))))

    const revoke = Effect.fn("PostgresHub.revoke")(function*(project: string, role: string) {
      const removed = yield* sql`DELETE FROM ${grants} WHERE role_name = ${role} AND project = ${project} RETURNING 1`
      const [left] = yield* sql<{ readonly n: string | number }>`SELECT count(*) AS n FROM ${grants}
        WHERE role_name = ${role}`
      return { removed: removed.length > 0, left: Number(left?.n ?? 0) }
    }, (effect) => Effect.catchTag(effect, "SqlError", (cause) => Effect.fail(failure("revoke")(cause))))

    const status = Effect.fn("PostgresHub.status")(
      function*(statusOptions: { readonly lagHours?: number | undefined } = {}) {
        const lagHours = statusOptions.lagHours ?? 24
        return yield* readStatus(sql, schema, roles, lagHours).pipe(Effect.mapError(failure("status")))
      }
    )

    const access = () => readRoleAccess(sql, schema, roles).pipe(Effect.mapError(failure("access")))
    const explain = explainRefusal(access)
    return {
      roles,
      access,
      init: () => explain(init(), "acx hub init"),
      addUser: (name: string, role: MemberRole) => explain(addUser(name, role), "acx hub user add"),
      removeUser: (name: string) => explain(removeUser(name), "acx hub user remove"),
      rotateUser: (from: string, to: string) => explain(rotateUser(from, to), "acx hub user rotate"),
      memberKind,
      knownProjects,
      grant: (project: string, role: string) => explain(grant(project, role), "acx hub grant"),
      revoke: (project: string, role: string) => explain(revoke(project, role), "acx hub revoke"),
      status
    }
  })

/**
 * `effect` with a refusal of the server (a privilege it lacks, told in the driver's words) said
 * as {@link roleRefusal}: which role the URL is, and which `command` needs. Refusals acx words
 * itself (the take-over's) are left as they are.
 */
const explainRefusal =
  (access: () => Effect.Effect<RoleAccess, PostgresHubError>) =>
  <A>(effect: Effect.Effect<A, PostgresHubError>, command: string): Effect.Effect<A, PostgresHubError> =>
    Effect.catchIf(
      effect,
      (error) =>
        error.reason === "Privilege" && error.cause !== undefined &&
        error.description === describeStatementFailure(error.cause),
      (error) =>
        Effect.flatMap(access(), (who) => {
          const root = rootCause(error.cause)
          const reason = root instanceof Error ? root.message : error.description
          return Effect.fail(
            new PostgresHubError({ ...error, description: roleRefusal(who, command, "admin", reason) })
          )
        })
    )

/**
 * Opens a pool on `url` (closed with the scope) and builds the hub on it. Connection failures are
 * `SessionStoreError`s with reason `Connection`, naming the server, never the password.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (options: {
  readonly url: Redacted.Redacted
  readonly schema?: string | undefined
}): Effect.Effect<PostgresHub, SessionStore.SessionStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* PostgresSessionStore.validateOptions({ schema: options.schema })
    const client = yield* openPool({
      url: options.url,
      maxConnections: 2,
      applicationName: "@acx/session-store/PostgresHub"
    })
    return yield* makeWithClient({ adminUrl: options.url, schema: options.schema }).pipe(
      Effect.provideService(SqlClient.SqlClient, client)
    )
  })
