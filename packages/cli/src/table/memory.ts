/**
 * Claude Code's memory and its own entries: `memory`, `hook`, `statusline`.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "../CommandSpec.js"
import {
  configDir,
  CONTEXT_TOKENS,
  from,
  json,
  projectDir,
  scope,
  statuslineFormat,
  storeFrom,
  userScope
} from "./options.js"

export const memory: CommandSpec = {
  name: "memory",
  description: "Claude Code's memory across sessions: hooks capture, a model distils, the next session starts with it",
  subcommands: [
    {
      name: "status",
      description: "Queue, worker, today's spend against the budget, failures, the settings in force",
      options: [json],
      load: () => import("../commands/memory.js").then((m) => m.status)
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
      load: () => import("../commands/memory.js").then((m) => m.search)
    },
    {
      name: "show",
      description: "One observation, summary or prompt in full",
      options: [json],
      arguments: [{ name: "id", description: "An observation, summary or prompt id: O12, S3 or P7" }],
      load: () => import("../commands/memory.js").then((m) => m.show)
    },
    {
      name: "timeline",
      description: "What happened in the project around an entry",
      options: [{ name: "window", type: "integer", default: 5, description: "Entries before and after" }, json],
      arguments: [{ name: "id", description: "The entry to center on: O12, S3 or P7" }],
      load: () => import("../commands/memory.js").then((m) => m.timeline)
    },
    {
      name: "context",
      description:
        `Print exactly what SessionStart injects for a project (default: here), within contextTokens (default ${CONTEXT_TOKENS})`,
      options: [projectDir],
      load: () => import("../commands/memory.js").then((m) => m.context)
    },
    {
      name: "retry",
      description: "Queue the failed events again",
      load: () => import("../commands/memory.js").then((m) => m.retry)
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
      load: () => import("../commands/memory.js").then((m) => m.forget)
    },
    {
      name: "sync",
      description:
        "Sync the team memory now (acx memory install --team): share your entries, push forgotten ones, pull teammates'",
      options: [json],
      load: () => import("../commands/memory.js").then((m) => m.sync)
    },
    {
      name: "backup",
      description: "Back the memory database up now (online; the worker also does it daily)",
      load: () => import("../commands/memory.js").then((m) => m.backup)
    },
    {
      name: "restore",
      description: "Replace the memory database with a backup (the current one is kept first)",
      arguments: [{ name: "file", description: "The backup file to restore" }],
      load: () => import("../commands/memory.js").then((m) => m.restore)
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
      load: () => import("../commands/memory.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Remove exactly what acx memory install added (backups first)",
      options: [scope, projectDir],
      load: () => import("../commands/memory.js").then((m) => m.uninstall)
    },
    {
      name: "mcp",
      description:
        "The memory as an MCP server on stdio (search, get_observations, timeline; search_sessions and get_session_turns over the session store) for Claude Code: acx memory install registers it",
      options: [storeFrom],
      load: () => import("../commands/memoryMcp.js").then((m) => m.run)
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
      load: () => import("../commands/memory.js").then((m) => m.backfill)
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
      load: () => import("../commands/memory.js").then((m) => m.demo)
    },
    {
      name: "worker",
      description: "Turn queued hook events into observations and summaries, then exit when idle (hooks start it)",
      load: () => import("../commands/memory.js").then((m) => m.worker)
    }
  ]
}

export const hook: CommandSpec = {
  name: "hook",
  description:
    "What acx memory install has Claude Code run on its events: record the event for the memory, inject the memory at SessionStart (never fails Claude Code)",
  arguments: [{ name: "Event", description: "The Claude Code hook event: SessionStart, PostToolUse, Stop, …" }],
  passthrough: true,
  hidden: true,
  bundle: "hook.cjs",
  load: () => import("../commands/hook.js").then((m) => m.run)
}

export const statusline: CommandSpec = {
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
  load: () => import("../commands/statusline.js").then((m) => m.run),
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
      load: () => import("../commands/statusline.js").then((m) => m.install)
    },
    {
      name: "uninstall",
      description: "Put back the statusline acx's replaced (backup first)",
      options: [userScope, projectDir],
      load: () => import("../commands/statusline.js").then((m) => m.uninstall)
    },
    {
      name: "refresh",
      description: "Recompute the cached totals the statusline shows (today's cost, the current 5-hour block)",
      options: [configDir],
      load: () => import("../commands/statusline.js").then((m) => m.refresh)
    }
  ]
}
