/**
 * The memory page's JSON and the pure shaping behind it: rows of the memory database to the
 * shapes the page reads (types imported by the browser code), the turn of a session an
 * observation came from (its batch's events: a tool call's `tool_use_id`, or the user entry of
 * a prompt found by its text and time), the observer's spend per day against the budget, and
 * the strict decoding of the page's requests (query parameters, curation bodies).
 *
 * Total: any row or request in, a value (or `undefined`, or a decoding error) out.
 *
 * @since 0.1.0
 */
import * as Redact from "@acx/convert/Redact"
import * as MemoryRows from "@acx/memory/MemoryRows"

// -------------------------------------------------------------------------------------------------
// responses
// -------------------------------------------------------------------------------------------------

/**
 * A project the memory knows, with what it keeps of it (the memory's own row).
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryProject = MemoryRows.ProjectRow

/**
 * `GET /api/memory`: whether the memory exists, and when it does its projects, state and budget.
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryOverview =
  | {
    readonly exists: false
    readonly database: string
    /** The command that turns the memory on. */
    readonly enable: string
  }
  | {
    readonly exists: true
    readonly database: string
    readonly projects: ReadonlyArray<MemoryProject>
    readonly worker: {
      readonly running: boolean
      readonly pid: number | null
      readonly heartbeatAt: number | null
      readonly localReason: string | null
      /**
       * What observes, as `acx memory status` says it: the model (or local recording) the running
       * worker uses, and what `config.json` now says when that differs.
       */
      readonly observer: string
    }
    readonly queue: { readonly pending: number; readonly done: number; readonly failed: number }
    readonly counts: { readonly observations: number; readonly summaries: number; readonly prompts: number }
    readonly forgotten: { readonly observations: number; readonly summaries: number }
    readonly settings: MemorySettings
  }

/**
 * The settings the page shows (from `$ACX_HOME/config.json`, defaults filled in).
 *
 * @since 0.1.0
 * @category models
 */
export interface MemorySettings {
  readonly mode: "model" | "local"
  readonly model: string
  readonly contextTokens: number
  readonly dailyBudgetUsd: number | null
  readonly dailyBudgetTokens: number | null
}

/**
 * Where an observation came from: a turn of a session, as the session page addresses it
 * (`#/session/<sessionId>?turn=<turn>`; `turn` is a `tool_use_id` or a user entry's uuid, `null`
 * when the session is listed but the turn was not found in it).
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnLink {
  readonly sessionId: string
  readonly turn: string | null
  readonly kind: "tool" | "prompt"
  /** What the turn was: the tool's name or the prompt's first line. */
  readonly label: string
}

/**
 * An observation as the page shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ObservationView extends Omit<MemoryRows.ObservationRow, "id" | "eventIds" | "source"> {
  /** `O12`: the id the context, the MCP tools and curation use. */
  readonly id: string
  readonly rowId: number
  readonly source: string
  /** The turn it came from; `null` when its session is not in the config directory shown. */
  readonly from: TurnLink | null
  /** With a search: the best matching part, matches between `**`. */
  readonly snippet: string | null
}

/**
 * `GET /api/memory/observations`: newest first (or best first with `q`), and the cursor of the
 * next page (`before=`; `null`: no more).
 *
 * @since 0.1.0
 * @category models
 */
export interface ObservationsResponse {
  readonly observations: ReadonlyArray<ObservationView>
  readonly next: number | null
}

/**
 * A session summary as the page shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryView extends Omit<MemoryRows.SummaryRow, "id" | "eventIds" | "source"> {
  /** `S3`. */
  readonly id: string
}

/**
 * `GET /api/memory/session/:id`: what the memory kept of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionMemoryResponse {
  readonly sessionId: string
  readonly project: string | null
  readonly status: string | null
  readonly summaries: ReadonlyArray<SummaryView>
  readonly observations: ReadonlyArray<ObservationView>
}

/**
 * One UTC day of the observer's spend.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpendDay extends MemoryRows.SpendRow {
  /** All four kinds of tokens: what `dailyBudgetTokens` counts. */
  readonly tokens: number
  /** Whether the day spent more than a budget allows. */
  readonly overBudget: boolean
}

