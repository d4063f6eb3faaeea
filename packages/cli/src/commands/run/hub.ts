/**
 * What `acx hub …` does (its options: `../args/hub.ts`): each command opens one small pool on the
 * hub URL (`PostgresHub`), does its work and says so in one line; `status` prints a table or JSON.
 * A connection string's password is never printed: messages show `DatabaseSpec.display`, and the
 * one URL with a password in it, the new member's, is printed once on stdout by `user add`.
 *
 * @since 0.4.0
 */
import { agree, plural } from "@acx/convert/Plural"
import * as TerminalText from "@acx/convert/TerminalText"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as TeamConfig from "@acx/memory/TeamConfig"
import * as TeamHub from "@acx/memory/TeamHub"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { distance } from "../../internal/commandLine.js"
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { HUB_ENV } from "../../table/options.js"
import type { GrantOptions, InitOptions, StatusOptions, UserOptions } from "../args/hub.js"

/** The Postgres spec of `spec` (`flag` names it in the one line a bad one gets). */
const postgresSpec = (spec: string, flag: string) =>
  Either.match(DatabaseSpec.parse(spec), {
    onLeft: (error) => Effect.fail(CliError.invalidArgument(`${flag}: ${error.description}`)),
    onRight: (database) =>
      database._tag === "Postgres"
        ? Effect.succeed(database)
        : Effect.fail(CliError.invalidArgument(`${flag}: a hub is a Postgres database (postgres://…)`))
  })

/** The positional URL, else `--hub`, else `$ACX_HUB_URL` (both given: they must agree). */
const hubSpec = (url: string | undefined, hub: string | undefined, env: CommandIo["env"]) => {
  if (url !== undefined && hub !== undefined && url !== hub) {
    return Effect.fail(CliError.invalidArgument("the hub is named twice (URL and --hub): give one"))
  }
  const spec = url ?? hub ?? env[HUB_ENV]
  return spec === undefined
    ? Effect.fail(
      CliError.invalidArgument(`name the hub: acx hub … postgres://ADMIN@host/db, --hub URL or ${HUB_ENV}`)
    )
    : postgresSpec(spec, "URL")
}

/** Runs `use` on the hub `database` names, the pool closed after. */
const withHub = <A, E>(
  database: DatabaseSpec.Postgres,
  use: (hub: PostgresHub.PostgresHub) => Effect.Effect<A, E>
) => Effect.scoped(Effect.flatMap(PostgresHub.make({ url: database.url, schema: database.schema }), use))

const groupList = (roles: PostgresHub.GroupRoles) => `${roles.sync}, ${roles.viewer}, ${roles.admin}`

/** What `init` says beyond "ready": the members it moved off the legacy groups, and who may connect. */
const initNotes = (result: PostgresHub.InitResult): ReadonlyArray<string> => {
  const legacy = groupList(PostgresHub.LEGACY_GROUP_ROLES)
  const moved = result.moved.map((m) => `${m.member} (${m.role})`).join(", ")
  return [
    ...(result.moved.length === 0 ? [] : [
      `moved off the cluster-wide groups ${legacy}: ${moved} joined this hub's groups, and those groups hold nothing on it now (a member of another hub among them: REVOKE the group from it)`
    ]),
    ...(result.publicConnect
      ? [
        `every role may still connect to database ${result.database}: only its owner can close it (REVOKE CONNECT ON DATABASE "${result.database}" FROM PUBLIC; acx hub init as the owner does)`
      ]
      : [])
  ]
}

/**
 * @since 0.4.0
 * @category handlers
 */
export const init = ({ hub: hubOption, team, url }: InitOptions) =>
  Effect.gen(function*() {
    const database = yield* hubSpec(url, hubOption, (yield* CurrentIo).env)
    // the team memory is part of every hub: its schema is acx_team unless --team names another
    const teamSchema = team ?? TeamConfig.DEFAULT_SCHEMA
    if (!TeamConfig.SCHEMA_NAME.test(teamSchema)) {
      return yield* CliError.invalidArgument(
        `--team: ${JSON.stringify(teamSchema)} is not a schema name (letters, digits, _)`
      )
    }
    const hub = yield* withHub(database, (hub) => hub.init())
    const teamSetUp = yield* TeamHub.setUp({ url: database.url, teamSchema, hubSchema: database.schema ?? "public" })
    const teamPart = ` and the team memory (schema ${teamSchema})`
    yield* Console.log(
      hub.changed || teamSetUp.changed
        ? `hub ready at ${DatabaseSpec.display(database)}${teamPart}: roles ${groupList(hub.roles)}; CONNECT ${
          hub.publicConnect ? "open to every role" : "only for them"
        }; row-level security on`
        : `hub at ${DatabaseSpec.display(database)}${teamPart} was already set up: nothing changed`
    )
    for (const note of initNotes(hub)) yield* Console.error(note)
  })

