/**
 * A hub: one Postgres store shared by a team, where Postgres itself (roles, privileges, row-level
 * security) decides who may read or write what (docs/hub.md; docs/design.md, "A hub: Postgres
 * decides who sees what"). `init` sets a store's schema up once, as a role that may create roles;
 * `addUser`, `removeUser`, `rotateUser`, `grant` and `revoke` manage its members; `status` says what each
 * machine synced.
 *
 * - `acx_sync` (machines): inserts session data and reads its own rows (`db_user =
 *   current_user`), only into sessions it owns (`acx_session_owner`); no `UPDATE` or `DELETE` on
 *   entries; the clock and a new session's owner change only through the store's write functions.
 * - `acx_viewer` (people): `SELECT` only. A viewer none of whose roles has a grant sees every
 *   project; one with grants sees the sessions of the granted projects (the `project` of each
 *   session's origin, `acx sessions --json`'s `project`).
 * - `acx_admin`: every row, and the grants; grants the two member roles to others.
 *
 * Members are login roles in these groups, made by `addUser` or by a DBA's own
 * `CREATE ROLE … LOGIN IN ROLE acx_viewer`: the policies name the groups, never a member.
 *
 * A store a member created first (its `acx sync --to` ran before `init` on that schema) is taken
 * over by `init`: an owner is exempt from row-level security, so the schema, tables and function
 * it owns go to `acx_admin` and what it put on them is dropped, in `init`'s one transaction.
 *
 * @since 0.4.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as HubCredentials from "./HubCredentials.js"
import { describeStatementFailure, isPermissionDenied } from "./internal/pgConnect.js"
import {
  ensureRoles,
  memberOwnedQuery,
  projectVisible,
  ROLES,
  setUp,
  snapshot,
  STORE_FUNCTIONS,
  STORE_TABLES,
  takeOverPlan,
  takeOverRefusal
} from "./internal/pgHub.js"
import { LATEST_MIGRATION, migrate, OWNED_TABLES } from "./internal/pgMigrations.js"
import { openPool } from "./internal/pgPool.js"
import * as PostgresSessionStore from "./PostgresSessionStore.js"
import type * as SessionStore from "./SessionStore.js"

/**
 * Why a hub operation failed:
 * - `InvalidName`: a role name that is not a plain identifier, or a reserved one;
 * - `NotFound`: the role named does not exist, or is no member of the hub;
 * - `Conflict`: the role to create exists already;
 * - `Privilege`: the connecting role may not do this (e.g. `init` without CREATEROLE);
 * - `Storage`: any other failure of the database.
 *
 * @since 0.4.0
 * @category errors
 */
export class PostgresHubError extends Schema.TaggedError<PostgresHubError>("@acx/session-store/PostgresHubError")(
  "PostgresHubError",
  {
    reason: Schema.Literal("InvalidName", "NotFound", "Conflict", "Privilege", "Storage"),
    operation: Schema.String,
    description: Schema.String,
    cause: Schema.optionalWith(Schema.Defect, { exact: true })
  }
) {
  /**
   * @since 0.4.0
   */
  override get message(): string {
    return `PostgresHub ${this.operation} failed (${this.reason}): ${this.description}`
  }
}

/**
 * The hub's group roles (cluster-wide): machines sync as members of `sync`, people read as members
 * of `viewer`, `admin` manages. Other schemas shared through the hub (the team memory's) give
 * these same roles their privileges.
 *
 * @since 0.4.0
 * @category constants
 */
export const GROUP_ROLES: { readonly sync: "acx_sync"; readonly viewer: "acx_viewer"; readonly admin: "acx_admin" } =
  ROLES

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
 * `acx_sync` or `acx_viewer` owns, and, for its rows, the `ALTER … OWNER TO acx_admin`
 * statements and the one line a connection that may not run them fails with. `init` runs them on
 * the store's schema, the team memory's set-up on its own, each in its set-up's transaction.
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
export type MemberRole = "sync" | "viewer"

