/**
 * The commands that reach Acontext and Claude Code: `push`, `fork`, `chat`.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "../CommandSpec.js"
import {
  ACONTEXT_BASE_URL,
  configDir,
  followSymlinks,
  from,
  json,
  permissionModes,
  project,
  sessionId
} from "./options.js"

export const push: CommandSpec = {
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
  load: () => import("../commands/push.js").then((m) => m.run)
}

export const fork: CommandSpec = {
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
  load: () => import("../commands/fork.js").then((m) => m.run)
}

export const chat: CommandSpec = {
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
  load: () => import("../commands/chat.js").then((m) => m.run)
}
