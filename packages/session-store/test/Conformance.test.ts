/**
 * The SessionStore conformance suite (`SessionStoreConformance.ts`) against every adapter, and
 * against the SDK's own `InMemorySessionStore` to prove the suite: each contract the SDK store
 * does not meet is an expected failure (`it.fails`), so the suite must actually catch it.
 *
 * Adding an adapter is one `runSessionStoreConformance(...)` line. Adapters on a shared database
 * pass `sharedStorage`, a second store on the same database, to run the cross-instance uuid case:
 * - SQLite: `runSessionStoreConformance("SqliteSessionStore", () => createSqliteSessionStore({ filename }),
 *   { sharedStorage: () => createSqliteSessionStore({ filename }) })`, `filename` in a temp dir;
 * - Postgres, inside `describe.skipIf(!process.env.ACX_PG_URL)`: the same with
 *   `createPostgresSessionStore({ url })` for both `makeStore` and `sharedStorage`.
 * Stores with `close()` are closed after the suite; pass `cleanup` to do more (remove the file).
 *
 * The corrupt-row case plants rows behind the store's back with the raw drivers (better-sqlite3,
 * pg), as another program would, and reads what the store reported through `onCorruptEntry`.
 */
import type { CorruptEntry } from "@acx/session-store/CorruptEntry"
import { createMemorySessionStore } from "@acx/session-store/MemorySessionStore"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { type ConformanceCase, runSessionStoreConformance } from "@acx/testing/SessionStoreConformance"
import { InMemorySessionStore, type SessionKey } from "@anthropic-ai/claude-agent-sdk"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterAll, describe } from "vitest"

runSessionStoreConformance("MemorySessionStore", () => createMemorySessionStore())

/** The contracts the SDK's `InMemorySessionStore` (0.3.330) does not meet, and why. */
const sdkInMemoryGaps: ReadonlyArray<ConformanceCase> = [
  // `append(key, [])` creates the key: the key's mtime and the session's summary mtime move.
  "empty append to an existing key is a no-op",
  // `append(key, [])` records an empty list: `load` returns `[]` and listSessions lists it.
  "key only ever appended with [] loads as null",
  // No key validation: `subpath: ""` is treated as the main key, "/abs" and "a/../b" are stored.
  "invalid subpaths are rejected",
  // No uuid dedup: replayed lines are stored (and folded into the summary) again.
  "summary ignores entries skipped as duplicate uuids",
  "uuid is idempotent within a batch",
  "uuid is idempotent across batches",
  // Stores and returns the caller's objects themselves, not copies.
  "stored entries are isolated from caller mutation"
]

runSessionStoreConformance("SDK InMemorySessionStore", () => new InMemorySessionStore(), {
  expectedFailures: sdkInMemoryGaps
})

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-conformance-"))
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }))
const sqliteFile = path.join(tempDir, "store.sqlite")
const sqliteReports: Array<CorruptEntry> = []
/** Torn JSON on a main key, JSON that is not an object on a subkey. */
const corruptText = (key: SessionKey) => key.subpath === undefined ? `{"type":"user","message":{"rol` : `42`
runSessionStoreConformance(
  "SqliteSessionStore",
  () => createSqliteSessionStore({ filename: sqliteFile, onCorruptEntry: (corrupt) => sqliteReports.push(corrupt) }),
  {
    sharedStorage: () => createSqliteSessionStore({ filename: sqliteFile }),
    corruptEntries: {
      plant: async (key) => {
        const db = new Database(sqliteFile)
        try {
          const row = db.prepare(
            `SELECT id FROM acx_session_keys WHERE project_key = ? AND session_id = ? AND subpath = ?`
          ).get(key.projectKey, key.sessionId, key.subpath ?? "") as { readonly id: number }
          db.prepare(`INSERT INTO acx_session_entries (key_id, uuid, entry, created_at) VALUES (?, NULL, ?, ?)`)
            .run(row.id, corruptText(key), Date.now())
        } finally {
          db.close()
        }
      },
      reported: () => sqliteReports
    },
    invalidOptions: [
      { title: "an empty filename", construct: () => createSqliteSessionStore({ filename: "" }), mentions: `""` }
    ]
  }
)

const pgUrl = process.env["ACX_PG_URL"]
const pgSchema = `conformance_${randomUUID().replace(/-/g, "").slice(0, 12)}`
const pgReports: Array<CorruptEntry> = []
const badSchemas = ["Bad-Name", "1starts_with_digit", "x; DROP TABLE y", "s".repeat(64), ""]
describe.skipIf(pgUrl === undefined)(
  `Postgres${pgUrl === undefined ? " — skipped: ACX_PG_URL is not set" : ""}`,
  () => {
    runSessionStoreConformance(
      "PostgresSessionStore",
      () =>
        createPostgresSessionStore({
          url: pgUrl!,
          schema: pgSchema,
          onCorruptEntry: (corrupt) => pgReports.push(corrupt)
        }),
      {
        sharedStorage: () => createPostgresSessionStore({ url: pgUrl!, schema: pgSchema }),
        corruptEntries: {
          // The JSON column only holds valid JSON: what another program can leave there is JSON
          // that is not an entry.
          plant: async (key) => {
            const client = new pg.Client({ connectionString: pgUrl })
            await client.connect()
            try {
              await client.query(
                `INSERT INTO ${pgSchema}.claude_session_entries (project_key, session_id, subpath, entry)
                VALUES ($1, $2, $3, $4)`,
                [key.projectKey, key.sessionId, key.subpath ?? "", key.subpath === undefined ? `["a", 1]` : `{"no":1}`]
              )
            } finally {
              await client.end()
            }
          },
          reported: () => pgReports
        },
        invalidOptions: [
          ...badSchemas.map((schema) => ({
            title: `schema ${JSON.stringify(schema)}`,
            construct: () => createPostgresSessionStore({ url: pgUrl!, schema }),
            mentions: JSON.stringify(schema)
          })),
          {
            title: "maxConnections 0",
            construct: () => createPostgresSessionStore({ url: pgUrl!, maxConnections: 0 }),
            mentions: "maxConnections"
          }
        ]
      }
    )
  }
)
