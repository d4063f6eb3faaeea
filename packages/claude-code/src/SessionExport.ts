/**
 * A session written out in each format of `acx show -f`, as chunks (a session can be larger than
 * the longest string V8 can build): `markdown` (the conversation for reading, across
 * compactions), `anthropic` (the messages `acx push` would store, as a JSON array) and `jsonl`
 * (the entries re-serialised). `acx show` prints these chunks and the web page serves them, so
 * both give the same bytes. With `mask` (what both do unless asked not to) the secrets are masked
 * first, with the memory redactor's patterns (`Redact.redactSecrets`, `<private>` kept).
 *
 * @since 0.1.0
 */
import { plural } from "@acx/convert/Plural"
import * as Redact from "@acx/convert/Redact"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as TranscriptMarkdown from "@acx/convert/TranscriptMarkdown"
import * as TranscriptWrite from "@acx/convert/TranscriptWrite"
import type * as Transcript from "@acx/schema/Transcript"
import * as ClaudePush from "./ClaudePush.js"

/**
 * The formats of `acx show -f`.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportFormat = "markdown" | "anthropic" | "jsonl"

/**
 * Every format, in the order `acx show` lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const formats: ReadonlyArray<ExportFormat> = ["markdown", "anthropic", "jsonl"]

/**
 * @since 0.1.0
 * @category models
 */
export interface ExportOptions {
  readonly format: ExportFormat
  /** The session id: the Markdown title when the session has none. */
  readonly sessionId: string
  /** Thinking blocks in `markdown` and `anthropic` (default true). */
  readonly includeThinking?: boolean | undefined
  /** The subagents' ids, named in the Markdown footer. */
  readonly subagentIds?: ReadonlyArray<string> | undefined
  /** The Markdown title (default: the session's title, else its id). */
  readonly title?: string | undefined
  /** The entries are a subagent's transcript (Markdown renders its sidechain entries). */
  readonly subagent?: boolean | undefined
  /** Each Markdown heading ends with the message's uuid, for `acx fork --at`. */
  readonly uuids?: boolean | undefined
  /** Secrets masked (default false: the entries as written). */
  readonly mask?: boolean | undefined
}

/**
 * `JSON.stringify(values, null, 2) + "\n"`, one element at a time.
 *
 * @since 0.1.0
 * @category rendering
 */
export function* jsonArrayLines(values: ReadonlyArray<unknown>): Generator<string> {
  if (values.length === 0) {
    yield "[]\n"
    return
  }
  yield "["
  for (let i = 0; i < values.length; i++) {
    // JSON text has no raw newlines inside strings, so re-indenting by line is exact
    const element = (JSON.stringify(values[i], null, 2) ?? "null").split("\n").join("\n  ")
    yield `${i === 0 ? "" : ","}\n  ${element}`
  }
  yield "\n]\n"
}

/**
 * The export of a session's entries, chunk by chunk; joined, they are what `acx show -f FORMAT`
 * prints.
 *
 * @since 0.1.0
 * @category rendering
 */
export function* exportChunks(
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: ExportOptions
): Generator<string> {
  if (options.mask !== true) return yield* formatChunks(entries, options)
  // the entries masked as values, so a JSON export stays valid JSON (and JSONL); Markdown is text,
  // so each chunk is masked again: what the rendering adds (a title, the subagents' ids) too
  const masked = entries.map((entry) => Redact.mapStrings(entry, Redact.redactSecrets) as Transcript.TranscriptEntry)
  for (const chunk of formatChunks(masked, options)) {
    yield options.format === "markdown" ? Redact.redactSecrets(chunk) : chunk
  }
}

function* formatChunks(
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: ExportOptions
): Generator<string> {
  const includeThinking = options.includeThinking ?? true
  switch (options.format) {
    case "markdown": {
      const agents = options.subagentIds ?? []
      const sections = TranscriptMarkdown.markdownSections(entries, {
        title: options.title ?? SessionMetadata.displayTitle(SessionMetadata.sessionMetadata(entries)) ??
          options.sessionId,
        includeThinking,
        subagent: options.subagent,
        uuids: options.uuids
      })
      const footer = agents.length === 0
        ? ""
        : `\n---\n\n*${plural(agents.length, "subagent transcript")}: ${
          agents.join(", ")
        }* (read one with \`acx show <id>\`)\n`
      for (let i = 0; i < sections.length; i++) yield i === 0 ? sections[i]! : `\n\n${sections[i]!}`
      yield `\n${footer}\n`
      return
    }
    case "anthropic": {
      // exactly what `acx push` would store, in the same order; a subagent's own transcript (all
      // sidechain entries) is its conversation, not a sidechain of one
      const own = options.subagent === true
        ? entries.map((entry) =>
          "isSidechain" in entry && entry.isSidechain === true ? { ...entry, isSidechain: false } : entry
        )
        : entries
      const blobs = ClaudePush.sessionBlobs(own, { includeThinking })
      yield* jsonArrayLines(blobs.map(({ blob, meta }) => (meta === null ? blob : { ...blob, meta })))
      return
    }
    case "jsonl":
      for (const entry of entries) yield `${TranscriptWrite.serializeEntry(entry)}\n`
  }
}

/**
 * The file name a download of the export gets: `<session id>.md`, `.anthropic.json` or `.jsonl`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const fileName = (sessionId: string, format: ExportFormat): string =>
  `${sessionId}${format === "markdown" ? ".md" : format === "anthropic" ? ".anthropic.json" : ".jsonl"}`