/**
 * `GET /api/memory/spend`: the observer's spend per day (oldest first), apart from the user's
 * sessions, and the daily budget it runs against.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpendResponse {
  readonly days: ReadonlyArray<SpendDay>
  readonly budget: { readonly usd: number | null; readonly tokens: number | null }
  readonly totals: { readonly calls: number; readonly tokens: number; readonly costUsd: number }
}

/**
 * `POST /api/memory/forget` and `POST /api/memory/restore`: the ids changed.
 *
 * @since 0.1.0
 * @category models
 */
export interface CurationResponse {
  readonly forgotten?: ReadonlyArray<string>
  readonly restored?: ReadonlyArray<string>
}

// -------------------------------------------------------------------------------------------------
// rows
// -------------------------------------------------------------------------------------------------

/**
 * A JSON list column read leniently (the memory's own reader).
 *
 * @since 0.1.0
 * @category rows
 */
export const stringList = MemoryRows.stringList

/**
 * A JSON list of event ids read leniently (the memory's own reader).
 *
 * @since 0.1.0
 * @category rows
 */
export const idList = MemoryRows.idList

/**
 * An observation as stored (the memory's own row).
 *
 * @since 0.1.0
 * @category rows
 */
export type ObservationRow = MemoryRows.ObservationRow

/**
 * An event of the queue as the turn lookup reads it (the memory's own row).
 *
 * @since 0.1.0
 * @category rows
 */
export type EventRow = MemoryRows.EventRow

/**
 * An observation's view (its turn found apart).
 *
 * @since 0.1.0
 * @category rows
 */
export const observationView = (
  row: ObservationRow,
  from: TurnLink | null,
  snippet: string | null = null
): ObservationView => ({
  id: `O${row.id}`,
  rowId: row.id,
  sessionId: row.sessionId,
  project: row.project,
  type: row.type,
  title: row.title,
  subtitle: row.subtitle,
  narrative: row.narrative,
  facts: [...row.facts],
  concepts: [...row.concepts],
  filesRead: [...row.filesRead],
  filesModified: [...row.filesModified],
  source: row.source,
  createdAt: row.createdAt,
  from,
  snippet
})

/**
 * A summary as stored (the memory's own row).
 *
 * @since 0.1.0
 * @category rows
 */
export type SummaryRow = MemoryRows.SummaryRow

/**
 * A summary's view.
 *
 * @since 0.1.0
 * @category rows
 */
export const summaryView = (row: SummaryRow): SummaryView => ({
  id: `S${row.id}`,
  sessionId: row.sessionId,
  project: row.project,
  request: row.request,
  investigated: row.investigated,
  learned: row.learned,
  completed: row.completed,
  nextSteps: row.nextSteps,
  notes: row.notes,
  filesRead: [...row.filesRead],
  filesEdited: [...row.filesEdited],
  createdAt: row.createdAt
})

// -------------------------------------------------------------------------------------------------
// the turn an observation came from
// -------------------------------------------------------------------------------------------------

/**
 * The `tool_use_id` of a tool event: the hook keys a tool call's event `tool:<session>:<id>`
 * (the payload itself keeps only the input and the response).
 *
 * @since 0.1.0
 * @category turns
 */
export const toolUseIdOf = (event: EventRow): string | undefined => {
  if (event.kind !== "tool" && event.kind !== "tool_failure") return undefined
  const prefix = `tool:${event.sessionId}:`
  return event.idempotencyKey.startsWith(prefix) && event.idempotencyKey.length > prefix.length
    ? event.idempotencyKey.slice(prefix.length)
    : undefined
}

const payloadOf = (event: EventRow): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(event.payload)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed as Record<string, unknown>
      : {}
  } catch {
    return {}
  }
}

