/**
 * The SQLite column lists that read the memory's tables into its rows (`MemoryRows`): one per
 * table, each column aliased to its row field, so every query reading a row reads it the same way.
 * JSON list columns come back as text; {@link decodeObservation} and {@link decodeSummary} decode
 * them.
 */
import type { ObservationRow, SummaryRow } from "../MemoryRows.js"
import { idList, stringList } from "../MemoryRows.js"

/** `memory_events` as an `EventRow`. */
export const eventColumns = `id, session_id AS sessionId, project, kind, idempotency_key AS idempotencyKey,
  tool_name AS toolName, payload, created_at AS createdAt, state, attempts, last_error AS lastError`

/** `memory_observations` as an `ObservationRow` (lists still JSON text). */
export const observationColumns = `id, session_id AS sessionId, project, type, title, subtitle, narrative, facts,
  concepts, files_read AS filesRead, files_modified AS filesModified, event_ids AS eventIds, source,
  created_at AS createdAt`

/** `memory_summaries` as a `SummaryRow` (lists still JSON text). */
export const summaryColumns = `id, session_id AS sessionId, project, request, investigated, learned, completed,
  next_steps AS nextSteps, notes, files_read AS filesRead, files_edited AS filesEdited, event_ids AS eventIds, source,
  created_at AS createdAt`

/** `memory_prompts` as a `PromptRow`. */
export const promptColumns = `id, session_id AS sessionId, project, prompt_number AS promptNumber, text,
  created_at AS createdAt`

type Stored<Row, Lists extends keyof Row> = Omit<Row, Lists> & { readonly [K in Lists]: unknown }

/** An observation as read, its lists decoded leniently. */
export const decodeObservation = (
  row: Stored<ObservationRow, "facts" | "concepts" | "filesRead" | "filesModified" | "eventIds">
): ObservationRow => ({
  ...row,
  facts: stringList(row.facts),
  concepts: stringList(row.concepts),
  filesRead: stringList(row.filesRead),
  filesModified: stringList(row.filesModified),
  eventIds: idList(row.eventIds)
})

/** A summary as read, its lists decoded leniently. */
export const decodeSummary = (
  row: Stored<SummaryRow, "filesRead" | "filesEdited" | "eventIds">
): SummaryRow => ({
  ...row,
  filesRead: stringList(row.filesRead),
  filesEdited: stringList(row.filesEdited),
  eventIds: idList(row.eventIds)
})
