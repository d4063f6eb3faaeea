/**
 * Every command of `acx`, as data: its options (value type, choices, default, whether required),
 * its positional arguments, its subcommands and descriptions, and the module that runs it,
 * imported only when it runs. The parser (`internal/parseArgs.ts`), `--help`
 * (`internal/help.ts`) and the command reference in docs/cli.md (`pnpm --filter @acx/cli reference`)
 * are all read from here. No Effect: loading the table costs no more than the text it holds.
 *
 * @since 0.6.0
 */
import type { CommandSpec, OptionSpec } from "./CommandSpec.js"

// the options several commands share

const configDir: OptionSpec = {
  name: "config-dir",
  type: "text",
  description: "Claude Code config directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"
}

const from: OptionSpec = {
  name: "from",
  type: "text",
  description:
    "Read this session store instead of the config directory: sqlite:FILE, a FILE.db path, or postgres://user:pass@host/db[?schema=S] (what acx sync --to fills; it must exist)"
}

/** `--from` of the commands that only ever read a store: the sync store by default. */
const storeFrom: OptionSpec = {
  name: "from",
  type: "text",
  description:
    "The store to read: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db, the one acx sync fills); nothing is created"
}

/** `-p/--project`: a project directory's name, or the path a session ran in (`projectKey.ts`). */
const project: OptionSpec = {
  name: "project",
  alias: "p",
  type: "text",
  description: "Only this project: its directory name under <config-dir>/projects, or the absolute path it was run in"
}

/** `-p/--project DIR` of the memory and the installers: the directory Claude Code ran in. */
const projectDir: OptionSpec = {
  name: "project",
  alias: "p",
  type: "text",
  description: "Only this project: the directory Claude Code ran in (absolute, or relative to here)"
}

const json: OptionSpec = { name: "json", type: "boolean", description: "Print JSON for scripts" }

const followSymlinks: OptionSpec = {
  name: "follow-symlinks",
  type: "boolean",
  description:
    "Read transcripts and project directories that are symbolic links to places outside the config directory (default: skipped with a warning)"
}

const machine: OptionSpec = {
  name: "machine",
  type: "text",
  description: "The machine its sessions are recorded under, for a store several machines share (default: the hostname)"
}

const user: OptionSpec = {
  name: "user",
  type: "text",
  description: "The user its sessions are recorded under (default: the OS user)"
}

const noMask: OptionSpec = {
  name: "no-mask",
  type: "boolean",
  description: "Store secrets as written instead of masking them on the way in: only for a store its owner alone reads"
}

const scope: OptionSpec = {
  name: "scope",
  type: "choice",
  choices: ["user", "project"],
  description: "user: every project (the Claude config dir's settings.json); project: this one (.claude/settings.json)"
}

const userScope: OptionSpec = { ...scope, default: "user" }

const syncTo: OptionSpec = {
  name: "to",
  type: "text",
  description:
    "The store: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db)"
}

const since: OptionSpec = {
  name: "since",
  type: "text",
  description: "From this local day on (YYYY-MM-DD or YYYYMMDD, inclusive)"
}

const sessionId = {
  name: "id",
  description: "The session id, or a unique prefix of it (at least 4 characters)"
} as const

const statuslineFormat: OptionSpec = {
  name: "format",
  type: "text",
  description: "A template of fields: {model} {context} {session_cost} {today_cost} {five_hour} {seven_day} {block}"
}

/**
 * The environment variable `acx hub`'s `--hub` defaults to.
 *
 * @since 0.4.0
 * @category options
 */
export const HUB_ENV = "ACX_HUB_URL"

const hub: OptionSpec = {
  name: "hub",
  type: "text",
  description:
    `The hub as an admin: postgres://ADMIN@host/db[?schema=S] (default: $${HUB_ENV}; the password may come from PGPASSWORD or ~/.pgpass)`
}

const hubUrl = {
  name: "URL",
  key: "url",
  optional: true,
  description: `The hub, as --hub takes it (postgres://ADMIN@host/db[?schema=S]; default: --hub, else $${HUB_ENV})`
} as const

const grantOptions: ReadonlyArray<OptionSpec> = [
  {
    name: "project",
    type: "text",
    required: true,
    description: "The project, as the `project` field of acx sessions --json (a git remote or a path)"
  },
  {
    name: "role",
    type: "text",
    required: true,
    description: "The role (a member, or a group of members) it is granted to"
  },
  {
    name: "allow-unknown",
    type: "boolean",
    description: "grant: a project no session of the hub names yet (it is to come)"
  },
  hub
]

