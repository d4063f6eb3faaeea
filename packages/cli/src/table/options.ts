/**
 * The options several commands of the table share, and the value lists and defaults their
 * descriptions name (a test holds each to the module it mirrors).
 *
 * @since 0.6.0
 */
import type { OptionSpec } from "../CommandSpec.js"

/** An option several commands share (`configDir`). */
export const configDir: OptionSpec = {
  name: "config-dir",
  type: "text",
  description: "Claude Code config directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"
}

/** An option several commands share (`from`). */
export const from: OptionSpec = {
  name: "from",
  type: "text",
  description:
    "Read this session store instead of the config directory: sqlite:FILE, a FILE.db path, or postgres://user:pass@host/db[?schema=S] (what acx sync --to fills; it must exist)"
}

/** `--from` of the commands that only ever read a store: the sync store by default. */
export const storeFrom: OptionSpec = {
  name: "from",
  type: "text",
  description:
    "The store to read: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db, the one acx sync fills); nothing is created"
}

/** `-p/--project`: a project directory's name, or the path a session ran in (`projectKey.ts`). */
export const project: OptionSpec = {
  name: "project",
  alias: "p",
  type: "text",
  description: "Only this project: its directory name under <config-dir>/projects, or the absolute path it was run in"
}

/** `-p/--project DIR` of the memory and the installers: the directory Claude Code ran in. */
export const projectDir: OptionSpec = {
  name: "project",
  alias: "p",
  type: "text",
  description: "Only this project: the directory Claude Code ran in (absolute, or relative to here)"
}

/** An option several commands share (`json`). */
export const json: OptionSpec = { name: "json", type: "boolean", description: "Print JSON for scripts" }

/** An option several commands share (`followSymlinks`). */
export const followSymlinks: OptionSpec = {
  name: "follow-symlinks",
  type: "boolean",
  description:
    "Read transcripts and project directories that are symbolic links to places outside the config directory (default: skipped with a warning)"
}

/** An option several commands share (`machine`). */
export const machine: OptionSpec = {
  name: "machine",
  type: "text",
  description: "The machine its sessions are recorded under, for a store several machines share (default: the hostname)"
}

/** An option several commands share (`user`). */
export const user: OptionSpec = {
  name: "user",
  type: "text",
  description: "The user its sessions are recorded under (default: the OS user)"
}

/** An option several commands share (`noMask`). */
export const noMask: OptionSpec = {
  name: "no-mask",
  type: "boolean",
  description: "Store secrets as written instead of masking them on the way in: only for a store its owner alone reads"
}

/** An option several commands share (`scope`). */
export const scope: OptionSpec = {
  name: "scope",
  type: "choice",
  choices: ["user", "project"],
  description: "user: every project (the Claude config dir's settings.json); project: this one (.claude/settings.json)"
}

/** An option several commands share (`userScope`). */
export const userScope: OptionSpec = { ...scope, default: "user" }

/** An option several commands share (`syncTo`). */
export const syncTo: OptionSpec = {
  name: "to",
  type: "text",
  description:
    "The store: sqlite:FILE or FILE.db, or postgres://user:pass@host/db[?schema=S] (default: sqlite:$ACX_HOME/sessions.db)"
}

/** An option several commands share (`since`). */
export const since: OptionSpec = {
  name: "since",
  type: "text",
  description: "From this local day on (YYYY-MM-DD or YYYYMMDD, inclusive)"
}

/** An option several commands share (`sessionId`). */
export const sessionId = {
  name: "id",
  description: "The session id, or a unique prefix of it (at least 4 characters)"
} as const

/** An option several commands share (`statuslineFormat`). */
export const statuslineFormat: OptionSpec = {
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

/** An option several commands share (`hub`). */
export const hub: OptionSpec = {
  name: "hub",
  type: "text",
  description:
    `The hub as an admin: postgres://ADMIN@host/db[?schema=S] (default: $${HUB_ENV}; the password may come from PGPASSWORD or ~/.pgpass)`
}

/** An option several commands share (`hubUrl`). */
export const hubUrl = {
  name: "URL",
  key: "url",
  optional: true,
  description: `The hub, as --hub takes it (postgres://ADMIN@host/db[?schema=S]; default: --hub, else $${HUB_ENV})`
} as const

/** An option several commands share (`grantOptions`). */
export const grantOptions: ReadonlyArray<OptionSpec> = [
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

/**
 * Acontext's default API base URL, as `--base-url` describes it (`AcontextDefaults.DEFAULT_BASE_URL`;
 * a test holds the two together).
 *
 * @since 0.6.0
 * @category options
 */
export const ACONTEXT_BASE_URL = "https://api.acontext.app/api/v1"

/**
 * The tokens `acx memory context` fills at most by default (`MemoryConfig.defaults.contextTokens`;
 * a test holds the two together).
 *
 * @since 0.6.0
 * @category options
 */
export const CONTEXT_TOKENS = 1500