const FILE_KEYS = ["file_path", "notebook_path", "path"] as const

/** The file a tool call's input names, when it names one. */
const fileOf = (event: EventRow): string | undefined => {
  const input = payloadOf(event)["tool_input"]
  if (typeof input !== "object" || input === null) return undefined
  for (const key of FILE_KEYS) {
    const value = (input as Record<string, unknown>)[key]
    if (typeof value === "string" && value !== "") return value
  }
  return undefined
}

/** Whether a stored path (absolute, or relative to the project) and a tool's file are one. */
const sameFile = (file: string, named: string): boolean =>
  file === named || named.endsWith(`/${file.replace(/^\.\//, "")}`)

/**
 * The event of an observation's batch it most likely came from: a tool call on one of its files
 * (modified ones first), else the batch's first tool call, else its first prompt.
 *
 * @since 0.1.0
 * @category turns
 */
export const sourceEvent = (
  observation: { readonly filesModified: ReadonlyArray<string>; readonly filesRead: ReadonlyArray<string> },
  events: ReadonlyArray<EventRow>
): EventRow | undefined => {
  const ordered = [...events].sort((a, b) => a.id - b.id)
  const tools = ordered.filter((event) => toolUseIdOf(event) !== undefined)
  for (const file of [...observation.filesModified, ...observation.filesRead]) {
    const hit = tools.find((event) => {
      const named = fileOf(event)
      return named !== undefined && sameFile(file, named)
    })
    if (hit !== undefined) return hit
  }
  return tools[0] ?? ordered.find((event) => event.kind === "prompt")
}

/**
 * The prompt a prompt event recorded (redacted and cut as the hook stored it).
 *
 * @since 0.1.0
 * @category turns
 */
export const promptOf = (event: EventRow): string | undefined => {
  if (event.kind !== "prompt") return undefined
  const prompt = payloadOf(event)["prompt"]
  return typeof prompt === "string" ? prompt : undefined
}

const firstLine = (text: string, max = 80): string => {
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "") ?? ""
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * A user entry of a transcript that can be a prompt: its uuid, text and time.
 *
 * @since 0.1.0
 * @category turns
 */
export interface PromptEntry {
  readonly uuid: string
  readonly text: string
  /** Epoch ms (`NaN` when the entry has no readable time). */
  readonly at: number
}

/**
 * The user entries of a transcript that carry typed text (tool results and meta entries are not
 * prompts). Lenient: entries of any shape are read or passed over.
 *
 * @since 0.1.0
 * @category turns
 */
export const promptEntries = (entries: ReadonlyArray<unknown>): Array<PromptEntry> => {
  const out: Array<PromptEntry> = []
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null) continue
    const record = entry as Record<string, unknown>
    if (record["type"] !== "user" || record["isMeta"] === true || typeof record["uuid"] !== "string") continue
    const message = record["message"]
    const content = typeof message === "object" && message !== null
      ? (message as Record<string, unknown>)["content"]
      : undefined
    const text = typeof content === "string"
      ? content
      : Array.isArray(content)
      ? content.flatMap((block) =>
        typeof block === "object" && block !== null && (block as Record<string, unknown>)["type"] === "text" &&
          typeof (block as Record<string, unknown>)["text"] === "string"
          ? [(block as Record<string, unknown>)["text"] as string]
          : []
      ).join("\n")
      : ""
    if (text.trim() === "") continue
    const at = typeof record["timestamp"] === "string" ? Date.parse(record["timestamp"]) : Number.NaN
    out.push({ uuid: record["uuid"], text, at })
  }
  return out
}

const CUT_MARKER = /\n\[… cut: \d+ more characters\]$/

/**
 * The uuid of the user entry a stored prompt came from: the entries whose text, redacted as the
 * hook redacts it, equals the prompt (or starts with it, when the hook cut it), the one nearest
 * in time to when the hook recorded it. `undefined` when none matches.
 *
 * @since 0.1.0
 * @category turns
 */
