/**
 * Adds and removes acx's entries in Claude Code's JSON files, without touching anything else:
 * command hooks in a `settings.json` (`hooks[event]` → matcher groups → hooks) and a stdio server
 * in the `mcpServers` object of `~/.claude.json` or a project's `.mcp.json`.
 *
 * Pure and total: any JSON value in (`undefined` meaning "no file yet"), a new value or a
 * one-line problem out; the input is never mutated. Every key, hook and matcher group that is not
 * acx's stays where it was, in order. A part of the file in a shape these functions do not
 * expect is a problem, never a reason to replace it: the user's data is worth more than the
 * install.
 *
 * @since 0.1.0
 */
import { isObject, own, withKey, withoutKey } from "./internal/jsonObject.js"

/**
 * A JSON object as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonObject {
  readonly [key: string]: unknown
}

/**
 * A command hook to install for one event; `timeout` in seconds.
 *
 * @since 0.1.0
 * @category models
 */
export interface HookEntry {
  readonly event: string
  readonly command: string
  readonly timeout?: number | undefined
}

/**
 * A stdio MCP server definition.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpServer {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: { readonly [name: string]: string } | undefined
}

/**
 * One thing added or removed.
 *
 * @since 0.1.0
 * @category models
 */
export type Change =
  | { readonly kind: "hook"; readonly event: string; readonly command: string }
  | { readonly kind: "mcp"; readonly name: string; readonly server: McpServer }

/**
 * The new value, what changed (nothing: `value` is the input itself) and what was deliberately
 * left alone (a hook already there, a server that is not the one acx installed).
 *
 * @since 0.1.0
 * @category models
 */
export interface Merged<A> {
  readonly ok: true
  readonly value: A
  readonly changes: ReadonlyArray<Change>
  readonly notes: ReadonlyArray<string>
}

/**
 * The file cannot be changed safely; `problem` says why in one line.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refused {
  readonly ok: false
  readonly problem: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type MergeResult<A> = Merged<A> | Refused

const refuse = (problem: string): Refused => ({ ok: false, problem })

const merged = <A>(value: A, changes: ReadonlyArray<Change>, notes: ReadonlyArray<string>): Merged<A> => ({
  ok: true,
  value,
  changes,
  notes
})

/**
 * Structural equality of JSON values (key order ignored, as JSON readers do).
 *
 * @since 0.1.0
 * @category utils
 */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  }
  return false
}

// A value read from the file, or why it cannot be used. A tagged wrapper and not `A | Refused`:
// the user's own object may well have an `ok` key.
type Read<A> = { readonly ok: true; readonly value: A } | Refused

const read = <A>(value: A): Read<A> => ({ ok: true, value })

const topLevel = (value: unknown, what: string): Read<JsonObject> => {
  if (value === undefined) return read({})
  return isObject(value) ? read(value) : refuse(`${what} is not a JSON object`)
}

// ---------------------------------------------------------------------------------------------
// hooks
// ---------------------------------------------------------------------------------------------

const hookCommand = (hook: unknown): string | undefined => {
  if (!isObject(hook)) return undefined
  const command = own(hook, "command")
  return typeof command === "string" ? command : undefined
}

const groupHooks = (group: unknown): ReadonlyArray<unknown> | undefined => {
  if (!isObject(group)) return undefined
  const hooks = own(group, "hooks")
  return Array.isArray(hooks) ? hooks : undefined
}

const eventGroups = (hooks: JsonObject, event: string): Read<ReadonlyArray<unknown>> => {
  const groups = own(hooks, event)
  if (groups === undefined) return read([])
  if (!Array.isArray(groups)) return refuse(`hooks.${event} is not a list of matcher groups`)
  const malformed = groups.findIndex((group) => groupHooks(group) === undefined)
  return malformed === -1
    ? read(groups)
    : refuse(`hooks.${event}[${malformed}] is not a matcher group with a "hooks" list`)
}

const hasCommand = (groups: ReadonlyArray<unknown>, command: string): boolean =>
  groups.some((group) => (groupHooks(group) ?? []).some((hook) => hookCommand(hook) === command))

