/**
 * The `acx` command tree as plain data: every command's name, options (their names, value type,
 * choices and default) and subcommands, read from @effect/cli's command descriptor.
 *
 * @effect/cli has no public accessor for an option's default or for a nested command's children
 * (`CommandDescriptor.getSubcommands` stops one level down), so this reads the descriptor's
 * instruction objects. Every field is checked before use: a shape this does not know yields
 * fewer options or children, never a throw (cli.help.test.ts notices the missing defaults).
 */
import type * as CommandDescriptor from "@effect/cli/CommandDescriptor"
import * as Option from "effect/Option"

/** One option of a command, as the help and the usage errors need it. */
export interface OptionInfo {
  /** Every name it answers to, the full name first: `["--format", "-f"]`. */
  readonly names: ReadonlyArray<string>
  /** The value it takes: `text`, `integer`, `choice`, `boolean`, `directory`, … */
  readonly type: string
  /** The accepted values of a `choice` option, else empty. */
  readonly choices: ReadonlyArray<string>
  /** The default as shown in the help; none for optional options and for flags (false). */
  readonly defaultValue: Option.Option<string>
}

/** One command: its name, options and subcommands. */
export interface CommandNode {
  readonly name: string
  readonly options: ReadonlyArray<OptionInfo>
  readonly children: ReadonlyArray<CommandNode>
}

type Fields = { readonly [key: string]: unknown }

const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null

const tagOf = (value: unknown): string | undefined =>
  isFields(value) && typeof value["_tag"] === "string" ? value["_tag"] : undefined

const stringField = (value: Fields, key: string): string | undefined =>
  typeof value[key] === "string" ? value[key] : undefined

const showDefault = (fallback: unknown, type: string): Option.Option<string> => {
  const value = Option.isOption(fallback) ? Option.getOrUndefined(fallback) : fallback
  if (type === "boolean" && value === false) return Option.none()
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint" ||
      typeof value === "boolean"
    ? Option.some(String(value))
    : Option.none()
}

const singleOption = (single: Fields, fallback: Option.Option<unknown>): Array<OptionInfo> => {
  const fullName = stringField(single, "fullName")
  if (fullName === undefined) return []
  const aliases = Array.isArray(single["aliases"])
    ? single["aliases"].filter((alias): alias is string => typeof alias === "string")
      .map((alias) => (alias.length === 1 ? `-${alias}` : `--${alias}`))
    : []
  const primitive = single["primitiveType"]
  const type = (tagOf(primitive) ?? "text").toLowerCase()
  const shownType = type === "bool" ? "boolean" : type === "path" && isFields(primitive)
    ? (stringField(primitive, "pathType") ?? "path")
    : type
  const choices = type === "choice" && isFields(primitive) && Array.isArray(primitive["alternatives"])
    ? primitive["alternatives"].flatMap((alternative) =>
      Array.isArray(alternative) && typeof alternative[0] === "string" ? [alternative[0]] : []
    )
    : []
  return [{
    names: [fullName, ...aliases],
    type: shownType,
    choices,
    defaultValue: Option.flatMap(fallback, (value) => showDefault(value, shownType))
  }]
}

const optionsOf = (options: unknown, fallback: Option.Option<unknown>): Array<OptionInfo> => {
  if (!isFields(options)) return []
  switch (tagOf(options)) {
    case "Single":
      return singleOption(options, fallback)
    case "WithDefault":
      return optionsOf(options["options"], Option.some(options["fallback"]))
    case "Map":
    case "WithFallback":
      return optionsOf(options["options"], fallback)
    case "Both":
    case "OrElse":
      return [...optionsOf(options["left"], fallback), ...optionsOf(options["right"], fallback)]
    case "Variadic":
    case "KeyValueMap":
      return optionsOf(options["argumentOption"], fallback)
    default:
      return []
  }
}

const nodeOf = (descriptor: unknown): CommandNode | undefined => {
  if (!isFields(descriptor)) return undefined
  switch (tagOf(descriptor)) {
    case "Standard":
    case "GetUserInput": {
      const name = stringField(descriptor, "name")
      return name === undefined
        ? undefined
        : { name, options: optionsOf(descriptor["options"], Option.none()), children: [] }
    }
    case "Map":
      return nodeOf(descriptor["command"])
    case "Subcommands": {
      const parent = nodeOf(descriptor["parent"])
      if (parent === undefined) return undefined
      const children = Array.isArray(descriptor["children"])
        ? descriptor["children"].flatMap((child) => nodeOf(child) ?? [])
        : []
      return { ...parent, children: [...parent.children, ...children] }
    }
    default:
      return undefined
  }
}

/**
 * The tree of `descriptor` (a command named `""` with nothing in it if its shape is unknown).
 */
export const commandTree = (descriptor: CommandDescriptor.Command<unknown>): CommandNode =>
  nodeOf(descriptor) ?? { name: "", options: [], children: [] }

/**
 * The commands `args` (the command line after the program name) walk down to from `root`:
 * `["memory", "search", "--limit", "3", "q"]` gives `[acx, memory, search]`. A word names a
 * subcommand only before the first option, as @effect/cli parses it.
 */
export const commandPath = (root: CommandNode, args: ReadonlyArray<string>): ReadonlyArray<CommandNode> => {
  const path: Array<CommandNode> = [root]
  for (const arg of args) {
    const current = path[path.length - 1]!
    const child = current.children.find((candidate) => candidate.name === arg)
    if (child === undefined) break
    path.push(child)
  }
  return path
}

/** The option of `command` that answers to `name` (`--format`, `-f`, or `--format=x`'s name). */
export const findOption = (command: CommandNode, name: string): OptionInfo | undefined =>
  command.options.find((option) => option.names.includes(name))

// @effect/cli's own options, answered by every command (`--log-level` takes a value)
const BUILT_IN = new Map<string, boolean>([
  ["--help", false],
  ["-h", false],
  ["--version", false],
  ["--wizard", false],
  ["--completions", true],
  ["--log-level", true]
])

/**
 * The first token of `args` (the command line after the program name) that looks like an option
 * but is none of its command's (nor of a command above it, nor built in), before a `--`:
 * @effect/cli takes such a token, and every option after it, as the words of a command's
 * variadic argument (`acx search hello --config-dir X` searched for `hello --config-dir X`).
 * A value given to an option (`--project -tmp-app`) and a negative number are not options;
 * after `--`, every token is an argument. Without a command, none (the parser lists the commands).
 */
export const unknownOption = (root: CommandNode, args: ReadonlyArray<string>): string | undefined => {
  const path = commandPath(root, args)
  // no command named: @effect/cli's own error lists the commands
  if (path.length === 1) return undefined
  for (let i = path.length - 1; i < args.length; i++) {
    const token = args[i]!
    if (token === "--") return undefined
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) continue
    const name = token.split("=")[0]!
    const builtIn = BUILT_IN.get(name)
    const option = path.map((node) => findOption(node, name)).find((found) => found !== undefined)
    if (builtIn === undefined && option === undefined) return token
    const takesValue = builtIn ?? option!.type !== "boolean"
    if (takesValue && !token.includes("=")) i++
  }
  return undefined
}
