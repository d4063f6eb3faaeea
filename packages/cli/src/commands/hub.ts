/**
 * `acx hub init ADMIN_URL`, `acx hub user add|remove NAME`, `acx hub user rotate NAME NEW`, `acx hub grant|revoke --project ID
 * --role NAME`, `acx hub status`: a team's Postgres store, with Postgres' roles and row-level
 * security deciding who sees what (docs/hub.md). What they do: `run/hub.ts`.
 *
 * @since 0.4.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as HubOptions from "./args/hub.js"

const runs = () => import("./run/hub.js")

const init = Command.make("init", HubOptions.initConfig, lazyHandler(runs, (m) => m.init)).pipe(
  Command.withDescription(
    "Create the store's tables, the roles acx_sync, acx_viewer and acx_admin, their privileges and row-level security (twice changes nothing)"
  )
)

const user = Command.make("user", HubOptions.userConfig, lazyHandler(runs, (m) => m.user)).pipe(
  Command.withDescription(
    "add NAME --role sync|viewer: create a login role in acx_sync or acx_viewer and print its connection URL, with its generated password, once; remove NAME: drop it and its grants (the rows it synced stay); rotate NAME NEW: hand NAME's sessions and grants to NEW (created when missing, its URL printed once) and drop NAME"
  )
)

const grant = Command.make("grant", HubOptions.grantConfig, lazyHandler(runs, (m) => m.grant)).pipe(
  Command.withDescription("Limit a viewer to the projects granted to it (a viewer with no grant sees every project)")
)

const revoke = Command.make("revoke", HubOptions.grantConfig, lazyHandler(runs, (m) => m.revoke)).pipe(
  Command.withDescription("Take a grant back (a viewer left with no grant sees every project again)")
)

const status = Command.make("status", HubOptions.statusConfig, lazyHandler(runs, (m) => m.status)).pipe(
  Command.withDescription(
    "Machines, last sync per machine, sessions, entries and sizes, lagging machines, members and grants"
  )
)

/**
 * @since 0.4.0
 * @category commands
 */
export const hub = Command.make("hub").pipe(
  Command.withDescription(
    "A team on one Postgres: set it up, add members, limit viewers to projects, see each machine"
  ),
  Command.withSubcommands([init, user, grant, revoke, status])
)
