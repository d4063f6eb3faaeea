/**
 * The command reference of docs/cli.md, generated from the command table: every command and
 * subcommand (the hidden `hook` too), its usage line, description, arguments and options with
 * their value, default and whether required. `pnpm --filter @acx/cli reference` writes it between
 * the markers; a test fails when the file and the table disagree.
 */
import type { CommandSpec } from "../CommandSpec.js"
import { argumentLabel, commandUsage } from "./help.js"

/** The line before the generated reference in docs/cli.md. */
export const BEGIN =
  "<!-- command reference: generated from packages/cli/src/CommandTable.ts by `pnpm --filter @acx/cli reference` -->"

/** The line after it. */
export const END = "<!-- end of the generated command reference -->"

const cell = (text: string): string => text.replace(/\|/g, "\\|")

const optionRows = (command: CommandSpec): Array<string> =>
  (command.options ?? []).map((option) => {
    const value = option.type === "boolean"
      ? ""
      : option.type === "choice"
      ? option.choices!.join(" \\| ")
      : option.type
    const names = option.alias === undefined ? `\`--${option.name}\`` : `\`-${option.alias}\`, \`--${option.name}\``
    const fallback = option.required === true ? "required" : option.default === undefined ? "" : `\`${option.default}\``
    return `| ${names} | ${value} | ${fallback} | ${cell(option.description)} |`
  })

const argumentRows = (command: CommandSpec): Array<string> =>
  (command.arguments ?? []).map((argument) =>
    `| \`${argumentLabel(argument)}\` | ${
      argument.optional === true || argument.variadic === "any" ? "optional" : "required"
    } | ${
      cell(
        argument.choices === undefined
          ? argument.description
          : `${argument.choices.join(", ")}. ${argument.description}`
      )
    } |`
  )

/** One command's entry: heading, usage, description, its arguments and options as tables. */
const entry = (words: ReadonlyArray<string>, command: CommandSpec): Array<string> => {
  const name = words.join(" ")
  const usage = command.passthrough === true
    ? `${name} ${(command.arguments ?? []).map(argumentLabel).join(" ")}`
    : command.load === undefined
    ? `${name} <command>`
    : `${name} ${commandUsage(command)}`.trimEnd()
  const lines = [`#### \`${name}\``, "", "```", usage, "```", "", command.description]
  const args = argumentRows(command)
  if (args.length > 0) lines.push("", "| Argument | | Description |", "|---|---|---|", ...args)
  const options = optionRows(command)
  if (options.length > 0) lines.push("", "| Option | Value | Default | Description |", "|---|---|---|---|", ...options)
  return [...lines, ""]
}

const entries = (command: CommandSpec, words: ReadonlyArray<string>): Array<string> => [
  ...(words.length === 1 ? [] : entry(words, command)),
  ...(command.subcommands ?? []).flatMap((child) => entries(child, [...words, child.name]))
]

/** The reference of every command under `root` (`acx`), between {@link BEGIN} and {@link END}. */
export const commandReference = (root: CommandSpec): string =>
  [BEGIN, "", ...entries(root, [root.name]), END].join("\n")

/** `text` (docs/cli.md) with its reference replaced by `reference`; `undefined` without the markers. */
export const withReference = (text: string, reference: string): string | undefined => {
  const begin = text.indexOf(BEGIN)
  const end = text.indexOf(END)
  if (begin < 0 || end < begin) return undefined
  return `${text.slice(0, begin)}${reference}${text.slice(end + END.length)}`
}
