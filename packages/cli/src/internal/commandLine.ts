/**
 * A command line read against the command table: which command it names, and its options and
 * arguments as plain values (`string | undefined`, numbers, booleans, arrays), or a
 * {@link UsageFailure} with the one line that says what is wrong.
 *
 * Options are split by `node:util`'s `parseArgs` (`--name value`, `--name=value`, `-a value`,
 * `-avalue`, `--`), in its non-strict mode: the strict one refuses a value that starts with `-`
 * (`--project -tmp-app`, a project directory's name; `-n -3`), and stops at the first unknown option
 * with its own wording. Everything it does not check (unknown and repeated options, missing and
 * bad values, required options, positional arguments) is checked here from its tokens.
 */
import {
  argumentKey,
  type ArgumentSpec,
  type CommandSpec,
  optionKey,
  type OptionSpec,
  UsageFailure
} from "../CommandSpec.js"

/**
 * What a command line asks for: a command's help, the version, or a command to run with its
 * options (`raw`: the words after the command, for a command that takes them as they are).
 */
export type Request =
  | { readonly _tag: "Help"; readonly path: ReadonlyArray<CommandSpec> }
  | { readonly _tag: "Version" }
  | {
    readonly _tag: "Run"
    readonly path: ReadonlyArray<CommandSpec>
    readonly options: { readonly [key: string]: unknown }
    readonly raw: ReadonlyArray<string>
  }

/** Levenshtein's edit distance between `a` and `b` (what "did you mean" ranks by). */
export const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/** `acx memory search`, for messages. */
export const commandName = (path: ReadonlyArray<CommandSpec>): string => path.map((command) => command.name).join(" ")

/** The commands a person sees under `command` (not the hidden ones). */
export const visibleSubcommands = (command: CommandSpec): ReadonlyArray<CommandSpec> =>
  (command.subcommands ?? []).filter((child) => child.hidden !== true)

/** What asks for a command's help. */
export const HELP: ReadonlySet<string> = new Set(["--help", "-h"])
const VERSION = "--version"

const usage = (text: string): UsageFailure => new UsageFailure(text)

const seeHelp = (path: ReadonlyArray<CommandSpec>): string => ` (see ${commandName(path)} --help)`

const isOptionLike = (word: string): boolean => word.startsWith("-") && word !== "-" && !/^-\d/.test(word)

/** The commands the leading words of `args` walk down to, and the words after them. */
export const commandPath = (
  root: CommandSpec,
  args: ReadonlyArray<string>
): { readonly path: ReadonlyArray<CommandSpec>; readonly rest: ReadonlyArray<string> } => {
  const path: Array<CommandSpec> = [root]
  let index = 0
  for (; index < args.length; index++) {
    const child = path[path.length - 1]!.subcommands?.find((candidate) => candidate.name === args[index])
    if (child === undefined) break
    path.push(child)
  }
  return { path, rest: args.slice(index) }
}

const closestOption = (options: ReadonlyArray<OptionSpec>, word: string): string | undefined =>
  options.map((option) => `--${option.name}`)
    .map((candidate) => ({ candidate, d: distance(candidate, word) }))
    .filter(({ d }) => d <= 2)
    .sort((a, b) => a.d - b.d)[0]?.candidate

const unknownOption = (path: ReadonlyArray<CommandSpec>, word: string): UsageFailure => {
  const closest = closestOption(path[path.length - 1]!.options ?? [], word)
  return usage(
    `unknown option ${word} for ${commandName(path)}${
      closest === undefined ? seeHelp(path) : ` (did you mean ${closest}?)`
    }`
  )
}

/**
 * A command of subcommands named without one: its help, or what is wrong with the words after it
 * (an option it does not have, a command it does not have).
 */
const groupRequest = (path: ReadonlyArray<CommandSpec>, rest: ReadonlyArray<string>): Request => {
  const command = path[path.length - 1]!
  const names = visibleSubcommands(command).map((child) => child.name).join(", ")
  const root = path.length === 1
  for (const word of rest) {
    if (word === "--") break
    if (!isOptionLike(word) || HELP.has(word) || (word === VERSION && root)) continue
    const name = word.split("=")[0]!
    throw root ? usage(`unknown option '${name}' for acx (commands: ${names})`) : unknownOption(path, name)
  }
  if (root && rest[0] === VERSION) return { _tag: "Version" }
  const word = rest.find((candidate) => !isOptionLike(candidate))
  if (word !== undefined) throw usage(`unknown command '${word}' for ${commandName(path)} (commands: ${names})`)
  return { _tag: "Help", path }
}