/**
 * One machine of `status`: what the sessions whose origin names it hold. `machine` is `""` for
 * sessions stored without an origin (by an acx before origins, or by the SDK's own mirroring).
 *
 * @since 0.4.0
 * @category models
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
 * @since 0.4.0
 * @category models
 */
export interface HubStatus {
  readonly schema: string
  readonly machines: ReadonlyArray<MachineStatus>
  /** The login roles in each group role. */
  readonly members: ReadonlyArray<{ readonly role: string; readonly member: string }>
  readonly grants: ReadonlyArray<{ readonly role: string; readonly project: string }>
  /** The projects of the sessions' origins (the IDs `grant` takes), most sessions first. */
  readonly projects: ReadonlyArray<{ readonly project: string; readonly sessions: number }>
  /** `pg_total_relation_size` over the schema's tables (indexes and TOAST included). */
  readonly storeBytes: number
  readonly lagHours: number
}

/**
 * @since 0.4.0
 * @category models
 */
export interface PostgresHub {
  /** Migrates the store and sets roles, privileges and policies up; whether anything changed. */
  readonly init: () => Effect.Effect<{ readonly changed: boolean }, PostgresHubError>
  /** Creates a login role in `acx_<role>` with a generated password; its connection URL. */
  readonly addUser: (
    name: string,
    role: MemberRole
  ) => Effect.Effect<{ readonly url: Redacted.Redacted }, PostgresHubError>
  /** Drops a member (a login role in `acx_sync` or `acx_viewer`) and its grants; its rows stay. */
  readonly removeUser: (name: string) => Effect.Effect<void, PostgresHubError>
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

const failure = (operation: string) => (cause: unknown): PostgresHubError =>
  new PostgresHubError({
    reason: isPermissionDenied(cause) ? "Privilege" : "Storage",
    operation,
    description: describeStatementFailure(cause),
    cause
  })

const fail = (operation: string, reason: PostgresHubError["reason"], description: string) =>
  Effect.fail(new PostgresHubError({ reason, operation, description }))

const roleName = (operation: string, name: string) =>
  Either.match(HubCredentials.checkRoleName(name), {
    onLeft: (description) => fail(operation, "InvalidName", description),
    onRight: Effect.succeed
  })

/** A role's login flag and the groups it is a member of; `undefined` when there is no such role. */
const membership = (sql: SqlClient.SqlClient, name: string) =>
  sql<{ readonly rolcanlogin: boolean; readonly groups: ReadonlyArray<string> | null }>`SELECT r.rolcanlogin,
    (SELECT array_agg(g.rolname::text) FROM pg_catalog.pg_auth_members a
      JOIN pg_catalog.pg_roles g ON g.oid = a.roleid WHERE a.member = r.oid) AS groups
    FROM pg_catalog.pg_roles r WHERE r.rolname = ${name}`.pipe(Effect.map(([row]) => row))

/** A login role in `role`'s group; a verifier, not the password (see HubCredentials). */
const createMember = (sql: SqlClient.SqlClient, name: string, role: MemberRole, password: Redacted.Redacted) =>
  // the name was checked to be an identifier
  sql.unsafe(
    `CREATE ROLE "${name}" LOGIN PASSWORD '${HubCredentials.scramVerifier(password)}' IN ROLE ${ROLES[role]}`
  )

/** The member group (`sync` or `viewer`) of a login role, if it is in one. */
const memberRole = (sql: SqlClient.SqlClient, operation: string, name: string) =>
  Effect.gen(function*() {
    yield* roleName(operation, name)
    const row = yield* membership(sql, name).pipe(Effect.mapError(failure(operation)))
    const groups = row?.groups ?? []
    const role: MemberRole | undefined = row === undefined || !row.rolcanlogin
      ? undefined
      : groups.includes(ROLES.sync)
      ? "sync"
      : groups.includes(ROLES.viewer)
      ? "viewer"
      : undefined
    return { exists: row !== undefined, role }
  })

/** `PostgresHub.rotateUser`: checks both names, then one transaction moves the rows and drops `from`. */
const rotateMember = (
  sql: SqlClient.SqlClient,
  options: { readonly adminUrl: Redacted.Redacted; readonly schema: string },
  from: string,
  to: string
) =>
  Effect.gen(function*() {
    const { schema } = options
    const old = yield* memberRole(sql, "rotateUser", from)
    if (old.role === undefined) {
      return yield* fail("rotateUser", "NotFound", `${from} is no member of the hub (acx_sync or acx_viewer)`)
    }
    const role = old.role
    if (from === to) {
      return yield* fail("rotateUser", "Conflict", `${from} cannot take its own place; nothing was changed`)
    }
    const next = yield* memberRole(sql, "rotateUser", to)
    if (next.exists && next.role !== role) {
      return yield* fail(
        "rotateUser",
        "Conflict",
        `${to} exists and is no member of acx_${role}, ${from}'s group; nothing was changed`
      )
    }
    const grants = sql(`${schema}.acx_hub_grants`)
    const password = next.exists ? undefined : HubCredentials.generatePassword()
    const sessions = yield* sql.withTransaction(Effect.gen(function*() {
      // every writer's lock first: a sync of `from` running now commits before, or waits and fails
      yield* sql`SELECT ${sql(`${schema}.acx_clock_lock`)}()`
      if (password !== undefined) yield* createMember(sql, to, role, password)
      const moved = yield* sql`UPDATE ${sql(`${schema}.acx_session_owner`)} SET db_user = ${to}
        WHERE db_user = ${from} RETURNING 1`
      for (const table of OWNED_TABLES) {
        yield* sql`UPDATE ${sql(`${schema}.${table}`)} SET db_user = ${to} WHERE db_user = ${from}`
      }
      yield* sql`INSERT INTO ${grants} (role_name, project, granted_ms)
        SELECT ${to}, project, granted_ms FROM ${grants} WHERE role_name = ${from} ON CONFLICT DO NOTHING`
      yield* sql`DELETE FROM ${grants} WHERE role_name = ${from}`
      yield* sql.unsafe(`DROP ROLE "${from}"`)
      return moved.length
    })).pipe(Effect.mapError(failure("rotateUser")))
    return {
      url: password === undefined ? undefined : HubCredentials.memberUrl(options.adminUrl, to, password, schema),
      sessions,
      role
    }
  })

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
    const grants = sql(`${schema}.acx_hub_grants`)
    const latest = sql<{ readonly id: number | null }>`SELECT max(migration_id) AS id
      FROM ${sql(`${schema}.acx_session_store_migrations`)}`.pipe(
      Effect.map(([row]) => Number(row?.id ?? 0)),
      Effect.orElseSucceed(() => 0)
    )

