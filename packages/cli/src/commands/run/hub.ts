/**
 * What `acx hub …` does (its options: `../args/hub.ts`): each command opens one small pool on the
 * hub URL (`PostgresHub`), does its work and says so in one line; `status` prints a table or JSON.
 * A connection string's password is never printed: messages show `DatabaseSpec.display`, and the
 * one URL with a password in it, the new member's, is printed once on stdout by `user add`.
 *
 * @since 0.4.0
 */
import * as TerminalText from "@acx/convert/TerminalText"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as TeamConfig from "@acx/memory/TeamConfig"
import * as TeamHub from "@acx/memory/TeamHub"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CliError from "../../CliError.js"
import * as format from "../../internal/format.js"
import { type GrantArgs, HUB_ENV, type InitArgs, type StatusArgs, type UserArgs } from "../args/hub.js"

/** The Postgres spec of `spec` (`flag` names it in the one line a bad one gets). */
const postgresSpec = (spec: string, flag: string) =>
  Either.match(DatabaseSpec.parse(spec), {
    onLeft: (error) => Effect.fail(CliError.invalidArgument(`${flag}: ${error.description}`)),
    onRight: (database) =>
      database._tag === "Postgres"
        ? Effect.succeed(database)
        : Effect.fail(CliError.invalidArgument(`${flag}: a hub is a Postgres database (postgres://…)`))
  })

/** `--hub`, else `$ACX_HUB_URL`. */
const hubSpec = (hub: Option.Option<string>) =>
  Option.match(Option.orElse(hub, () => Option.fromNullable(process.env[HUB_ENV])), {
    onNone: () =>
      Effect.fail(CliError.invalidArgument(`name the hub with --hub postgres://ADMIN@host/db or ${HUB_ENV}`)),
    onSome: (spec) => postgresSpec(spec, "--hub")
  })

/** Runs `use` on the hub `database` names, the pool closed after. */
const withHub = <A, E>(
  database: DatabaseSpec.Postgres,
  use: (hub: PostgresHub.PostgresHub) => Effect.Effect<A, E>
) => Effect.scoped(Effect.flatMap(PostgresHub.make({ url: database.url, schema: database.schema }), use))

/**
 * @since 0.4.0
 * @category handlers
 */
export const init = ({ team, url }: InitArgs) =>
  Effect.gen(function*() {
    const database = yield* postgresSpec(url, "ADMIN_URL")
    if (Option.isSome(team) && !TeamConfig.SCHEMA_NAME.test(team.value)) {
      return yield* CliError.invalidArgument(
        `--team: ${JSON.stringify(team.value)} is not a schema name (letters, digits, _)`
      )
    }
    const hub = yield* withHub(database, (hub) => hub.init())
    const teamSetUp = Option.isSome(team)
      ? yield* TeamHub.setUp({ url: database.url, teamSchema: team.value, hubSchema: database.schema ?? "public" })
      : { changed: false }
    const teamPart = Option.isSome(team) ? ` and the team memory (schema ${team.value})` : ""
    yield* Console.log(
      hub.changed || teamSetUp.changed
        ? `hub ready at ${
          DatabaseSpec.display(database)
        }${teamPart}: roles acx_sync, acx_viewer, acx_admin; row-level security on`
        : `hub at ${DatabaseSpec.display(database)}${teamPart} was already set up: nothing changed`
    )
  })

/**
 * `user add NAME --role R` / `user remove NAME`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const user = ({ action, hub, name, role }: UserArgs) =>
  Effect.gen(function*() {
    if (action === "remove") {
      const database = yield* hubSpec(hub)
      yield* withHub(database, (h) => h.removeUser(name))
      return yield* Console.log(`removed ${name} and its grants; the sessions it synced stay`)
    }
    if (Option.isNone(role)) return yield* CliError.invalidArgument("user add needs --role sync or --role viewer")
    const database = yield* hubSpec(hub)
    const { url } = yield* withHub(database, (h) => h.addUser(name, role.value))
    // the only place a password is printed: the new member's, on stdout, this once
    yield* Console.log(Redacted.value(url))
    yield* Console.error(
      `created ${name} in acx_${role.value}; the URL above holds its password and is not shown again`
    )
  })

/**
 * @since 0.4.0
 * @category handlers
 */
export const grant = ({ hub, project, role }: GrantArgs) =>
  Effect.gen(function*() {
    const database = yield* hubSpec(hub)
    const { added, sessions } = yield* withHub(database, (h) => h.grant(project, role))
    const held = `${sessions} session${sessions === 1 ? "" : "s"} of it are in the hub today`
    yield* Console.log(
      added ? `${role} may now see ${project} (${held})` : `${role} could already see ${project}; nothing changed`
    )
  })

/**
 * @since 0.4.0
 * @category handlers
 */
export const revoke = ({ hub, project, role }: GrantArgs) =>
  Effect.gen(function*() {
    const database = yield* hubSpec(hub)
    const { left, removed } = yield* withHub(database, (h) => h.revoke(project, role))
    if (!removed) return yield* CliError.notFound(`${role} has no grant for ${project}; nothing changed`)
    yield* Console.log(`${role} may no longer see ${project}`)
    if (left === 0) {
      yield* Console.error(
        `${role} has no grant left: as a viewer it now sees every project (grant one, or acx hub user remove ${role})`
      )
    }
  })

const statusTable = (status: PostgresHub.HubStatus): string => {
  const machines = format.table(
    [
      { title: "MACHINE" },
      { title: "LAST SYNC" },
      { title: "SESSIONS", align: "right" },
      { title: "ENTRIES", align: "right" },
      { title: "SIZE", align: "right" },
      { title: "SYNCED BY" },
      { title: "" }
    ],
    status.machines.map((machine) => [
      machine.machine === "" ? "(no origin)" : machine.machine,
      format.date(machine.lastSyncMs),
      format.count(machine.sessions),
      format.count(machine.entries),
      format.bytes(machine.entryBytes),
      machine.dbUsers.join(","),
      machine.lagging ? `LAGGING (nothing for over ${status.lagHours} h)` : ""
    ])
  )
  const members = status.members.map((m) => `${m.member} (${m.role})`).join(", ")
  const grants = status.grants.map((g) => `${g.role}: ${g.project}`).join(", ")
  const projects = status.projects.map((p) => `${p.project} (${p.sessions})`).join(", ")
  return TerminalText.lines([
    machines,
    "",
    `store: ${format.bytes(status.storeBytes)} in schema ${status.schema}`,
    `members: ${members === "" ? "none" : members}`,
    `grants: ${grants === "" ? "none (every viewer sees every project)" : grants}`,
    `projects: ${projects === "" ? "none" : projects}`
  ].join("\n"))
}

/**
 * @since 0.4.0
 * @category handlers
 */
export const status = ({ hub, json, lagHours }: StatusArgs) =>
  Effect.gen(function*() {
    if (!(lagHours > 0)) return yield* CliError.invalidArgument(`--lag-hours must be above 0, got ${lagHours}`)
    const database = yield* hubSpec(hub)
    const report = yield* withHub(database, (h) => h.status({ lagHours }))
    yield* Console.log(json ? format.json(report) : statusTable(report))
  })
