/**
 * Text the memory stored before its redaction rules last changed, redacted again with today's
 * rules, once: a secret shape the rules learned since (a new key format) must not stay in rows
 * captured earlier. The rules' fingerprint (`Redact.RULES_FINGERPRINT`) is kept in `memory_meta`;
 * a file whose fingerprint is current costs one read. Otherwise every stored text is redacted
 * again (`Redact.text` for text, `Redact.value` for JSON, both idempotent, so text redacted by
 * today's rules is unchanged) in short write transactions of {@link BATCH} rows, so hooks waiting
 * on the write lock are held up for milliseconds, not for the whole file; the full-text indexes
 * follow through their update triggers. The fingerprint is written last: a process stopped
 * halfway starts over next time, which changes nothing already redacted.
 *
 * The Effect programs' connection runs it (`MemoryDatabase`: the worker, the CLI, the MCP server,
 * the page); the hook does not (it must stay fast), and the rows it adds are redacted as they are
 * captured.
 */
import * as Redact from "@acx/convert/Redact"
import type Database from "better-sqlite3"
import { immediate } from "./sqlite.js"

/** Rows per write transaction. */
export const BATCH = 200

const META_KEY = "redaction_rules"

type Kind = "text" | "json"

// Every column that holds text a user or a model wrote, and how it is stored.
const COLUMNS: ReadonlyArray<{ readonly table: string; readonly columns: ReadonlyArray<readonly [string, Kind]> }> = [
  { table: "memory_prompts", columns: [["text", "text"]] },
  { table: "memory_events", columns: [["payload", "json"], ["last_reply", "text"], ["last_error", "text"]] },
  {
    table: "memory_observations",
    columns: [
      ["title", "text"],
      ["subtitle", "text"],
      ["narrative", "text"],
      ["facts", "json"],
      ["concepts", "json"],
      ["files_read", "json"],
      ["files_modified", "json"]
    ]
  },
  {
    table: "memory_summaries",
    columns: [
      ["request", "text"],
      ["investigated", "text"],
      ["learned", "text"],
      ["completed", "text"],
      ["next_steps", "text"],
      ["notes", "text"],
      ["files_read", "json"],
      ["files_edited", "json"]
    ]
  },
  { table: "memory_sessions", columns: [["last_error", "text"]] }
]

const redacted = (value: unknown, kind: Kind): unknown => {
  if (typeof value !== "string") return value
  if (kind === "text") return Redact.text(value)
  try {
    return JSON.stringify(Redact.value(JSON.parse(value)))
  } catch {
    // not JSON after all: redacted as the text it is
    return Redact.text(value)
  }
}

/** What a run did: rows read and rows changed. */
export interface ReRedaction {
  readonly rows: number
  readonly changed: number
}

const redactTable = (
  db: Database.Database,
  table: string,
  columns: ReadonlyArray<readonly [string, Kind]>
): ReRedaction => {
  const key = table === "memory_sessions" ? "rowid" : "id"
  const names = columns.map(([name]) => name)
  const select = db.prepare(
    `SELECT ${key} AS k, ${names.join(", ")} FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ${BATCH}`
  )
  const update = db.prepare(`UPDATE ${table} SET ${names.map((name) => `${name} = ?`).join(", ")} WHERE ${key} = ?`)
  let after: number | bigint = -1
  let rows = 0
  let changed = 0
  for (;;) {
    const batch = immediate(db, () => {
      const read = select.all(after) as Array<Record<string, unknown>>
      for (const row of read) {
        const next = columns.map(([name, kind]) => redacted(row[name], kind))
        if (next.some((value, i) => value !== row[names[i]!])) {
          update.run(...next, row["k"])
          changed++
        }
      }
      return read
    })
    rows += batch.length
    if (batch.length < BATCH) return { rows, changed }
    after = batch[batch.length - 1]!["k"] as number
  }
}

/**
 * Redacts the file's stored text again when it was redacted with other rules than today's;
 * `undefined` when it was not needed (one read).
 */
export const reRedact = (db: Database.Database, fingerprint = Redact.RULES_FINGERPRINT): ReRedaction | undefined => {
  const stored = db.prepare("SELECT value FROM memory_meta WHERE key = ?").get(META_KEY) as
    | { readonly value: string }
    | undefined
  if (stored?.value === fingerprint) return undefined
  let rows = 0
  let changed = 0
  for (const { columns, table } of COLUMNS) {
    const done = redactTable(db, table, columns)
    rows += done.rows
    changed += done.changed
  }
  immediate(
    db,
    () =>
      db.prepare(
        "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
      )
        .run(META_KEY, fingerprint)
  )
  return { rows, changed }
}