const commandHook = (entry: HookEntry): JsonObject =>
  entry.timeout === undefined
    ? { type: "command", command: entry.command }
    : { type: "command", command: entry.command, timeout: entry.timeout }

/**
 * Appends, for each entry, a matcher group `{ hooks: [{ type: "command", command, timeout }] }`
 * under `hooks[event]`, unless a hook with that exact command is already there for that event
 * (then a note says so): adding twice is adding once. Refused when the file, `hooks`,
 * `hooks[event]` or one of its matcher groups is not in the shape Claude Code reads.
 *
 * @since 0.1.0
 * @category hooks
 */
export const addHooks = (settings: unknown, entries: ReadonlyArray<HookEntry>): MergeResult<JsonObject> => {
  const root = topLevel(settings, "the settings file")
  if (!root.ok) return root
  const file = root.value
  const existing = own(file, "hooks")
  if (existing !== undefined && !isObject(existing)) return refuse("\"hooks\" is not an object of events")
  let hooks: JsonObject = existing ?? {}
  const changes: Array<Change> = []
  const notes: Array<string> = []
  for (const entry of entries) {
    const groups = eventGroups(hooks, entry.event)
    if (!groups.ok) return groups
    if (hasCommand(groups.value, entry.command)) {
      notes.push(`${entry.event} hook already present: ${entry.command}`)
      continue
    }
    hooks = withKey(hooks, entry.event, [...groups.value, { hooks: [commandHook(entry)] }])
    changes.push({ kind: "hook", event: entry.event, command: entry.command })
  }
  return changes.length === 0
    ? merged(file, changes, notes)
    : merged(withKey(file, "hooks", hooks), changes, notes)
}

interface Pruned<A> {
  readonly value: A
  readonly removed: ReadonlyArray<string>
}

const isListed = (hook: unknown, commands: ReadonlySet<string>): boolean => {
  const command = hookCommand(hook)
  return command !== undefined && commands.has(command)
}

const pruneGroup = (group: unknown, commands: ReadonlySet<string>): Pruned<unknown | undefined> => {
  const hooks = groupHooks(group)
  if (hooks === undefined) return { value: group, removed: [] }
  const removed = hooks.flatMap((hook) => isListed(hook, commands) ? [hookCommand(hook)!] : [])
  if (removed.length === 0) return { value: group, removed }
  const kept = hooks.filter((hook) => !isListed(hook, commands))
  // A group emptied here held only acx's hooks: it goes; one that was empty already stays.
  return { value: kept.length === 0 ? undefined : withKey(group as JsonObject, "hooks", kept), removed }
}

const pruneEvent = (groups: unknown, commands: ReadonlySet<string>): Pruned<unknown | undefined> => {
  if (!Array.isArray(groups)) return { value: groups, removed: [] }
  const pruned = groups.map((group) => pruneGroup(group, commands))
  const removed = pruned.flatMap((result) => result.removed)
  if (removed.length === 0) return { value: groups, removed }
  const kept = pruned.flatMap((result) => result.value === undefined ? [] : [result.value])
  return { value: kept.length === 0 ? undefined : kept, removed }
}

/**
 * Removes exactly the hooks whose `command` is one of `commands`, then a matcher group, an event
 * key and `hooks` itself when this removal emptied them (ones that were already empty stay).
 * Parts below `hooks` in a shape it does not read are left as they are: they hold nothing it
 * could remove. Refused only when the file or `hooks` is not an object.
 *
 * @since 0.1.0
 * @category hooks
 */
