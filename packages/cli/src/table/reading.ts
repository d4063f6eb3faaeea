/**
 * The reading commands of the table: `sessions`, `show`, `stats`, `search`.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "../CommandSpec.js"
import { configDir, followSymlinks, from, groupings, json, project, since, storeFrom } from "./options.js"

export const sessions: CommandSpec = {
  name: "sessions",
  description: "List the sessions of a Claude Code config directory, last active first",
  options: [
    configDir,
    from,
    project,
    {
      name: "limit",
      alias: "n",
      type: "integer",
      description: "At most this many sessions, the last active first (default: every one)"
    },
    json,
    followSymlinks
  ],
  load: () => import("../commands/sessions.js").then((m) => m.run)
}

export const show: CommandSpec = {
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
  load: () => import("../commands/show.js").then((m) => m.run)
}

export const stats: CommandSpec = {
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
  load: () => import("../commands/stats.js").then((m) => m.run)
}

export const search: CommandSpec = {
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
  load: () => import("../commands/search.js").then((m) => m.run)
}