/**
 * What `acx stats --by` takes: `StatsReport.groupings` and `block` (5-hour billing windows); a
 * test holds the two lists together.
 *
 * @since 0.3.0
 * @category options
 */
export const groupings = ["session", "day", "week", "month", "model", "project", "machine", "user", "block"] as const

/**
 * Claude Code's permission modes (`acx chat --permission-mode`).
 *
 * @since 0.6.0
 * @category options
 */
export const permissionModes = ["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"] as const

const sessions: CommandSpec = {
  name: "sessions",
  description: "List the sessions of a Claude Code config directory, last active first",
  options: [configDir, from, project, json, followSymlinks],
  load: () => import("./commands/sessions.js").then((m) => m.run)
}

const show: CommandSpec = {
  name: "show",
  description: "Print one session (or one of its subagents) as Markdown, Anthropic messages (JSON) or JSONL entries",
  options: [
    { name: "agent", type: "text", description: "Print this subagent of the session (its id, or a unique prefix)" },
    {
      name: "uuids",
      type: "boolean",
      description: "End each message's heading with its uuid, the one acx fork --at takes (markdown)"
    },
    {
      name: "format",
      alias: "f",
      type: "choice",
      choices: ["markdown", "anthropic", "jsonl"],
      default: "markdown",
      description:
        "markdown: the conversation for reading; anthropic: the messages acx stores in Acontext (JSON); jsonl: the entries"
    },
    project,
    configDir,
    from,
    { name: "no-thinking", type: "boolean", description: "Leave thinking blocks out (markdown and anthropic)" },
    {
      name: "no-mask",
      type: "boolean",
      description:
        "Print secrets as the transcript holds them (by default API keys, tokens, private keys and NAME_SECRET=value are masked, as on the page)"
    },
    followSymlinks
  ],
  arguments: [{
    name: "id",
    description:
      "The session id, or a unique prefix of it (at least 4 characters); or a subagent's id (e.g. a881341) or prefix"
  }],
  load: () => import("./commands/show.js").then((m) => m.run)
}

const stats: CommandSpec = {
  name: "stats",
  description:
    "Tokens and US dollars per session, day, week, month, model, project (local days) or 5-hour window, with each row's models",
  options: [
    configDir,
    from,
    project,
    json,
    {
      name: "by",
      type: "choice",
      choices: groupings,
      default: "session",
      description:
        "One row per session, local day, week (from Monday), month, model, project (its git remote, else its path), machine, OS user, or 5-hour billing window (block)"
    },
    followSymlinks,
    since,
    { name: "until", type: "text", description: "Up to this local day (YYYY-MM-DD or YYYYMMDD, inclusive)" },
    {
      name: "live",
      type: "boolean",
      description:
        "With --by block: redraw the windows as transcripts grow (one line per refresh when not a terminal); Ctrl-C ends"
    },
    {
      name: "interval",
      type: "integer",
      default: 2,
      description: "With --live: seconds between refreshes (default 2)"
    }
  ],
  load: () => import("./commands/stats.js").then((m) => m.run)
}

const search: CommandSpec = {
  name: "search",
  description:
    "Search inside every conversation of the session store acx sync keeps (prompts, replies, thinking, tool calls and results), best matches first",
  options: [
    project,
    since,
    {
      name: "role",
      type: "choice",
      choices: ["user", "assistant", "tool"],
      description: "Only the user's prompts, the assistant's text and thinking, or tool inputs and results"
    },
    { name: "limit", alias: "n", type: "integer", description: "At most this many hits (default 20, at most 500)" },
    json,
    storeFrom
  ],
  arguments: [{
    name: "query",
    variadic: "atLeastOne",
    description:
      "Words (all must appear), \"a phrase\", -word or -\"a phrase\" to leave out; several arguments are one query (one that starts with - goes after --: hello -- -world)"
  }],
  load: () => import("./commands/search.js").then((m) => m.run)
}

const importCommand: CommandSpec = {
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
  load: () => import("./commands/import.js").then((m) => m.run)
}

