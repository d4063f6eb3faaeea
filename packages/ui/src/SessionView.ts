/**
 * The session page's wire format: what `GET /api/session/:id` and its live events send. The
 * items themselves, and the fold that makes them, are `@acx/convert`'s (`SessionItem`,
 * `SessionFold`, `SessionBlocks`): the same fold, pricing and fragment keys as `acx stats`.
 *
 * @since 0.1.0
 */
import * as SessionItem from "@acx/convert/SessionItem"
import type * as UiApi from "./UiApi.js"

// -------------------------------------------------------------------------------------------------
// the wire format
// -------------------------------------------------------------------------------------------------

/**
 * A subagent transcript of the session (`subagents/agent-<agentId>.jsonl`), with what its
 * `.meta.json` says.
 *
 * @since 0.1.0
 * @category wire
 */
export interface SubagentRow {
  readonly agentId: string
  readonly agentType: string | null
  readonly description: string | null
}

/**
 * What the page's header shows of a session.
 *
 * @since 0.1.0
 * @category wire
 */
export interface SessionHeader {
  readonly sessionId: string
  readonly projectKey: string
  /** The last segment of `cwd`, else the project directory's name. */
  readonly project: string
  readonly title: string | null
  readonly cwd: string | null
  readonly gitBranch: string | null
  readonly startTime: string | null
  readonly lastTime: string | null
  /** `claude --resume <id>`. */
  readonly resume: string
  /** The transcript's size in bytes when the load began. */
  readonly bytes: number
  readonly subagents: ReadonlyArray<SubagentRow>
  /**
   * Tokens and dollars of the session and its subagents, from the fold `acx stats`, the list and
   * the costs page use (not a sum of the items: one figure everywhere). `null` in the payload's
   * header: a `usage` line follows once the fold is read, so the first paint waits for no fold.
   */
  readonly usage: UiApi.SessionFigure | null
  /** Whether secrets are masked in this payload. */
  readonly masked: boolean
  /** Lines over this many bytes are not read (offered as a download). */
  readonly lineCap: number
  readonly pricing: { readonly source: string; readonly date: string }
}

/**
 * One line of `GET /api/session/:id` (NDJSON; also each SSE `data:` of
 * `/api/session/:id/events`): the header first, then batches of items created or changed and,
 * among them, `usage` (the header's figure), then where the read ended (`bytes`: the offset after
 * the last whole line, from which the live events go on); live only: `reload` (the file was
 * replaced or shortened), `subagents` (the subagent transcripts changed) and `usage` again (after
 * the session or one of its subagents grew).
 *
 * @since 0.1.0
 * @category wire
 */
export type SessionLine =
  | { readonly type: "header"; readonly header: SessionHeader }
  | { readonly type: "items"; readonly items: ReadonlyArray<SessionItem.Item> }
  | { readonly type: "end"; readonly bytes: number; readonly lines: number }
  | { readonly type: "reload" }
  | { readonly type: "subagents"; readonly subagents: ReadonlyArray<SubagentRow> }
  | { readonly type: "usage"; readonly usage: UiApi.SessionFigure }

/**
 * `GET /api/session/:id/block`: a cut text in full, or an image as a data URL.
 *
 * @since 0.1.0
 * @category wire
 */
export type BlockResponse = { readonly text: string } | { readonly dataUrl: string }

// -------------------------------------------------------------------------------------------------
// the page's rows
// -------------------------------------------------------------------------------------------------

/**
 * A row of the session page: an item, or the attachments Claude Code recorded together (between
 * two turns), shown as one quiet line that opens on demand.
 *
 * @since 0.5.0
 * @category rows
 */
export type Row =
  | { readonly _tag: "Item"; readonly item: SessionItem.Item }
  | {
    readonly _tag: "Attachments"
    readonly key: string
    readonly items: ReadonlyArray<Extract<SessionItem.Item, { readonly kind: "meta" }>>
  }

/**
 * The page's rows from its top-level items, in order: each run of attachments folded into one
 * row, every other item a row of its own.
 *
 * @since 0.5.0
 * @category rows
 */
export const rowsOf = (items: ReadonlyArray<SessionItem.Item>): Array<Row> => {
  const rows: Array<Row> = []
  for (const item of items) {
    const last = rows.at(-1)
    if (!SessionItem.isAttachment(item)) rows.push({ _tag: "Item", item })
    else if (last?._tag === "Attachments") rows[rows.length - 1] = { ...last, items: [...last.items, item] }
    else rows.push({ _tag: "Attachments", key: `attachments-${item.key}`, items: [item] })
  }
  return rows
}

/**
 * How many turns the items hold (`SessionItem.isTurn`: prompts, assistant messages, orphan tool
 * results, compactions), what the page says it shows.
 *
 * @since 0.5.0
 * @category rows
 */
export const turnCount = (items: ReadonlyArray<SessionItem.Item>): number => items.filter(SessionItem.isTurn).length
