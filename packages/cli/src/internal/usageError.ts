/**
 * @effect/cli's parse errors ("'abc' is not a integer", "Expected to find option: '--to'") as one
 * `acx:` line that names the option and the command: `--batch-size: 'abc' is not an integer`.
 *
 * @effect/cli's messages do not say which option a bad value was given to; the command line does,
 * so the option is found there (the token before the value, or `--name=value`).
 */
import { printable } from "../CliError.js"
import { type CommandNode, commandPath, findOption, type OptionInfo } from "./commandTree.js"

const quote = (value: string): string => `'${value}'`

const article = (noun: string): string => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`)

const nameOf = (command: CommandNode, name: string): string => findOption(command, name)?.names[0] ?? name

/** The option token in `args` that `value` was given to (`--x value` or `--x=value`). */
const optionGiven = (args: ReadonlyArray<string>, value: string): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const inline = /^(--?[^=\s]+)=([\s\S]*)$/.exec(arg)
    if (inline !== null && inline[2] === value) return inline[1]
    if (arg.startsWith("-") && args[i + 1] === value) return arg
  }
  return undefined
}

/** The value `args` give to `option`, if any. */
const valueGiven = (args: ReadonlyArray<string>, option: OptionInfo): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const inline = /^(--?[^=\s]+)=([\s\S]*)$/.exec(arg)
    if (inline !== null && option.names.includes(inline[1]!)) return inline[2]
    if (option.names.includes(arg)) return args[i + 1]
  }
  return undefined
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

const closestOption = (command: CommandNode, name: string): string | undefined => {
  const candidates = command.options.map((option) => option.names[0]!)
    .map((candidate) => ({ candidate, d: distance(candidate, name) }))
    .filter(({ d }) => d <= 2)
    .sort((a, b) => a.d - b.d)
  return candidates[0]?.candidate
}

const oneLine = (text: string): string => printable(text.replace(/\s*\n\s*/g, " ").trim())

/**
 * The one line (without the `acx: ` prefix) for @effect/cli's parse error `message` on the
 * command line `args` (after the program name), for the commands of `root`.
 */
export const describeUsageError = (message: string, args: ReadonlyArray<string>, root: CommandNode): string => {
  const path = commandPath(root, args)
  const command = path[path.length - 1]!
  const where = path.map((node) => node.name).join(" ")
  const hint = ` (see ${where} --help)`
  const text = message.replace(/\s+/g, " ").trim()
  let match: RegExpExecArray | null

  if ((match = /^'([\s\S]*)' is not an? (.+)$/.exec(text)) !== null) {
    const [, value = "", type = ""] = match
    const option = optionGiven(args, value)
    const what = `${quote(value)} is not ${article(type)}`
    return oneLine(option === undefined ? what : `${nameOf(command, option)}: ${what}`)
  }
  if ((match = /^Expected one of the following cases: (.*)$/.exec(text)) !== null) {
    const list = match[1] ?? ""
    const option = command.options.find((candidate) => candidate.choices.join(", ") === list)
    const value = option === undefined ? undefined : valueGiven(args, option)
    const what = value === undefined ? `expected one of ${list}` : `${quote(value)} is not one of ${list}`
    return oneLine(option === undefined ? what : `${option.names[0]}: ${what}`)
  }
  if ((match = /^Expected to find option: '(.+)'$/.exec(text)) !== null) {
    return oneLine(`missing required option ${nameOf(command, match[1]!)}${hint}`)
  }
  if ((match = /^Expected a value following option: '(.+)'$/.exec(text)) !== null) {
    return oneLine(`${nameOf(command, match[1]!)}: missing value${hint}`)
  }
  if ((match = /^More than one reference to option '(.+)' detected$/.exec(text)) !== null) {
    return oneLine(`${nameOf(command, match[1]!)} given more than once`)
  }
  if ((match = /^The flag '(.+)' is not recognized\. Did you mean '(.+)'\?$/.exec(text)) !== null) {
    return oneLine(`unknown option ${match[1]} for ${where} (did you mean ${match[2]}?)`)
  }
  if ((match = /^Received unknown argument: '([\s\S]*)'$/.exec(text)) !== null) {
    const token = match[1] ?? ""
    if (!token.startsWith("-") || token === "-") return oneLine(`unexpected argument ${quote(token)}${hint}`)
    const name = token.split("=")[0]!
    const option = findOption(command, name)
    if (option !== undefined) {
      // @effect/cli leaves a known option unparsed when its value is missing or it was repeated
      const index = args.lastIndexOf(token)
      const next = args[index + 1]
      const valueMissing = option.type !== "boolean" && !token.includes("=") &&
        (next === undefined || next.startsWith("-"))
      return oneLine(
        valueMissing ? `${option.names[0]}: missing value${hint}` : `${option.names[0]} given more than once`
      )
    }
    const closest = closestOption(command, name)
    return oneLine(
      `unknown option ${token} for ${where}${closest === undefined ? hint : ` (did you mean ${closest}?)`}`
    )
  }
  if ((match = /^Missing argument (.+)$/.exec(text)) !== null) {
    return oneLine(`missing argument ${match[1]}${hint}`)
  }
  if (/^Invalid subcommand for /.test(text) || /^Missing command name/.test(text)) {
    const word = args[path.length - 1]
    const names = command.children.map((child) => child.name).join(", ")
    const what = word === undefined
      ? `${where} needs a command`
      : `unknown ${word.startsWith("-") ? "option" : "command"} ${quote(word)} for ${where}`
    return oneLine(names === "" ? `${what}${hint}` : `${what} (commands: ${names})`)
  }
  if ((match = /^Path '([\s\S]*)' must (not )?exist$/.exec(text)) !== null) {
    const [, file = "", not] = match
    const option = optionGiven(args, file)
    const what = `${quote(file)} ${not === undefined ? "does not exist" : "already exists"}`
    return oneLine(option === undefined ? what : `${nameOf(command, option)}: ${what}`)
  }
  if ((match = /^Expected path '([\s\S]*)' to be a (regular file|directory)$/.exec(text)) !== null) {
    const [, file = "", kind = ""] = match
    const option = optionGiven(args, file)
    const what = `${quote(file)} is not a ${kind === "directory" ? "directory" : "file"}`
    return oneLine(option === undefined ? what : `${nameOf(command, option)}: ${what}`)
  }
  return oneLine(text === "" ? `invalid command line${hint}` : text)
}