export const promptEntryUuid = (
  prompt: string,
  recordedAt: number,
  entries: ReadonlyArray<PromptEntry>
): string | undefined => {
  const cut = CUT_MARKER.test(prompt)
  const stored = prompt.replace(CUT_MARKER, "")
  const matches = entries.filter((entry) => {
    const text = Redact.text(entry.text).trim()
    return cut ? text.startsWith(stored) : text === stored
  })
  const distance = (entry: PromptEntry) =>
    Number.isNaN(entry.at) ? Number.MAX_SAFE_INTEGER : Math.abs(entry.at - recordedAt)
  return matches.sort((a, b) => distance(a) - distance(b))[0]?.uuid
}

/**
 * The link to an observation's turn, from the event it came from and, for a prompt, the uuid
 * found in the transcript.
 *
 * @since 0.1.0
 * @category turns
 */
export const turnLink = (event: EventRow, promptUuid: string | undefined): TurnLink => {
  const toolUseId = toolUseIdOf(event)
  return toolUseId !== undefined
    ? { sessionId: event.sessionId, turn: toolUseId, kind: "tool", label: event.toolName ?? "tool call" }
    : {
      sessionId: event.sessionId,
      turn: promptUuid ?? null,
      kind: "prompt",
      label: firstLine(promptOf(event) ?? "prompt")
    }
}

// -------------------------------------------------------------------------------------------------
// spend
// -------------------------------------------------------------------------------------------------

/**
 * A day's ledger rows summed (the memory's own row).
 *
 * @since 0.1.0
 * @category spend
 */
export type SpendRow = MemoryRows.SpendRow

/**
 * The spend per day against the budget, oldest day first.
 *
 * @since 0.1.0
 * @category spend
 */
export const spend = (
  rows: ReadonlyArray<SpendRow>,
  budget: { readonly usd: number | null; readonly tokens: number | null }
): SpendResponse => {
  const days = [...rows].sort((a, b) => a.day.localeCompare(b.day)).map((row): SpendDay => {
    const tokens = row.inputTokens + row.outputTokens + row.cacheReadTokens + row.cacheCreationTokens
    return {
      day: row.day,
      calls: row.calls,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      cacheReadTokens: row.cacheReadTokens,
      cacheCreationTokens: row.cacheCreationTokens,
      tokens,
      costUsd: row.costUsd,
      overBudget: (budget.usd !== null && row.costUsd > budget.usd) ||
        (budget.tokens !== null && tokens > budget.tokens)
    }
  })
  return {
    days,
    budget,
    totals: {
      calls: days.reduce((sum, day) => sum + day.calls, 0),
      tokens: days.reduce((sum, day) => sum + day.tokens, 0),
      costUsd: days.reduce((sum, day) => sum + day.costUsd, 0)
    }
  }
}

// -------------------------------------------------------------------------------------------------
// requests (their strict decoding: `internal/memoryRequests.ts`)
// -------------------------------------------------------------------------------------------------

export {
  /**
   * A request body decoded strictly (no unknown key), or the reason in one line.
   *
   * @since 0.1.0
   * @category requests
   */
  decodeBody,
  /**
   * `POST /api/memory/forget`: ids, or a filter with at least one condition.
   *
   * @since 0.1.0
   * @category requests
   */
  ForgetBody,
  /**
   * The most observations one page of the timeline holds.
   *
   * @since 0.1.0
   * @category requests
   */
  MAX_LIMIT,
  /**
   * The timeline's query, checked.
   *
   * @since 0.1.0
   * @category requests
   */
  type ObservationsQuery,
  /**
   * Reads the timeline's query parameters; a message for a value that cannot be used.
   *
   * @since 0.1.0
   * @category requests
   */
  observationsQuery,
  /**
   * `POST /api/memory/restore`: the ids a forget returned.
   *
   * @since 0.1.0
   * @category requests
   */
  RestoreBody
} from "./internal/memoryRequests.js"
