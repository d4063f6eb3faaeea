/**
 * The context a SessionStart injects: a project's latest session summaries and observations,
 * newest first, each with the id that fetches its details (`O12`, `S3`), cut to a token budget.
 * Pure and effect-free (the hook renders it); `acx memory context` prints the same text.
 *
 * Tokens are estimated as one per four characters (rounded up), the usual ratio for English
 * prose and code; the budget is a ceiling on the estimate, entries are never cut in half.
 *
 * @since 0.1.0
 */

/**
 * An observation as the context shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ContextObservation {
  readonly _tag: "Observation"
  readonly id: number
  readonly type: string
  readonly title: string
  readonly subtitle: string | null
  readonly createdAt: number
  /** A teammate's entry (the team memory): who wrote it, on which machine; absent for one's own. */
  readonly author?: string | undefined
  readonly machine?: string | undefined
}

/**
 * A session summary as the context shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ContextSummary {
  readonly _tag: "Summary"
  readonly id: number
  readonly request: string
  readonly completed: string
  readonly learned: string
  readonly nextSteps: string
  readonly createdAt: number
  /** A teammate's entry (the team memory): who wrote it, on which machine; absent for one's own. */
  readonly author?: string | undefined
  readonly machine?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type ContextEntry = ContextObservation | ContextSummary

/**
 * The estimated tokens of a text.
 *
 * @since 0.1.0
 * @category budget
 */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

/**
 * The id an entry is shown and fetched by: `O<n>` for observations, `S<n>` for summaries.
 *
 * @since 0.1.0
 * @category ids
 */
export const entryId = (entry: ContextEntry): string => `${entry._tag === "Observation" ? "O" : "S"}${entry.id}`

const oneLine = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const stamp = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")

/**
 * How a teammate's entry is marked: ` (by ana on ana-laptop)`; one's own is not.
 *
 * @since 0.4.0
 * @category rendering
 */
export const byline = (entry: ContextEntry): string =>
  entry.author === undefined
    ? ""
    : ` (by ${oneLine(entry.author, 40)}${
      entry.machine === undefined || entry.machine === "" ? "" : ` on ${oneLine(entry.machine, 40)}`
    })`

/**
 * One entry's line(s).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderEntry = (entry: ContextEntry): string => {
  const by = byline(entry)
  if (entry._tag === "Observation") {
    const subtitle = entry.subtitle === null || entry.subtitle === "" ? "" : ` — ${oneLine(entry.subtitle, 160)}`
    return `- ${entryId(entry)} [${entry.type}] ${stamp(entry.createdAt)}${by} ${oneLine(entry.title, 160)}${subtitle}`
  }
  const parts = [
    ["request", entry.request],
    ["completed", entry.completed],
    ["learned", entry.learned],
    ["next", entry.nextSteps]
  ].filter(([, text]) => text!.trim() !== "").map(([label, text]) => `${label}: ${oneLine(text!, 240)}`)
  return `- ${entryId(entry)} [session summary] ${stamp(entry.createdAt)}${by} ${parts.join("; ")}`
}

/**
 * The header naming the project and how to get details.
 *
 * @since 0.1.0
 * @category rendering
 */
export const header = (project: string): string =>
  [
    `# Memory of earlier sessions in ${project} (acx)`,
    "Newest first. For the details of an entry, call the acx-memory MCP tool get_observations with its id",
    "(e.g. O12, S3), or search with its search tool."
  ].join("\n")

/**
 * The context for a project: the header and as many entries (newest first) as fit the budget;
 * `""` when there is nothing to say or not even one entry fits.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (project: string, entries: ReadonlyArray<ContextEntry>, budgetTokens: number): string => {
  const sorted = [...entries].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
  const top = header(project)
  let used = estimateTokens(top) + 1
  const lines: Array<string> = []
  for (const entry of sorted) {
    const line = renderEntry(entry)
    const cost = estimateTokens(line) + 1
    if (used + cost > budgetTokens) break
    used += cost
    lines.push(line)
  }
  return lines.length === 0 ? "" : `${top}\n\n${lines.join("\n")}`
}