const sync: CommandSpec = {
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
  load: () => import("./commands/sync.js").then((m) => m.run),
  subcommands: [
    {
      name: "install",
      description:
        "Add hooks (Stop, SessionEnd, PreCompact) to Claude Code's settings that sync in the background (backups first; twice changes nothing)",
      options: [userScope, projectDir, syncTo],
      load: () => import("./commands/sync.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Remove exactly what acx sync install added (backups first)",
      options: [scope, projectDir],
      load: () => import("./commands/sync.js").then((m) => m.uninstall)
    }
  ]
}

const hubCommand: CommandSpec = {
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
      load: () => import("./commands/hub.js").then((m) => m.init)
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
      load: () => import("./commands/hub.js").then((m) => m.user)
    },
    {
      name: "grant",
      description:
        "Limit a viewer to the projects granted to it (a viewer with no grant sees every project; a sync member's grants limit its team memory); the project must be one the hub knows unless --allow-unknown",
      options: grantOptions,
      arguments: [hubUrl],
      load: () => import("./commands/hub.js").then((m) => m.grant)
    },
    {
      name: "revoke",
      description: "Take a grant back (a viewer left with no grant sees every project again)",
      options: grantOptions,
      arguments: [hubUrl],
      load: () => import("./commands/hub.js").then((m) => m.revoke)
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
      load: () => import("./commands/hub.js").then((m) => m.status)
    }
  ]
}

/**
 * Acontext's default API base URL, as `--base-url` describes it (`AcontextDefaults.DEFAULT_BASE_URL`;
 * a test holds the two together).
 *
 * @since 0.6.0
 * @category options
 */
export const ACONTEXT_BASE_URL = "https://api.acontext.app/api/v1"

const push: CommandSpec = {
  name: "push",
  description: "Push one session to Acontext (resumable; ACONTEXT_API_KEY)",
  options: [
    {
      name: "base-url",
      type: "text",
      description: `Acontext API base URL (default: $ACONTEXT_BASE_URL, else ${ACONTEXT_BASE_URL})`
    },
    project,
    configDir,
    { name: "thinking", type: "boolean", description: "Store thinking blocks too (as text)" },
    {
      name: "include-sidechains",
      type: "boolean",
      description: "Also push inline sidechain (old-layout subagent) messages"
    },
    {
      name: "new-session",
      type: "boolean",
      description:
        "Push into a fresh Acontext session id (printed) instead of the Claude session's own, e.g. when that one holds other messages"
    },
    json,
    followSymlinks
  ],
  arguments: [sessionId],
  load: () => import("./commands/push.js").then((m) => m.run)
}

const fork: CommandSpec = {
  name: "fork",
  description: "Fork a session up to a message into a new session (fresh uuids, remapped chain)",
  options: [
    {
      name: "at",
      type: "text",
      description: "The uuid of the last message to keep (default: the whole conversation)"
    },
    { name: "title", type: "text", description: "The fork's title (default: the original title + \" (fork)\")" },
    project,
    configDir,
    from,
    json,
    followSymlinks
  ],
  arguments: [sessionId],
  load: () => import("./commands/fork.js").then((m) => m.run)
}

const chat: CommandSpec = {
  name: "chat",
  description:
    "Talk to Claude Code on one warm process; every turn kept in a session store (default $ACX_HOME/agent.db), resumable with --resume",
  options: [
    { name: "resume", type: "text", description: "Continue this session id (loaded from the store)" },
    { name: "model", type: "text", description: "The model to ask for" },
    {
      name: "store",
      type: "text",
      description:
        "Where the conversation is kept: sqlite:FILE, FILE.db or postgres://URL[?schema=S] (default: $ACX_HOME/agent.db)"
    },
    {
      name: "cwd",
      type: "directory",
      description: "The project directory Claude Code works in (default: the current directory)"
    },
    {
      name: "allowed-tools",
      type: "text",
      description: "Tools allowed without asking, comma-separated (e.g. Bash,Read)"
    },
    {
      name: "permission-mode",
      type: "choice",
      choices: permissionModes,
      description: "Claude Code's permission mode"
    }
  ],
  load: () => import("./commands/chat.js").then((m) => m.run)
}

/**
 * The tokens `acx memory context` fills at most by default (`MemoryConfig.defaults.contextTokens`;
 * a test holds the two together).
 *
 * @since 0.6.0
 * @category options
 */
export const CONTEXT_TOKENS = 1500