/**
 * `user add NAME --role R` / `user remove NAME` / `user rotate NAME NEW`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const user = ({ action, hub, name, next: second, role, url: first }: UserOptions) =>
  Effect.gen(function*() {
    const { next, url: urlArg } = yield* userWords(first, second)
    if (action === "rotate") return yield* rotate(urlArg, hub, name, next)
    if (next !== undefined) return yield* CliError.invalidArgument(`user ${action} takes one NAME`)
    if (action === "remove") {
      const database = yield* hubSpec(urlArg, hub, (yield* CurrentIo).env)
      yield* withHub(database, (h) => h.removeUser(name))
      return yield* Console.log(`removed ${name} and its grants; the sessions it synced stay`)
    }
    if (role === undefined) return yield* CliError.invalidArgument("user add needs --role sync or --role viewer")
    const database = yield* hubSpec(urlArg, hub, (yield* CurrentIo).env)
    const { group, url } = yield* withHub(
      database,
      (h) => Effect.map(h.addUser(name, role), ({ url }) => ({ url, group: h.roles[role] }))
    )
    // the only place a password is printed: the new member's, on stdout, this once
    yield* Console.log(Redacted.value(url))
    yield* Console.error(
      `created ${name} in ${group}; the URL above holds its password and is not shown again`
    )
  })

/** At most three known projects nearest to `project` (by edit distance, case and separators aside). */
const closestProjects = (known: ReadonlyArray<string>, project: string): ReadonlyArray<string> => {
  const fold = (text: string) => text.toLowerCase().replace(/[-/\\.:_]+/g, "-").replace(/^-+|-+$/g, "")
  const target = fold(project)
  return [...known]
    .map((candidate) => ({ candidate, d: distance(fold(candidate), target) }))
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate)
}

/** The grant's project: a known identity, or with `--allow-unknown` any non-empty one. */
const checkProject = (h: PostgresHub.PostgresHub, project: string, allowUnknown: boolean) =>
  Effect.gen(function*() {
    if (project.trim() === "") {
      return yield* CliError.invalidArgument("--project: empty; name a project as acx hub status lists it")
    }
    if (allowUnknown) return
    const known = yield* h.knownProjects()
    if (known.includes(project)) return
    const closest = closestProjects(known, project)
    return yield* CliError.notFound(
      `no session of the hub is of project ${JSON.stringify(project)}; ${
        closest.length === 0 ? "it knows no project yet" : `closest: ${closest.join(", ")}`
      } (--allow-unknown grants a project still to come)`
    )
  })

/**
 * A member (sync or viewer) is refused before anything is looked up: which projects it can read
 * is not what an admin's grant checks against. Any other role (an admin, the owner of the tables
 * in no group) goes on; the server decides.
 */
const adminOnly = (h: PostgresHub.PostgresHub, command: string) =>
  Effect.flatMap(
    h.access(),
    (who) =>
      who.access === "sync" || who.access === "viewer" || who.access === "restricted viewer"
        ? Effect.fail(
          CliError.conflict(PostgresHub.roleRefusal(who, command, "admin", "members may not change grants"))
        )
        : Effect.void
  )

/** What a grant to a role of this kind does, when that is not the plain "a viewer sees only it". */
const grantNote = (role: string, kind: "sync" | "viewer" | "admin" | "none") =>
  kind === "sync"
    ? `${role} is a sync member: a grant limits only the team memory its machine pulls and pushes (its sessions are its own rows, whatever the grants)`
    : kind === "admin"
    ? `${role} is an admin of the hub: it sees every row, whatever the grants`
    : undefined

/** `user rotate NAME NEW`: NAME's sessions and grants handed to NEW, NAME dropped. */
const rotate = (
  hubUrl: string | undefined,
  hub: string | undefined,
  name: string,
  next: string | undefined
) =>
  Effect.gen(function*() {
    if (next === undefined) {
      return yield* CliError.invalidArgument(
        "user rotate needs the member taking NAME's place: acx hub user rotate NAME NEW"
      )
    }
    const database = yield* hubSpec(hubUrl, hub, (yield* CurrentIo).env)
    const { role, sessions, url } = yield* withHub(database, (h) => h.rotateUser(name, next))
    const moved = `${name}'s ${plural(sessions, "session")} and grants now belong to ${next}; ${name} was dropped`
    if (url === undefined) return yield* Console.log(moved)
    // the only other place a password is printed: the new member's, on stdout, this once
    yield* Console.log(Redacted.value(url))
    yield* Console.error(
      `created ${next} in the hub's ${role} group; ${moved}; the URL above holds its password and is not shown again`
    )
  })