export const removeHooks = (settings: unknown, commands: ReadonlyArray<string>): MergeResult<unknown> => {
  if (settings === undefined) return merged(settings, [], [])
  if (!isObject(settings)) return refuse("the settings file is not a JSON object")
  const hooks = own(settings, "hooks")
  if (hooks === undefined) return merged(settings, [], [])
  if (!isObject(hooks)) return refuse("\"hooks\" is not an object of events")
  const wanted = new Set(commands)
  const changes: Array<Change> = []
  let next: JsonObject = hooks
  for (const [event, groups] of Object.entries(hooks)) {
    const pruned = pruneEvent(groups, wanted)
    if (pruned.removed.length === 0) continue
    changes.push(...pruned.removed.map((command): Change => ({ kind: "hook", event, command })))
    next = pruned.value === undefined ? withoutKey(next, event) : withKey(next, event, pruned.value)
  }
  if (changes.length === 0) return merged(settings, [], [])
  const emptied = Object.keys(next).length === 0
  return merged(emptied ? withoutKey(settings, "hooks") : withKey(settings, "hooks", next), changes, [])
}

// ---------------------------------------------------------------------------------------------
// MCP servers
// ---------------------------------------------------------------------------------------------

/**
 * The definition written for a server: `type: "stdio"` said explicitly, as `claude mcp add`
 * writes it.
 *
 * @since 0.1.0
 * @category mcp
 */
export const serverDefinition = (server: McpServer): JsonObject =>
  server.env === undefined
    ? { type: "stdio", command: server.command, args: [...server.args] }
    : { type: "stdio", command: server.command, args: [...server.args], env: { ...server.env } }

// `type` absent means stdio and an absent `env` means none, to Claude Code: a server the user
// added by hand with `claude mcp add` (which writes `env: {}`) is the same server.
const normalise = (definition: JsonObject): JsonObject => {
  const type = own(definition, "type") ?? "stdio"
  const env = own(definition, "env") ?? {}
  return { ...withoutKey(withoutKey(definition, "type"), "env"), type, env }
}

const sameServer = (definition: unknown, server: McpServer): boolean =>
  isObject(definition) && jsonEqual(normalise(definition), normalise(serverDefinition(server)))

const serversOf = (file: JsonObject): Read<JsonObject> => {
  const servers = own(file, "mcpServers")
  if (servers === undefined) return read({})
  return isObject(servers) ? read(servers) : refuse("\"mcpServers\" is not an object of servers")
}

/**
 * Adds `mcpServers[name]` when absent; nothing changes when the same server is already there.
 * Refused when a different server has that name: it is the user's, and is not overwritten.
 *
 * @since 0.1.0
 * @category mcp
 */
export const addMcpServer = (file: unknown, name: string, server: McpServer): MergeResult<JsonObject> => {
  const root = topLevel(file, "the MCP file")
  if (!root.ok) return root
  const object = root.value
  const servers = serversOf(object)
  if (!servers.ok) return servers
  const existing = own(servers.value, name)
  if (existing !== undefined) {
    return sameServer(existing, server)
      ? merged(object, [], [`MCP server ${name} already present`])
      : refuse(`a different MCP server named "${name}" is already configured: ${JSON.stringify(existing)}`)
  }
  const next = withKey(servers.value, name, serverDefinition(server))
  return merged(withKey(object, "mcpServers", next), [{ kind: "mcp", name, server }], [])
}

/**
 * Removes `mcpServers[name]` only when it is still the server acx installed (then
 * `mcpServers` too, when this emptied it); a server changed since is the user's now and stays,
 * with a note. Refused when the file or `mcpServers` is not an object.
 *
 * @since 0.1.0
 * @category mcp
 */
export const removeMcpServer = (file: unknown, name: string, server: McpServer): MergeResult<unknown> => {
  if (file === undefined) return merged(file, [], [])
  if (!isObject(file)) return refuse("the MCP file is not a JSON object")
  const servers = serversOf(file)
  if (!servers.ok) return servers
  const existing = own(servers.value, name)
  if (existing === undefined) return merged(file, [], [])
  if (!sameServer(existing, server)) {
    return merged(file, [], [`MCP server ${name} was changed since it was installed: left as it is`])
  }
  const next = withoutKey(servers.value, name)
  const value = Object.keys(next).length === 0 ? withoutKey(file, "mcpServers") : withKey(file, "mcpServers", next)
  return merged(value, [{ kind: "mcp", name, server }], [])
}
