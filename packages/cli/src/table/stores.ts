/**
 * The commands that fill stores: `import`, `sync`, `hub`.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "../CommandSpec.js"
import {
  configDir,
  followSymlinks,
  grantOptions,
  hub,
  HUB_ENV,
  hubUrl,
  json,
  machine,
  noMask,
  project,
  projectDir,
  scope,
  syncTo,
  user,
  userScope
} from "./options.js"

export const importCommand: CommandSpec = {
  name: "import",
  description: "Import every session of a Claude Code config directory into SQLite or Postgres",
  options: [
    {
      name: "from",
      type: "text",
      description: "Claude Code config directory to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"
    },
    {
      name: "to",
      type: "text",
      required: true,
      description:
        "The SessionStore: sqlite:FILE or FILE.db (created if missing), or postgres://user:pass@host/db[?schema=S]"
    },
    project,
    { name: "batch-size", type: "integer", default: 500, description: "Entries per append" },
    json,
    followSymlinks,
    machine,
    user,
    noMask
  ],
  load: () => import("../commands/import.js").then((m) => m.run)
}

export const sync: CommandSpec = {
  name: "sync",
  description:
    "Keep every session of a Claude Code config directory in a store (SQLite or Postgres), also after Claude Code deletes it",
  options: [
    syncTo,
    configDir,
    json,
    {
      name: "watch",
      type: "boolean",
      description: "Keep running: sync again whenever a transcript changes, until Ctrl-C"
    },
    {
      name: "background",
      type: "boolean",
      description:
        "What the sync hook runs: when a sync of this target is already running, mark it to run once more and exit"
    },
    machine,
    user,
    noMask
  ],
  load: () => import("../commands/sync.js").then((m) => m.run),
  subcommands: [
    {
      name: "install",
      description:
        "Add hooks (Stop, SessionEnd, PreCompact) to Claude Code's settings that sync in the background (backups first; twice changes nothing)",
      options: [userScope, projectDir, syncTo],
      load: () => import("../commands/sync.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Remove exactly what acx sync install added (backups first)",
      options: [scope, projectDir],
      load: () => import("../commands/sync.js").then((m) => m.uninstall)
    }
  ]
}

export const hubCommand: CommandSpec = {
  name: "hub",
  description: "A team on one Postgres: set it up, add members, limit viewers to projects, see each machine",
  subcommands: [
    {
      name: "init",
      description:
        "Create the store's tables and the team memory's (schema acx_team, or --team NAME), the hub's own group roles (acx_<db>_<schema>_<hash>_sync, _viewer, _admin), their privileges, CONNECT and row-level security (twice changes nothing; moves a hub off the old cluster-wide acx_sync/acx_viewer/acx_admin)",
      options: [
        hub,
        {
          name: "team",
          type: "text",
          description:
            "The team memory's schema (default acx_team, what acx memory install --team uses by default); hub init always sets it up: its tables, the roles' privileges and row-level security by project (hub grant limits it too)"
        }
      ],
      arguments: [{
        name: "ADMIN_URL",
        key: "url",
        optional: true,
        description:
          `postgres://ADMIN@host/db[?schema=S]: a role that may create roles and owns the store's tables (default: --hub, else $${HUB_ENV})`
      }],
      load: () => import("../commands/hub.js").then((m) => m.init)
    },
    {
      name: "user",
      description:
        "add NAME --role sync|viewer: create a login role in the hub's sync or viewer group and print its connection URL, with its generated password, once; remove NAME: drop it and its grants (the rows it synced stay); rotate NAME NEW: hand NAME's sessions and grants to NEW (created when missing, its URL printed once) and drop NAME",
      options: [
        {
          name: "role",
          type: "choice",
          choices: ["sync", "viewer"],
          description: "For add: sync, a machine that runs acx sync --to; viewer, a person who reads"
        },
        hub
      ],
      arguments: [
        {
          name: "ACTION",
          choices: ["add", "remove", "rotate"],
          description:
            "add: create a member and print its URL once; remove: drop it and its grants; rotate NAME NEW: hand NAME's sessions and grants to NEW (created with a new password when missing) and drop NAME"
        },
        { name: "NAME", description: "The member's role name (lower-case letters, digits and _)" },
        hubUrl,
        { name: "NEW", key: "next", optional: true, description: "For rotate: the member taking NAME's place" }
      ],
      load: () => import("../commands/hub.js").then((m) => m.user)
    },
    {
      name: "grant",
      description:
        "Limit a viewer to the projects granted to it (a viewer with no grant sees every project; a sync member's grants limit its team memory); the project must be one the hub knows unless --allow-unknown",
      options: grantOptions,
      arguments: [hubUrl],
      load: () => import("../commands/hub.js").then((m) => m.grant)
    },
    {
      name: "revoke",
      description: "Take a grant back (a viewer left with no grant sees every project again)",
      options: grantOptions,
      arguments: [hubUrl],
      load: () => import("../commands/hub.js").then((m) => m.revoke)
    },
    {
      name: "status",
      description:
        "Machines, last sync per machine, sessions, entries and sizes, lagging machines, members and grants: as much as the connecting role may see",
      options: [
        hub,
        json,
        {
          name: "lag-hours",
          type: "float",
          default: 24,
          description: "A machine is lagging when it wrote nothing for this many hours"
        }
      ],
      arguments: [hubUrl],
      load: () => import("../commands/hub.js").then((m) => m.status)
    }
  ]
}