/** `value` as `option` takes it, or the failure that says why not. */
const valueOf = (option: OptionSpec, value: string, cwd: string): unknown => {
  const name = `--${option.name}`
  switch (option.type) {
    case "integer":
      if (!/^-?\d+$/.test(value)) throw usage(`${name}: '${value}' is not an integer`)
      return Number(value)
    case "float":
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) throw usage(`${name}: '${value}' is not a float`)
      return Number(value)
    case "choice":
      if (!option.choices!.includes(value)) {
        throw usage(`${name}: '${value}' is not one of ${option.choices!.join(", ")}`)
      }
      return value
    case "directory": {
      const fs = process.getBuiltinModule("node:fs")
      const path = process.getBuiltinModule("node:path")
      let isDirectory: boolean
      try {
        isDirectory = fs.statSync(path.resolve(cwd, value)).isDirectory()
      } catch {
        throw usage(`${name}: '${value}' does not exist`)
      }
      if (!isDirectory) throw usage(`${name}: '${value}' is not a directory`)
      return value
    }
    case "boolean":
      if (value === "true" || value === "false") return value === "true"
      throw usage(`${name}: '${value}' is not true or false`)
    case "text":
      return value
  }
}

interface Split {
  readonly given: Map<OptionSpec, string | undefined>
  readonly positionals: ReadonlyArray<string>
  readonly help: boolean
  readonly version: boolean
}

/** The options and positional words of `rest` for the command at the end of `path`. */
const split = (path: ReadonlyArray<CommandSpec>, rest: ReadonlyArray<string>): Split => {
  const options = path[path.length - 1]!.options ?? []
  const config: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean" }
  }
  for (const option of options) {
    config[option.name] = {
      type: option.type === "boolean" ? "boolean" : "string",
      ...(option.alias === undefined ? {} : { short: option.alias })
    }
  }
  const { parseArgs } = process.getBuiltinModule("node:util")
  const { tokens } = parseArgs({
    args: [...rest],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true
  })
  const given = new Map<OptionSpec, string | undefined>()
  const positionals: Array<string> = []
  let help = false
  let version = false
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value)
    if (token.kind !== "option") continue
    if (token.name === "help" || token.name === "version") {
      help ||= token.name === "help"
      version ||= token.name === "version"
      continue
    }
    const option = options.find((candidate) => candidate.name === token.name)
    if (option === undefined) throw unknownOption(path, rest[token.index]!.split("=")[0]!)
    if (given.has(option)) throw usage(`--${option.name} given more than once`)
    given.set(option, token.value)
  }
  return { given, positionals, help, version }
}

/** The options of `given` as the command receives them, defaults filled in. */
const optionValues = (path: ReadonlyArray<CommandSpec>, given: Split["given"], cwd: string) => {
  const values: Record<string, unknown> = {}
  for (const option of path[path.length - 1]!.options ?? []) {
    const key = optionKey(option)
    if (!given.has(option)) {
      if (option.required === true) throw usage(`missing required option --${option.name}${seeHelp(path)}`)
      values[key] = option.type === "boolean" ? false : option.default
      continue
    }
    const value = given.get(option)
    if (value === undefined) {
      if (option.type === "boolean") values[key] = true
      else throw usage(`--${option.name}: missing value${seeHelp(path)}`)
    } else values[key] = valueOf(option, value, cwd)
  }
  return values
}

const argumentLabel = (argument: ArgumentSpec): string => `<${argument.name}>`

/** The positional words as the command's arguments. */
const argumentValues = (path: ReadonlyArray<CommandSpec>, words: ReadonlyArray<string>) => {
  const values: Record<string, unknown> = {}
  const remaining = [...words]
  for (const argument of path[path.length - 1]!.arguments ?? []) {
    const key = argumentKey(argument)
    if (argument.variadic !== undefined) {
      if (argument.variadic === "atLeastOne" && remaining.length === 0) {
        throw usage(`missing argument ${argumentLabel(argument)}${seeHelp(path)}`)
      }
      values[key] = remaining.splice(0)
      continue
    }
    const word = remaining.shift()
    if (word === undefined && argument.optional !== true) {
      throw usage(`missing argument ${argumentLabel(argument)}${seeHelp(path)}`)
    }
    if (word !== undefined && argument.choices !== undefined && !argument.choices.includes(word)) {
      throw usage(`${argumentLabel(argument)}: '${word}' is not one of ${argument.choices.join(", ")}`)
    }
    values[key] = word
  }
  if (remaining.length > 0) throw usage(`unexpected argument '${remaining[0]}'${seeHelp(path)}`)
  return values
}

/**
 * What `args` (the command line after the program's name) asks of the table `root`; a bad command
 * line throws a {@link UsageFailure}. `cwd` resolves a `directory` option's value.
 */
export const parseCommandLine = (root: CommandSpec, args: ReadonlyArray<string>, cwd: string): Request => {
  const { path, rest } = commandPath(root, args)
  const command = path[path.length - 1]!
  if (command.passthrough === true) return { _tag: "Run", path, options: {}, raw: rest }
  if (command.load === undefined) return groupRequest(path, rest)
  const { given, help, positionals, version } = split(path, rest)
  if (help) return { _tag: "Help", path }
  if (version) return { _tag: "Version" }
  const first = positionals[0]
  if (first !== undefined && first === rest[0] && (command.subcommands ?? []).length > 0 && !command.arguments) {
    const names = visibleSubcommands(command).map((child) => child.name).join(", ")
    throw usage(`unknown command '${first}' for ${commandName(path)} (commands: ${names})`)
  }
  const options = { ...optionValues(path, given, cwd), ...argumentValues(path, positionals) }
  return { _tag: "Run", path, options, raw: rest }
}