    // what a member owns of the store is given to acx_admin before anything else, or init fails
    const takeOver = Effect.gen(function*() {
      const rows = yield* sql.unsafe<{ readonly kind: string; readonly name: string; readonly owner: string }>(
        memberOwnedQuery(schema, STORE_TABLES, STORE_FUNCTIONS)
      )
      const { owners, statements } = takeOverPlan(rows)
      for (const statement of statements) {
        yield* sql.unsafe(statement).pipe(Effect.catchIf(
          isPermissionDenied,
          (cause) =>
            Effect.fail(
              new PostgresHubError({
                reason: "Privilege",
                operation: "init",
                description: takeOverRefusal(`the store schema ${schema}`, owners, "acx hub init"),
                cause
              })
            )
        ))
      }
    })

    const init = Effect.fn("PostgresHub.init")(function*() {
      const before = yield* latest
      const was = yield* snapshot(sql, schema).pipe(Effect.mapError(failure("init")))
      // one transaction: roles, the take-over, the migrations and the policies, or nothing
      const is = yield* sql.withTransaction(Effect.gen(function*() {
        yield* ensureRoles(sql)
        yield* takeOver
        yield* migrate(schema).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        yield* setUp(sql, schema)
        return yield* snapshot(sql, schema)
      })).pipe(
        Effect.mapError((error) => error instanceof PostgresHubError ? error : failure("init")(error))
      )
      return { changed: before < LATEST_MIGRATION || was !== is }
    })

