/**
 * `acx hub init [URL]`, `acx hub user add|remove NAME [URL]`, `acx hub user rotate NAME NEW [URL]`,
 * `acx hub grant|revoke [URL] --project ID --role NAME`, `acx hub status [URL]` (the hub as URL,
 * `--hub` or `$ACX_HUB_URL`): a team's Postgres store, with Postgres' roles and row-level
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
    "Create the store's tables and the team memory's (schema acx_team, or --team NAME), the hub's own group roles (acx_<db>_<schema>_<hash>_sync, _viewer, _admin), their privileges, CONNECT and row-level security (twice changes nothing; moves a hub off the old cluster-wide acx_sync/acx_viewer/acx_admin)"
  )
)

const user = Command.make("user", HubOptions.userConfig, lazyHandler(runs, (m) => m.user)).pipe(
  Command.withDescription(
    "add NAME --role sync|viewer: create a login role in the hub's sync or viewer group and print its connection URL, with its generated password, once; remove NAME: drop it and its grants (the rows it synced stay); rotate NAME NEW: hand NAME's sessions and grants to NEW (created when missing, its URL printed once) and drop NAME"
  )
)

const grant = Command.make("grant", HubOptions.grantConfig, lazyHandler(runs, (m) => m.grant)).pipe(
  Command.withDescription(
    "Limit a viewer to the projects granted to it (a viewer with no grant sees every project; a sync member's grants limit its team memory); the project must be one the hub knows unless --allow-unknown"
  )
)

const revoke = Command.make("revoke", HubOptions.grantConfig, lazyHandler(runs, (m) => m.revoke)).pipe(
  Command.withDescription("Take a grant back (a viewer left with no grant sees every project again)")
)

const status = Command.make("status", HubOptions.statusConfig, lazyHandler(runs, (m) => m.status)).pipe(
  Command.withDescription(
    "Machines, last sync per machine, sessions, entries and sizes, lagging machines, members and grants: as much as the connecting role may see"
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
