/**
 * The hub of `@acx/fixtures/hub` (shared with `@acx/ui`'s tests), with the group roles the
 * `acx hub` tests grant and check, named by `PostgresHub` itself.
 */
import * as FixtureHub from "@acx/fixtures/hub"
import * as PostgresHub from "@acx/session-store/PostgresHub"

export * from "@acx/fixtures/hub"

/** The group roles of the hub `url` names (its database, its `?schema=`, else `public`). */
export const groupsOf = (url: string): PostgresHub.GroupRoles => {
  const { database, schema } = FixtureHub.hubOf(url)
  return PostgresHub.groupRoles(database, schema)
}

/** A running hub and its group roles in schema `public` of the server's database. */
export interface RunningHub extends FixtureHub.RunningHub {
  readonly groups: PostgresHub.GroupRoles
}

/** Starts a server and runs `acx hub init` on it. */
export const startHub = async (home: string): Promise<RunningHub> => {
  const hub = await FixtureHub.startHub(home)
  return { ...hub, groups: groupsOf(hub.admin) }
}
