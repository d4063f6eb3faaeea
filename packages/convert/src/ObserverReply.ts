/**
 * What a memory observer's reply says: `<observation>` blocks (type, title, subtitle, facts,
 * narrative, concepts, files read, files modified), one `<summary>` (request, investigated,
 * learned, completed, next steps, files read, files edited, notes), `<skip_summary/>`, or
 * `<no_observations/>` (nothing in the batch worth keeping).
 *
 * A model's reply is not a document: {@link parse} is total and tolerant — code fences, prose
 * around the XML, any case in tag names, odd whitespace, missing fields, entities, CDATA, an
 * unclosed last block — and never throws. An observation with neither title nor narrative says
 * nothing and is dropped; a missing title is taken from the narrative's first sentence. List
 * fields take `<fact>`/`<concept>`/`<file>` items, or else one item per non-empty line (a leading
 * `-` or `*` removed). {@link render} writes the format the prompts ask for, and `parse(render(x))`
 * gives `x` back.
 *
 * @since 0.1.0
 */

/**
 * The kinds of observation the prompts ask for; anything else is `other`.
 *
 * @since 0.1.0
 * @category constants
 */
export const OBSERVATION_TYPES = ["decision", "bugfix", "feature", "refactor", "discovery", "change"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type ObservationType = typeof OBSERVATION_TYPES[number] | "other"

/**
 * @since 0.1.0
 * @category models
 */
export interface Observation {
  readonly type: ObservationType
  readonly title: string
  readonly subtitle: string | undefined
  readonly facts: ReadonlyArray<string>
  readonly narrative: string
  readonly concepts: ReadonlyArray<string>
  readonly filesRead: ReadonlyArray<string>
  readonly filesModified: ReadonlyArray<string>
}

/**
 * A session's summary: its eight fields (empty when the model left one out).
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly request: string
  readonly investigated: string
  readonly learned: string
  readonly completed: string
  readonly nextSteps: string
  readonly filesRead: ReadonlyArray<string>
  readonly filesEdited: ReadonlyArray<string>
  readonly notes: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ObserverReply {
  readonly observations: ReadonlyArray<Observation>
  readonly summary: Summary | undefined
  /** The model said there is nothing to summarise (`<skip_summary/>`). */
  readonly skipSummary: boolean
  /** The model said nothing in the batch is worth an observation (`<no_observations/>`). */
  readonly noObservations: boolean
}

const ENTITIES: { readonly [name: string]: string } = { lt: "<", gt: ">", amp: "&", quot: "\"", apos: "'" }

const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })

/** Element text: CDATA kept verbatim, entities decoded elsewhere, whitespace trimmed. */
const textOf = (raw: string): string =>
  raw.split(/(<!\[CDATA\[[\s\S]*?\]\]>)/).map((part) =>
    part.startsWith("<![CDATA[") ? part.slice(9, -3) : decodeEntities(part)
  ).join("").trim()

const escapeText = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** The contents of every `<name>…</name>` (an unclosed last one runs to the end). */
const blocks = (text: string, name: string): Array<string> => {
  const found: Array<string> = []
  const open = new RegExp(`<${name}(?:\\s[^>]*)?>`, "gi")
  const close = new RegExp(`</${name}\\s*>`, "i")
  let match: RegExpExecArray | null
  while ((match = open.exec(text)) !== null) {
    const rest = text.slice(match.index + match[0].length)
    const end = close.exec(rest)
    // the next opening tag ends an unclosed block too
    const nextOpen = rest.search(new RegExp(`<${name}(?:\\s[^>]*)?>`, "i"))
    const stop = end === null
      ? (nextOpen === -1 ? rest.length : nextOpen)
      : nextOpen !== -1 && nextOpen < end.index
      ? nextOpen
      : end.index
    found.push(rest.slice(0, stop))
    open.lastIndex = match.index + match[0].length + stop
  }
  return found
}

const field = (block: string, name: string): string | undefined => {
  const found = blocks(block, name)[0]
  return found === undefined ? undefined : textOf(found)
}

const list = (block: string, name: string, item: string): Array<string> => {
  const found = blocks(block, name)[0]
  if (found === undefined) return []
  const items = blocks(found, item).map(textOf).filter((text) => text !== "")
  if (items.length > 0) return items
  return textOf(found).split("\n").map((line) => line.trim().replace(/^[-*•]\s*/, "").trim()).filter((line) =>
    line !== ""
  )
}

