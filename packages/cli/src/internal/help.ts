/**
 * `acx … --help`: @effect/cli's help, tidied and rendered with colour only for a terminal.
 *
 * @effect/cli puts its value type's boilerplate ("A user-defined piece of text.", "An integer.")
 * above every option's description and "This setting is optional." below it, and never shows a
 * default that is not an `Option`. The page here keeps the description, adds "(default: X)" from
 * the command tree and "(required)" for options that must be given, and lists subcommands as
 * usage + description pairs instead of one padded line each.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as AnsiDoc from "@effect/printer-ansi/AnsiDoc"
import * as Doc from "@effect/printer/Doc"
import * as Arr from "effect/Array"
import * as Option from "effect/Option"
import { type CommandNode, findOption } from "./commandTree.js"

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

/** The text of a span, without its styling. */
export const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
    case "Paragraph":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "DescriptionList":
      return doc.definitions.flatMap(([span, block]) => [spanText(span), ...paragraphs(block)])
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
  }
}

/** The text of `doc` on one line: its paragraphs joined by spaces (for parse errors). */
export const paragraphsText = (doc: HelpDoc.HelpDoc): string => paragraphs(doc).join(" ")

// What @effect/cli writes for a value type (Primitive.getHelp): it says nothing the usage does not.
const BOILERPLATE = [
  /^A user-defined piece of text( that is confidential)?\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^A true or false value\.$/,
  /^A date without a time-zone/,
  /^One of the following: /,
  /^(An existing|A) (file or directory|file|directory)( that must not exist)?\.$/
]
const OPTIONAL = /^This setting is optional\./

/** Whether `text` is @effect/cli's own wording rather than a description acx wrote. */
export const isBoilerplate = (text: string): boolean =>
  BOILERPLATE.some((pattern) => pattern.test(text)) || OPTIONAL.test(text)

const namesIn = (label: string): Array<string> => label.match(/(?<![\w-])--?[A-Za-z][\w-]*/g) ?? []

const describeEntry = (command: CommandNode, label: Span.Span, block: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  const texts = paragraphs(block)
  const own = texts.filter((text) => !isBoilerplate(text) && text.trim() !== "")
  const names = namesIn(spanText(label))
  const option = names.map((name) => findOption(command, name)).find((found) => found !== undefined)
  const notes: Array<string> = []
  if (option !== undefined) {
    Option.map(option.defaultValue, (value) => notes.push(`(default: ${value})`))
    if (!texts.some((text) => OPTIONAL.test(text))) notes.push("(required)")
  }
  const line = [...own, ...notes].join(" ")
  return line === "" ? HelpDoc.empty : HelpDoc.p(line)
}

const isPadding = (span: Span.Span): boolean => span._tag === "Text" && /^ {2,}$/.test(span.value)

// A subcommand line is `usage`, padding spaces, `description` in one paragraph.
type Definition = [Span.Span, HelpDoc.HelpDoc]

const splitCommandLine = (doc: HelpDoc.HelpDoc): Definition | undefined => {
  if (doc._tag !== "Paragraph") return undefined
  const leaves: Array<Span.Span> = []
  const flatten = (span: Span.Span): void => {
    if (span._tag === "Sequence") {
      flatten(span.left)
      flatten(span.right)
    } else leaves.push(span)
  }
  flatten(doc.value)
  let padding = leaves.length - 1
  while (padding >= 0 && !isPadding(leaves[padding]!)) padding--
  if (padding < 0) return undefined
  const description = leaves.slice(padding + 1).map(spanText).join("")
  return [Span.spans(leaves.slice(0, padding)), description === "" ? HelpDoc.empty : HelpDoc.p(description)]
}

/**
 * `doc` (a command's help from @effect/cli) with @effect/cli's boilerplate removed from every
 * option and argument, defaults and "(required)" added from `command`, and the subcommand
 * list as a description list.
 */
export const tidyHelp = (doc: HelpDoc.HelpDoc, command: CommandNode): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Sequence":
      return HelpDoc.sequence(tidyHelp(doc.left, command), tidyHelp(doc.right, command))
    case "DescriptionList":
      return HelpDoc.descriptionList(
        Arr.map(doc.definitions, ([label, block]): Definition => [label, describeEntry(command, label, block)])
      )
    case "Enumeration": {
      const lines: Array<Definition> = []
      for (const element of doc.elements) {
        const line = splitCommandLine(element)
        if (line !== undefined) lines.push(line)
      }
      return Arr.isNonEmptyArray(lines) && lines.length === doc.elements.length
        ? HelpDoc.descriptionList(lines)
        : doc
    }
    default:
      return doc
  }
}

/** `doc` as terminal text: styled when `color`, else plain. */
export const renderHelp = (doc: HelpDoc.HelpDoc, color: boolean): string =>
  color ? HelpDoc.toAnsiText(doc) : AnsiDoc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" })

/**
 * The whole help page of a command: `acx VERSION`, its usage lines prefixed with the command
 * path (`$ acx memory search …`), then its tidied help.
 */
export const helpPage = (options: {
  readonly version: string
  readonly path: ReadonlyArray<string>
  readonly usage: ReadonlyArray<Span.Span>
  readonly help: HelpDoc.HelpDoc
  readonly command: CommandNode
}): HelpDoc.HelpDoc => {
  const parents = options.path.slice(0, -1).join(" ")
  const usage = options.usage.map((span) =>
    HelpDoc.p(Span.spans([Span.text(parents === "" ? "$ " : `$ ${parents} `), span]))
  )
  return HelpDoc.blocks([
    HelpDoc.p(`acx ${options.version}`),
    HelpDoc.h1("USAGE"),
    ...usage,
    tidyHelp(options.help, options.command)
  ])
}