const memory: CommandSpec = {
  name: "memory",
  description: "Claude Code's memory across sessions: hooks capture, a model distils, the next session starts with it",
  subcommands: [
    {
      name: "status",
      description: "Queue, worker, today's spend against the budget, failures, the settings in force",
      options: [json],
      load: () => import("./commands/memory.js").then((m) => m.status)
    },
    {
      name: "search",
      description: "Full-text search of observations, summaries and prompts, best matches first",
      options: [
        projectDir,
        {
          name: "type",
          type: "text",
          description: "Only this observation type (decision, bugfix, feature, …), or summary, or prompt"
        },
        { name: "since", type: "text", description: "Only from this date on (YYYY-MM-DD)" },
        { name: "limit", type: "integer", default: 20, description: "At most this many" },
        json
      ],
      arguments: [{ name: "query", description: "Words to search for (full-text)" }],
      load: () => import("./commands/memory.js").then((m) => m.search)
    },
    {
      name: "show",
      description: "One observation, summary or prompt in full",
      options: [json],
      arguments: [{ name: "id", description: "An observation, summary or prompt id: O12, S3 or P7" }],
      load: () => import("./commands/memory.js").then((m) => m.show)
    },
    {
      name: "timeline",
      description: "What happened in the project around an entry",
      options: [{ name: "window", type: "integer", default: 5, description: "Entries before and after" }, json],
      arguments: [{ name: "id", description: "The entry to center on: O12, S3 or P7" }],
      load: () => import("./commands/memory.js").then((m) => m.timeline)
    },
    {
      name: "context",
      description:
        `Print exactly what SessionStart injects for a project (default: here), within contextTokens (default ${CONTEXT_TOKENS})`,
      options: [projectDir],
      load: () => import("./commands/memory.js").then((m) => m.context)
    },
    {
      name: "retry",
      description: "Queue the failed events again",
      load: () => import("./commands/memory.js").then((m) => m.retry)
    },
    {
      name: "forget",
      description:
        "Hide entries by id (O12, S3; for the whole team when shared), or delete a session's, a project's or everything before a date's memory",
      options: [
        { name: "session", type: "text", description: "A Claude Code session id" },
        projectDir,
        { name: "before", type: "text", description: "Everything before this date (YYYY-MM-DD)" }
      ],
      arguments: [{
        name: "id",
        key: "ids",
        variadic: "any",
        description: "Observations or summaries to forget (O12, S3): hidden, for the whole team when shared"
      }],
      load: () => import("./commands/memory.js").then((m) => m.forget)
    },
    {
      name: "sync",
      description:
        "Sync the team memory now (acx memory install --team): share your entries, push forgotten ones, pull teammates'",
      options: [json],
      load: () => import("./commands/memory.js").then((m) => m.sync)
    },
    {
      name: "backup",
      description: "Back the memory database up now (online; the worker also does it daily)",
      load: () => import("./commands/memory.js").then((m) => m.backup)
    },
    {
      name: "restore",
      description: "Replace the memory database with a backup (the current one is kept first)",
      arguments: [{ name: "file", description: "The backup file to restore" }],
      load: () => import("./commands/memory.js").then((m) => m.restore)
    },
    {
      name: "install",
      description:
        "Add acx's memory hooks to Claude Code's settings and its MCP server where Claude Code reads them (backups first; twice changes nothing)",
      options: [
        userScope,
        projectDir,
        {
          name: "sessions-from",
          type: "text",
          description:
            "The session store the MCP server's search_sessions and get_session_turns read (acx memory mcp --from; default: the one acx sync fills)"
        },
        {
          name: "team",
          type: "text",
          description:
            "Share observations and summaries with teammates through this Postgres (postgres://…[?schema=NAME], default schema acx_team); hooks stay local"
        },
        {
          name: "user",
          type: "text",
          description: "With --team: the author marked on what you share (default: the OS user)"
        },
        {
          name: "machine",
          type: "text",
          description: "With --team: the machine marked on what you share (default: the hostname)"
        }
      ],
      load: () => import("./commands/memory.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Remove exactly what acx memory install added (backups first)",
      options: [scope, projectDir],
      load: () => import("./commands/memory.js").then((m) => m.uninstall)
    },
    {
      name: "mcp",
      description:
        "The memory as an MCP server on stdio (search, get_observations, timeline; search_sessions and get_session_turns over the session store) for Claude Code: acx memory install registers it",
      options: [storeFrom],
      load: () => import("./commands/memoryMcp.js").then((m) => m.run)
    },
    {
      name: "backfill",
      description:
        "Distil past sessions' transcripts into observations and summaries, as if the hooks had seen them (once per session; resumable)",
      options: [
        configDir,
        from,
        projectDir,
        {
          name: "since",
          type: "text",
          description: "Only sessions active from this date on (YYYY-MM-DD or an ISO time)"
        },
        {
          name: "mode",
          type: "choice",
          choices: ["local", "model"],
          default: "local",
          description: "local: deterministic, free, no model; model: the observer, within the daily budget"
        },
        { name: "yes", type: "boolean", description: "Model mode: start without asking to confirm the estimate" },
        {
          name: "dry-run",
          type: "boolean",
          description: "Count the sessions and events (and the estimate); store nothing"
        },
        json
      ],
      load: () => import("./commands/memory.js").then((m) => m.backfill)
    },
    {
      name: "demo",
      description:
        "The memory end to end, offline: a real Claude Code session's hooks, the stand-in observer, what the next session starts with",
      options: [{
        name: "dir",
        type: "text",
        description: "Keep the scratch project, HOME and memory here (default: a temp dir, removed)"
      }],
      load: () => import("./commands/memory.js").then((m) => m.demo)
    },
    {
      name: "worker",
      description: "Turn queued hook events into observations and summaries, then exit when idle (hooks start it)",
      load: () => import("./commands/memory.js").then((m) => m.worker)
    }
  ]
}

const hook: CommandSpec = {
  name: "hook",
  description:
    "What acx memory install has Claude Code run on its events: record the event for the memory, inject the memory at SessionStart (never fails Claude Code)",
  arguments: [{ name: "Event", description: "The Claude Code hook event: SessionStart, PostToolUse, Stop, …" }],
  passthrough: true,
  hidden: true,
  bundle: "hook.cjs",
  load: () => import("./commands/hook.js").then((m) => m.run)
}

const statusline: CommandSpec = {
  name: "statusline",
  description:
    "Print Claude Code's status line from its JSON on stdin: model, context, session and today's cost, 5-hour and 7-day quota",
  options: [
    statuslineFormat,
    { name: "plain", type: "boolean", description: "No colour (as NO_COLOR does)" },
    {
      name: "wrap",
      type: "text",
      description: "Run this statusline command too (same stdin, 1 s at most) and put acx's fields after its line"
    },
    configDir
  ],
  bundle: "statusline.cjs",
  load: () => import("./commands/statusline.js").then((m) => m.run),
  subcommands: [
    {
      name: "install",
      description:
        "Set acx's statusline in Claude Code's settings (backup first; twice changes nothing; the one replaced is kept for uninstall and --wrap)",
      options: [
        userScope,
        projectDir,
        statuslineFormat,
        {
          name: "wrap",
          type: "boolean",
          description: "Keep the statusline already configured: run it and append acx's fields to its line"
        }
      ],
      load: () => import("./commands/statusline.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Put back the statusline acx's replaced (backup first)",
      options: [userScope, projectDir],
      load: () => import("./commands/statusline.js").then((m) => m.uninstall)
    },
    {
      name: "refresh",
      description: "Recompute the cached totals the statusline shows (today's cost, the current 5-hour block)",
      options: [configDir],
      load: () => import("./commands/statusline.js").then((m) => m.refresh)
    }
  ]
}

const ui: CommandSpec = {
  name: "ui",
  description: "Serve the local web page: sessions, costs and memory, on 127.0.0.1 behind a token (prints its URL)",
  options: [
    // 7317 is @acx/ui's UiServer.DEFAULT_PORT
    { name: "port", type: "integer", description: "The port (default 7317, else the next free one; 0: any free port)" },
    {
      name: "host",
      type: "text",
      default: "127.0.0.1",
      description: "The address to listen on (default 127.0.0.1; another one is warned about)"
    },
    configDir,
    {
      name: "from",
      type: "text",
      description:
        "Show a session store instead of the config directory: sqlite:FILE or FILE.db, or postgres://URL[?schema=S] (read only; a missing SQLite file is an error)"
    },
    { name: "open", type: "boolean", description: "Open the page in the default browser" },
    followSymlinks
  ],
  load: () => import("./commands/ui.js").then((m) => m.run)
}

const demo: CommandSpec = {
  name: "demo",
  description:
    "Run the real Claude Code CLI offline against a local model double (a generated session where no binary is installed, or with --generated), import the session into SQLite, push it into an in-process Acontext, print the results",
  options: [
    {
      name: "dir",
      type: "text",
      description: "Keep the generated config directory and SQLite file here (default: a temp dir, removed)"
    },
    {
      name: "generated",
      type: "boolean",
      description: "Use the generated session even where the real Claude Code CLI is installed"
    },
    {
      name: "thinking",
      type: "boolean",
      description: "Store thinking blocks too (as text; Acontext's default rule leaves them out)"
    },
    json
  ],
  load: () => import("./commands/demo.js").then((m) => m.run)
}

/**
 * The root: `acx` and every command under it, in the order `acx --help` lists them.
 *
 * @since 0.6.0
 * @category table
 */
export const acx: CommandSpec = {
  name: "acx",
  description:
    "Read, import and push Claude Code sessions: list, show, stats, search inside them, import into SQLite/Postgres, push to Acontext, fork; chat on a warm, resumable Claude Code process; a memory for Claude Code across sessions; a local web page for all of it",
  subcommands: [
    sessions,
    show,
    stats,
    search,
    importCommand,
    sync,
    hubCommand,
    push,
    fork,
    chat,
    memory,
    hook,
    statusline,
    ui,
    demo
  ]
}
