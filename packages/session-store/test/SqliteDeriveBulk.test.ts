/**
 * The SQLite catalog derives many keys per write transaction (the search index built in bulk, not
 * key by key): a store whose keys all derive in one refresh holds the same derived rows, the same
 * search index, and answers every search, listing and usage read as a store refreshed after each
 * key's append (one key per transaction, in the same order).
 */
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import { afterAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-derive-bulk-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const WORDS = ["cache", "token", "session", "error", "worker", "quokka", "lorem", "ipsum"]

const uuidOf = (key: number, i: number) => `00000000-0000-4000-8000-${String(key * 1000 + i).padStart(12, "0")}`

// A transcript of `n` turns: a user prompt and an assistant reply with usage, words varying by key.
const transcript = (key: number, n: number): Array<SessionStore.SessionStoreEntry> =>
  Array.from({ length: n }, (_, i) => [
    {
      type: "user",
      uuid: uuidOf(key, 2 * i),
      timestamp: new Date(Date.UTC(2026, 10, 1, 0, key, i)).toISOString(),
      message: { role: "user", content: `${WORDS[(key + i) % WORDS.length]} question ${key}.${i} lorem` }
    },
    {
      type: "assistant",
      uuid: uuidOf(key, 2 * i + 1),
      timestamp: new Date(Date.UTC(2026, 10, 1, 0, key, i, 500)).toISOString(),
      requestId: `req-${key}-${i}`,
      message: {
        id: `msg-${key}-${i}`,
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: `${WORDS[(key * 3 + i) % WORDS.length]} answer ${"ipsum ".repeat(i % 4)}` }],
        usage: { input_tokens: 10 + i, output_tokens: 5 + key, cache_read_input_tokens: 100 * i }
      }
    }
  ]).flat()

// 40 keys: 30 sessions, 10 of them with a subagent; in the order the catalog derives them
// (main transcripts first, then subagents, each in the order first appended).
const keys: ReadonlyArray<SessionStore.SessionKey> = [
  ...Array.from({ length: 30 }, (_, i) => ({ projectKey: `project-${i % 4}`, sessionId: `session-${i}` })),
  ...Array.from({ length: 10 }, (_, i) => ({
    projectKey: `project-${(i * 3) % 4}`,
    sessionId: `session-${i * 3}`,
    subpath: `subagents/agent-${i}`
  }))
]

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

const reads = (store: Store) =>
  Effect.gen(function*() {
    const searches: Array<unknown> = []
    for (const word of WORDS) searches.push(yield* store.catalog.search(word, { limit: 50 }))
    searches.push(yield* store.catalog.search("lorem", { limit: 10, projectKey: "project-2" }))
    searches.push(yield* store.catalog.search("answer", { limit: 10, role: "assistant" }))
    return {
      searches,
      sessions: yield* store.catalog.listSessions(),
      usage: yield* store.catalog.usage()
    }
  })

// The derived tables as rows (the text rows by id with the body the index holds for each).
const derivedRows = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return {
      texts: db.prepare(`SELECT t.id, t.key_id, t.uuid, t.role, t.time_ms, f.body FROM acx_session_text t
        JOIN acx_session_text_fts f ON f.rowid = t.id ORDER BY t.id`).all(),
      usage: db.prepare("SELECT * FROM acx_session_usage ORDER BY key_id, message_key").all(),
      meta: db.prepare("SELECT * FROM acx_session_meta ORDER BY project_key, session_id").all(),
      behind: db.prepare("SELECT id FROM acx_session_keys WHERE mtime > derived_mtime").all()
    }
  } finally {
    db.close()
  }
}

describe("SQLite catalog: many keys per derive transaction", () => {
  it.scoped(
    "derives what a refresh per key derives: same rows, same search index, same answers",
    () =>
      Effect.gen(function*() {
        const bulkFile = path.join(root, "bulk.db")
        const perKeyFile = path.join(root, "per-key.db")
        const bulk = yield* SqliteSessionStore.make({ filename: bulkFile })
        const perKey = yield* SqliteSessionStore.make({ filename: perKeyFile })
        // sizes vary, and one key alone is over a transaction's entries
        const sizes = keys.map((_, i) => (i === 7 ? 5200 : 3 + (i * 7) % 40))
        for (const [i, key] of keys.entries()) yield* bulk.append(key, transcript(i, sizes[i]!))
        yield* bulk.catalog.refresh()
        for (const [i, key] of keys.entries()) {
          yield* perKey.append(key, transcript(i, sizes[i]!))
          yield* perKey.catalog.refresh()
        }
        const bulkReads = yield* reads(bulk)
        expect(bulkReads.searches.every((hits) => (hits as ReadonlyArray<unknown>).length > 0)).toBe(true)
        expect(bulkReads.sessions.length).toBe(30)
        expect(bulkReads).toEqual(yield* reads(perKey))
        const rows = derivedRows(bulkFile)
        expect(rows.behind).toEqual([])
        expect(rows.texts.length).toBeGreaterThan(10_000)
        expect(rows).toEqual(derivedRows(perKeyFile))
      }),
    { timeout: 240_000 }
  )
})
