/**
 * `acx … --help`, from the command table: `acx VERSION`, the usage line, the description, the
 * arguments and options (each with its default, or "(required)"), and the commands under it, each
 * with its usage and description. Plain text unless colour is wanted ({@link useColor}).
 */
import { type ArgumentSpec, type CommandSpec, type OptionSpec } from "../CommandSpec.js"
import { commandName, visibleSubcommands } from "./commandLine.js"

/**
 * Whether output to a stream is coloured: `FORCE_COLOR` (anything but `0`/`false`/empty) forces
 * colour, `FORCE_COLOR=0` and a non-empty `NO_COLOR` (no-color.org) turn it off, `TERM=dumb`
 * too; otherwise colour exactly when the stream is a terminal.
 */
export const useColor = (env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean => {
  const force = env["FORCE_COLOR"]
  if (force !== undefined) return !(force === "0" || force === "false" || force === "")
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false
  if (env["TERM"] === "dumb") return false
  return isTTY
}

/** What an option's value is written as in a usage: `text`, `integer`, `a | b | c`; a flag: nothing. */
const valueLabel = (option: OptionSpec): string =>
  option.type === "boolean" ? "" : option.type === "choice" ? option.choices!.join(" | ") : option.type

/** An option as the usage and the OPTIONS section write it: `(-f, --format a | b)`, `--json`. */
export const optionLabel = (option: OptionSpec): string => {
  const value = valueLabel(option)
  const named = `--${option.name}${value === "" ? "" : ` ${value}`}`
  return option.alias === undefined ? named : `(-${option.alias}, ${named})`
}

/** An argument as the ARGUMENTS section writes it: `<id>`, `<query>...`. */
export const argumentLabel = (argument: ArgumentSpec): string =>
  `<${argument.name}>${argument.variadic === undefined ? "" : "..."}`

const argumentUsage = (argument: ArgumentSpec): string => {
  const label = argumentLabel(argument)
  const choices = argument.choices === undefined ? "" : ` ${argument.choices.join(" | ")}`
  return argument.optional === true ? `[${label}]${choices}` : `${label}${choices}`
}

/** A command's usage after its name: its options (optional ones in brackets), then its arguments. */
export const commandUsage = (command: CommandSpec): string =>
  [
    ...(command.options ?? []).map((option) =>
      option.required === true ? optionLabel(option) : `[${optionLabel(option)}]`
    ),
    ...(command.arguments ?? []).map(argumentUsage)
  ].join(" ")

/** An option's description with its default, or "(required)". */
export const optionText = (option: OptionSpec): string =>
  option.required === true
    ? `${option.description} (required)`
    : option.default === undefined
    ? option.description
    : `${option.description} (default: ${option.default})`

/** The commands listed under `command`: every command below it, by its path from it. */
const descendants = (
  command: CommandSpec,
  above: ReadonlyArray<string> = []
): Array<{ readonly words: ReadonlyArray<string>; readonly command: CommandSpec }> =>
  visibleSubcommands(command).flatMap((child) => [
    { words: [...above, child.name], command: child },
    ...descendants(child, [...above, child.name])
  ])

const withUsage = (words: string, command: CommandSpec): string => {
  const usage = command.load === undefined ? "" : commandUsage(command)
  return usage === "" ? words : `${words} ${usage}`
}

interface Section {
  readonly title: string
  readonly entries: ReadonlyArray<readonly [label: string, text: string]>
}

/** The sections of `command`'s help page, in order. */
const sections = (path: ReadonlyArray<CommandSpec>, command: CommandSpec): ReadonlyArray<Section> => [
  { title: "USAGE", entries: [[`$ ${withUsage(commandName(path), command)}`, ""]] },
  { title: "DESCRIPTION", entries: [[command.description, ""]] },
  {
    title: "ARGUMENTS",
    entries: (command.arguments ?? []).map((argument) => [argumentLabel(argument), argument.description])
  },
  { title: "OPTIONS", entries: (command.options ?? []).map((option) => [optionLabel(option), optionText(option)]) },
  {
    title: "COMMANDS",
    entries: descendants(command).map(({ command: child, words }) => [
      withUsage(words.join(" "), child),
      child.description
    ])
  }
]

const bold = (text: string, color: boolean): string => (color ? `\u001b[1m${text}\u001b[22m` : text)

/**
 * The help page of the command at the end of `path` (the root first), ending with a newline;
 * headings and labels in bold when `color`.
 */
export const helpPage = (path: ReadonlyArray<CommandSpec>, version: string, color: boolean): string => {
  const blocks = [`acx ${version}`]
  for (const section of sections(path, path[path.length - 1]!)) {
    if (section.entries.length === 0) continue
    blocks.push(bold(section.title, color))
    for (const [label, text] of section.entries) {
      blocks.push(section.title === "USAGE" || section.title === "DESCRIPTION" ? label : bold(label, color))
      if (text !== "") blocks.push(`  ${text}`)
    }
  }
  return `${blocks.join("\n\n")}\n`
}
