/**
 * The code blocks of the README and docs/*.md, as the docs-snippet test runs them: each ```ts,
 * ```js, ```bash and ```sh block with its file, line and language, and how it is meant to be
 * used, said in an HTML comment on the line just above its fence:
 * - (no comment): a program — it runs as written;
 * - `<!-- snippet: parse-only — why -->`: complete code that cannot run here (the reason says
 *   why); the Node floor must still parse it;
 * - `<!-- snippet: fragment — why -->`: not a program (a signature list, a call in context, a
 *   command reference); neither run nor parsed.
 * Shell blocks are commands for the reader's own terminal (their sessions, an interactive
 * `claude`, `acx ui` until Ctrl-C): the test parses them (`bash -n`); every `npm install` line
 * of the docs runs as written in `pnpm pack-check` (scripts/pack-check/docInstalls.mjs).
 * Pure: text in, blocks out.
 */

/** How a block is meant to be used. */
export type SnippetUse = "run" | "parse-only" | "fragment"

/** One code block of a Markdown file. */
export interface Snippet {
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly lang: "ts" | "js" | "bash" | "sh"
  readonly code: string
  readonly use: SnippetUse
  /** The marker's reason (empty for a program). */
  readonly why: string
}

const FENCE = /^```(ts|js|bash|sh)\s*$/
/** A closing fence carries no info string (CommonMark): "```ts" inside a block does not close it. */
const CLOSE = /^```\s*$/
const MARKER = /^<!--\s*snippet:\s*(parse-only|fragment)\s*(?:[—–-]\s*)?(.*?)\s*-->\s*$/

/** Every ts/js/bash/sh block of `text` (other fences, e.g. json or mermaid, are passed over). */
export const extractSnippets = (file: string, text: string): ReadonlyArray<Snippet> => {
  const lines = text.split("\n")
  const snippets: Array<Snippet> = []
  let index = 0
  while (index < lines.length) {
    const fence = FENCE.exec(lines[index]!)
    if (fence === null) {
      // any other fenced block is skipped whole, so a ``` inside it is not taken for an opening
      if (lines[index]!.startsWith("```")) {
        index++
        while (index < lines.length && !CLOSE.test(lines[index]!)) index++
      }
      index++
      continue
    }
    const start = index
    const body: Array<string> = []
    index++
    while (index < lines.length && !CLOSE.test(lines[index]!)) body.push(lines[index++]!)
    index++
    const marker = start > 0 ? MARKER.exec(lines[start - 1]!) : null
    snippets.push({
      file,
      line: start + 1,
      lang: fence[1] as Snippet["lang"],
      code: body.join("\n") + "\n",
      use: marker === null ? "run" : marker[1] as SnippetUse,
      why: marker?.[2] ?? ""
    })
  }
  return snippets
}
