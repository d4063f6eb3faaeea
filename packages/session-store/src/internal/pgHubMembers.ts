/**
 * A hub's members (`PostgresHub.addUser`, `removeUser`, `rotateUser`): a role name checked, a
 * role's groups read, a login role made in a member group, and a member's rows, sessions and
 * grants handed to another in one transaction.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Redacted from "effect/Redacted"
import * as HubCredentials from "../HubCredentials.js"
import type { HubRoles, MemberRole } from "./pgHub.js"
import { fail, failure } from "./pgHubErrors.js"
import { OWNED_TABLES } from "./pgMigrations.js"

export const roleName = (operation: string, name: string) =>
  Either.match(HubCredentials.checkRoleName(name), {
    onLeft: (description) => fail(operation, "InvalidName", description),
    onRight: Effect.succeed
  })

/** A role's login flag and the groups it is a member of; `undefined` when there is no such role. */
export const membership = (sql: SqlClient.SqlClient, name: string) =>
  sql<{ readonly rolcanlogin: boolean; readonly groups: ReadonlyArray<string> | null }>`SELECT r.rolcanlogin,
    (SELECT array_agg(g.rolname::text) FROM pg_catalog.pg_auth_members a
      JOIN pg_catalog.pg_roles g ON g.oid = a.roleid WHERE a.member = r.oid) AS groups
    FROM pg_catalog.pg_roles r WHERE r.rolname = ${name}`.pipe(Effect.map(([row]) => row))

/** A login role in `role`'s group; a verifier, not the password (see HubCredentials). */
export const createMember = (
  sql: SqlClient.SqlClient,
  name: string,
  role: MemberRole,
  password: Redacted.Redacted,
  roles: HubRoles
) =>
  // the name was checked to be an identifier
  sql.unsafe(
    `CREATE ROLE "${name}" LOGIN PASSWORD '${HubCredentials.scramVerifier(password)}' IN ROLE "${roles[role]}"`
  )

/** The member group (`sync` or `viewer`) of a login role, if it is in one. */
export const memberRole = (sql: SqlClient.SqlClient, operation: string, name: string, roles: HubRoles) =>
  Effect.gen(function*() {
    yield* roleName(operation, name)
    const row = yield* membership(sql, name).pipe(Effect.mapError(failure(operation)))
    const groups = row?.groups ?? []
    const role: MemberRole | undefined = row === undefined || !row.rolcanlogin
      ? undefined
      : groups.includes(roles.sync)
      ? "sync"
      : groups.includes(roles.viewer)
      ? "viewer"
      : undefined
    return { exists: row !== undefined, role }
  })

/** `PostgresHub.rotateUser`: checks both names, then one transaction moves the rows and drops `from`. */
export const rotateMember = (
  sql: SqlClient.SqlClient,
  options: { readonly adminUrl: Redacted.Redacted; readonly schema: string; readonly roles: HubRoles },
  from: string,
  to: string
) =>
  Effect.gen(function*() {
    const { roles, schema } = options
    const old = yield* memberRole(sql, "rotateUser", from, roles)
    if (old.role === undefined) {
      return yield* fail("rotateUser", "NotFound", `${from} is no member of the hub (${roles.sync} or ${roles.viewer})`)
    }
    const role = old.role
    if (from === to) {
      return yield* fail("rotateUser", "Conflict", `${from} cannot take its own place; nothing was changed`)
    }
    const next = yield* memberRole(sql, "rotateUser", to, roles)
    if (next.exists && next.role !== role) {
      return yield* fail(
        "rotateUser",
        "Conflict",
        `${to} exists and is no member of ${roles[role]}, ${from}'s group; nothing was changed`
      )
    }
    const grants = sql(`${schema}.acx_hub_grants`)
    const password = next.exists ? undefined : HubCredentials.generatePassword()
    const sessions = yield* sql.withTransaction(Effect.gen(function*() {
      // every writer's lock first: a sync of `from` running now commits before, or waits and fails
      yield* sql`SELECT ${sql(`${schema}.acx_clock_lock`)}()`
      if (password !== undefined) yield* createMember(sql, to, role, password, roles)
      const moved = yield* sql`UPDATE ${sql(`${schema}.acx_session_owner`)} SET db_user = ${to}
        WHERE db_user = ${from} RETURNING 1`
      // a file both recorded (each writer's records are its own): NEW's record stays, it stored that
      const ledger = sql(`${schema}.acx_import_ledger`)
      yield* sql`DELETE FROM ${ledger} f WHERE f.db_user = ${from} AND EXISTS (SELECT 1 FROM ${ledger} t
        WHERE t.db_user = ${to} AND t.source = f.source AND t.file = f.file)`
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