/**
 * `user`'s words after NAME: the one that is a URL (`postgres://…`) names the hub, the other is
 * `rotate`'s NEW, in either order (`user rotate OLD NEW URL`, `user add NAME URL`).
 */
const userWords = (first: string | undefined, second: string | undefined) => {
  const words = [first, second].filter((word): word is string => word !== undefined)
  const isUrl = (word: string) => /^postgres(ql)?:\/\//i.test(word)
  const urls = words.filter(isUrl)
  const names = words.filter((word) => !isUrl(word))
  return urls.length > 1 || names.length > 1
    ? Effect.fail(CliError.invalidArgument(`hub user: unexpected ${JSON.stringify(words.at(-1))}`))
    : Effect.succeed({ next: names[0], url: urls[0] })
}

/**
 * How many sessions of a project the hub holds, as `acx hub grant` says it: `1 session of it is in
 * the hub today`.
 *
 * @since 0.4.0
 * @category rendering
 */
export const heldInHub = (sessions: number): string =>
  `${plural(sessions, "session")} of it ${agree(sessions, "is", "are")} in the hub today`

/**
 * @since 0.4.0
 * @category handlers
 */
export const grant = ({ allowUnknown, hub, project, role, url }: GrantOptions) =>
  Effect.gen(function*() {
    const database = yield* hubSpec(url, hub, (yield* CurrentIo).env)
    const { added, kind, sessions } = yield* withHub(database, (h) =>
      Effect.gen(function*() {
        yield* adminOnly(h, "acx hub grant")
        const kind = yield* h.memberKind(role)
        if (kind === "none") {
          return yield* CliError.notFound(
            `${role} is no member of this hub (its groups: ${groupList(h.roles)}); nothing was granted`
          )
        }
        yield* checkProject(h, project, allowUnknown)
        return { ...(yield* h.grant(project, role)), kind }
      }))
    const held = heldInHub(sessions)
    yield* Console.log(
      added ? `${role} may now see ${project} (${held})` : `${role} could already see ${project}; nothing changed`
    )
    const note = grantNote(role, kind)
    if (note !== undefined) yield* Console.error(note)
  })

/** What a role left with no grant sees, by its kind. */
const noGrantLeft = (role: string, kind: "sync" | "viewer" | "admin" | "none") =>
  kind === "sync"
    ? `${role} has no grant left: its machine's team memory covers every project again`
    : kind === "viewer"
    ? `${role} has no grant left: as a viewer it now sees every project (grant one, or acx hub user remove ${role})`
    : `${role} has no grant left`

/**
 * @since 0.4.0
 * @category handlers
 */
export const revoke = ({ hub, project, role, url }: GrantOptions) =>
  Effect.gen(function*() {
    const database = yield* hubSpec(url, hub, (yield* CurrentIo).env)
    const { kind, left, removed } = yield* withHub(database, (h) =>
      Effect.gen(function*() {
        const kind = yield* h.memberKind(role).pipe(Effect.orElseSucceed(() => "none" as const))
        return { ...(yield* h.revoke(project, role)), kind }
      }))
    if (!removed) return yield* CliError.notFound(`${role} has no grant for ${project}; nothing changed`)
    yield* Console.log(`${role} may no longer see ${project}`)
    if (left === 0) yield* Console.error(noGrantLeft(role, kind))
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
    status.storeBytes === null
      ? `schema ${status.schema}; you see it as ${status.access} (docs/hub.md, "Who may do what")`
      : `store: ${format.bytes(status.storeBytes)} in schema ${status.schema}`,
    `members: ${members === "" ? "none" : members}`,
    `grants: ${grants === "" ? "none (every viewer sees every project)" : grants}`,
    `projects: ${projects === "" ? "none" : projects}`
  ].join("\n"))
}

/**
 * @since 0.4.0
 * @category handlers
 */
export const status = ({ hub, json, lagHours, url }: StatusOptions) =>
  Effect.gen(function*() {
    if (!(lagHours > 0)) return yield* CliError.invalidArgument(`--lag-hours must be above 0, got ${lagHours}`)
    const database = yield* hubSpec(url, hub, (yield* CurrentIo).env)
    const report = yield* withHub(database, (h) => h.status({ lagHours }))
    yield* Console.log(json ? format.json(report) : statusTable(report))
  })