    const addUser = Effect.fn("PostgresHub.addUser")(function*(name: string, role: MemberRole) {
      yield* roleName("addUser", name)
      if ((yield* membership(sql, name).pipe(Effect.mapError(failure("addUser")))) !== undefined) {
        return yield* fail("addUser", "Conflict", `the role ${name} exists already; nothing was changed`)
      }
      const password = HubCredentials.generatePassword()
      yield* createMember(sql, name, role, password).pipe(Effect.mapError(failure("addUser")))
      return { url: HubCredentials.memberUrl(options.adminUrl, name, password, schema) }
    })

    const rotateUser = Effect.fn("PostgresHub.rotateUser")((from: string, to: string) =>
      rotateMember(sql, { adminUrl: options.adminUrl, schema }, from, to)
    )

    const removeUser = Effect.fn("PostgresHub.removeUser")(function*(name: string) {
      if ((yield* memberRole(sql, "removeUser", name)).role === undefined) {
        return yield* fail("removeUser", "NotFound", `${name} is no member of the hub (acx_sync or acx_viewer)`)
      }
      yield* sql.withTransaction(Effect.zipRight(
        sql`DELETE FROM ${grants} WHERE role_name = ${name}`,
        sql.unsafe(`DROP ROLE "${name}"`)
      )).pipe(Effect.mapError(failure("removeUser")))
    })

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
        return yield* readStatus(sql, schema, lagHours).pipe(Effect.mapError(failure("status")))
      }
    )

    return { init, addUser, removeUser, rotateUser, grant, revoke, status }
  })

interface MachineRow {
  readonly machine: string | null
  readonly os_users: ReadonlyArray<string> | null
  readonly db_users: ReadonlyArray<string> | null
  readonly sessions: string | number
  readonly last_ms: string | number | null
}

const readStatus = (sql: SqlClient.SqlClient, schema: string, lagHours: number) =>
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
    const [store] = yield* sql<{ readonly bytes: string | number }>`SELECT
        coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND c.relkind = 'r'`
    const members = yield* sql<{ readonly role: string; readonly member: string }>`SELECT g.rolname AS role,
        r.rolname AS member
      FROM pg_catalog.pg_auth_members a JOIN pg_catalog.pg_roles g ON g.oid = a.roleid
      JOIN pg_catalog.pg_roles r ON r.oid = a.member
      WHERE g.rolname IN (${ROLES.sync}, ${ROLES.viewer}, ${ROLES.admin}) AND r.rolcanlogin ORDER BY 1, 2`
    // a store that was never made a hub has no grants table
    const grants = yield* sql<{ readonly role: string; readonly project: string }>`SELECT role_name AS role, project
      FROM ${t("acx_hub_grants")} ORDER BY 1, 2`.pipe(Effect.orElseSucceed(() => []))
    const projects = yield* sql<{ readonly project: string; readonly sessions: string | number }>`SELECT project,
        count(*) AS sessions FROM ${t("acx_session_origin")} GROUP BY project ORDER BY 2 DESC, 1`
    const bySize = new Map(sizes.map((row) => [row.machine ?? "", row]))
    const cutoff = Date.now() - lagHours * 3_600_000
    return {
      schema,
      machines: machines.map((row): MachineStatus => {
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
      }),
      members,
      grants,
      projects: projects.map((row) => ({ project: row.project, sessions: Number(row.sessions) })),
      storeBytes: Number(store?.bytes ?? 0),
      lagHours
    }
  })

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
