/**
 * What `acx hub init`, `user add|remove`, `grant`, `revoke` and `status` take, and the types of
 * what their runs are given (`run/hub.ts` reads them from here).
 *
 * @since 0.4.0
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { jsonOption } from "../../internal/options.js"

/**
 * The environment variable `--hub` defaults to.
 *
 * @since 0.4.0
 * @category options
 */
export const HUB_ENV = "ACX_HUB_URL"

const hubOption = Options.text("hub").pipe(
  Options.withDescription(
    `The hub as an admin: postgres://ADMIN@host/db[?schema=S] (default: $${HUB_ENV}; the password may come from PGPASSWORD or ~/.pgpass)`
  ),
  Options.optional
)

const urlArg = Args.text({ name: "URL" }).pipe(
  Args.withDescription(
    `The hub, as --hub takes it (postgres://ADMIN@host/db[?schema=S]; default: --hub, else $${HUB_ENV})`
  ),
  Args.optional
)

const nameArg = Args.text({ name: "NAME" }).pipe(
  Args.withDescription("The member's role name (lower-case letters, digits and _)")
)

/**
 * @since 0.4.0
 * @category options
 */
export const initConfig = {
  url: Args.text({ name: "ADMIN_URL" }).pipe(
    Args.withDescription(
      `postgres://ADMIN@host/db[?schema=S]: a role that may create roles and owns the store's tables (default: --hub, else $${HUB_ENV})`
    ),
    Args.optional
  ),
  hub: hubOption,
  team: Options.text("team").pipe(
    Options.withDescription(
      "The team memory's schema (default acx_team, what acx memory install --team uses by default); hub init always sets it up: its tables, the roles' privileges and row-level security by project (hub grant limits it too)"
    ),
    Options.optional
  )
}

/**
 * `user add NAME --role R`, `user remove NAME` and `user rotate NAME NEW`: one command whose first argument is the action
 * (a third level of subcommands is misprinted by the root help).
 *
 * @since 0.4.0
 * @category options
 */
export const userConfig = {
  action: Args.choice([["add", "add"], ["remove", "remove"], ["rotate", "rotate"]] as const, { name: "ACTION" }).pipe(
    Args.withDescription(
      "add: create a member and print its URL once; remove: drop it and its grants; rotate NAME NEW: hand NAME's sessions and grants to NEW (created with a new password when missing) and drop NAME"
    )
  ),
  name: nameArg,
  url: urlArg,
  next: Args.text({ name: "NEW" }).pipe(
    Args.withDescription("For rotate: the member taking NAME's place"),
    Args.optional
  ),
  role: Options.choice("role", ["sync", "viewer"] as const).pipe(
    Options.withDescription("For add: sync, a machine that runs acx sync --to; viewer, a person who reads"),
    Options.optional
  ),
  hub: hubOption
}

/**
 * @since 0.4.0
 * @category options
 */
export const grantConfig = {
  url: urlArg,
  project: Options.text("project").pipe(
    Options.withDescription("The project, as the `project` field of acx sessions --json (a git remote or a path)")
  ),
  role: Options.text("role").pipe(
    Options.withDescription("The role (a member, or a group of members) it is granted to")
  ),
  allowUnknown: Options.boolean("allow-unknown").pipe(
    Options.withDescription("grant: a project no session of the hub names yet (it is to come)")
  ),
  hub: hubOption
}

/**
 * @since 0.4.0
 * @category options
 */
export const statusConfig = {
  url: urlArg,
  hub: hubOption,
  json: jsonOption,
  lagHours: Options.float("lag-hours").pipe(
    Options.withDescription("A machine is lagging when it wrote nothing for this many hours"),
    Options.withDefault(24)
  )
}

/**
 * @since 0.4.0
 * @category models
 */
export type InitArgs = Command.Command.ParseConfig<typeof initConfig>
/**
 * @since 0.4.0
 * @category models
 */
export type UserArgs = Command.Command.ParseConfig<typeof userConfig>
/**
 * @since 0.4.0
 * @category models
 */
export type GrantArgs = Command.Command.ParseConfig<typeof grantConfig>
/**
 * @since 0.4.0
 * @category models
 */
export type StatusArgs = Command.Command.ParseConfig<typeof statusConfig>