const typeOf = (raw: string | undefined): ObservationType => {
  const type = (raw ?? "").trim().toLowerCase()
  return (OBSERVATION_TYPES as ReadonlyArray<string>).includes(type) ? type as ObservationType : "other"
}

const firstSentence = (text: string): string => {
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text
  const line = sentence.split("\n")[0]!.trim()
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

const observationOf = (block: string): Observation | undefined => {
  const narrative = field(block, "narrative") ?? ""
  const title = field(block, "title") ?? ""
  if (title === "" && narrative === "") return undefined
  const subtitle = field(block, "subtitle")
  return {
    type: typeOf(field(block, "type")),
    title: title !== "" ? title : firstSentence(narrative),
    subtitle: subtitle === undefined || subtitle === "" ? undefined : subtitle,
    facts: list(block, "facts", "fact"),
    narrative,
    concepts: list(block, "concepts", "concept"),
    filesRead: list(block, "files_read", "file"),
    filesModified: list(block, "files_modified", "file")
  }
}

const summaryOf = (block: string): Summary | undefined => {
  const summary: Summary = {
    request: field(block, "request") ?? "",
    investigated: field(block, "investigated") ?? "",
    learned: field(block, "learned") ?? "",
    completed: field(block, "completed") ?? "",
    nextSteps: field(block, "next_steps") ?? "",
    filesRead: list(block, "files_read", "file"),
    filesEdited: list(block, "files_edited", "file"),
    notes: field(block, "notes") ?? ""
  }
  const said =
    [summary.request, summary.investigated, summary.learned, summary.completed, summary.nextSteps, summary.notes]
      .some((text) => text !== "") || summary.filesRead.length + summary.filesEdited.length > 0
  return said ? summary : undefined
}

/**
 * Reads a reply; any string in, a reply out (empty when nothing in it parses).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (reply: unknown): ObserverReply => {
  const text = typeof reply === "string" ? reply : ""
  const observations = blocks(text, "observation").flatMap((block) => {
    const observation = observationOf(block)
    return observation === undefined ? [] : [observation]
  })
  const summaries = blocks(text, "summary").flatMap((block) => {
    const summary = summaryOf(block)
    return summary === undefined ? [] : [summary]
  })
  return {
    observations,
    summary: summaries.at(-1),
    skipSummary: /<skip_summary\s*\/?>/i.test(text),
    noObservations: /<no_observations\s*\/?>/i.test(text)
  }
}

/**
 * Whether a reply said anything at all (observations, a summary, or that it has nothing to add).
 *
 * @since 0.1.0
 * @category parsing
 */
export const isEmpty = (reply: ObserverReply): boolean =>
  reply.observations.length === 0 && reply.summary === undefined && !reply.skipSummary && !reply.noObservations

const element = (name: string, text: string) => `<${name}>${escapeText(text)}</${name}>`
const listElement = (name: string, item: string, items: ReadonlyArray<string>) =>
  `<${name}>${items.map((text) => element(item, text)).join("")}</${name}>`

/**
 * One observation in the reply format.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderObservation = (observation: Observation): string =>
  [
    "<observation>",
    element("type", observation.type),
    element("title", observation.title),
    ...(observation.subtitle === undefined ? [] : [element("subtitle", observation.subtitle)]),
    listElement("facts", "fact", observation.facts),
    element("narrative", observation.narrative),
    listElement("concepts", "concept", observation.concepts),
    listElement("files_read", "file", observation.filesRead),
    listElement("files_modified", "file", observation.filesModified),
    "</observation>"
  ].join("\n")

/**
 * A summary in the reply format.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderSummary = (summary: Summary): string =>
  [
    "<summary>",
    element("request", summary.request),
    element("investigated", summary.investigated),
    element("learned", summary.learned),
    element("completed", summary.completed),
    element("next_steps", summary.nextSteps),
    listElement("files_read", "file", summary.filesRead),
    listElement("files_edited", "file", summary.filesEdited),
    element("notes", summary.notes),
    "</summary>"
  ].join("\n")

/**
 * A whole reply in the format the prompts ask for.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (reply: ObserverReply): string =>
  [
    ...reply.observations.map(renderObservation),
    ...(reply.summary === undefined ? [] : [renderSummary(reply.summary)]),
    ...(reply.skipSummary ? ["<skip_summary/>"] : []),
    ...(reply.noObservations ? ["<no_observations/>"] : [])
  ].join("\n")
