/**
 * `EntryText`: an entry whose line an importer remembered is stored as that line, in SQLite and
 * in Postgres (its `json` column keeps the text), and reads back as the same value; a line that
 * writes a key twice is never taken (the value `JSON.parse` dropped would be stored in the text);
 * an entry nobody remembered is encoded by `JSON.stringify`, as the SDK's `append` always did.
 */
import { dropSchema } from "@acx/fixtures/postgresTools"
import * as JsonDepth from "@acx/schema/JsonDepth"
import * as EntryText from "@acx/session-store/EntryText"
import * as Pg from "@acx/session-store/PostgresSessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"

const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_entry_text_${process.pid}_${randomUUID().slice(0, 8)}`
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-entry-text-"))

afterAll(async () => {
  fs.rmSync(tempDir, { recursive: true, force: true })
  if (PG_URL !== undefined) await dropSchema(PG_URL, SCHEMA)
})

// spaced and with a number JSON.stringify writes otherwise: told apart from a re-encoding
const SPACED = `{ "type": "user", "uuid": "u-spaced", "n": 1.50, "big": 12345678901234567890,
  "message": { "role": "user", "content": "tab\\t \\u00e9 \\"q\\" a:b {x}" } }`.replace("\n", "")
// "content" written twice: JSON.parse keeps "hi", the first value is in the text only
const TWICE = `{"type":"user","uuid":"u-twice","message":{"content":"hidden-first-value","content":"hi"}}`
const PLAIN = { type: "assistant", uuid: "u-plain", message: { content: "plain" } }

const rawTexts = (engine: string, filename: string) =>
  Effect.promise(async (): Promise<Map<string, string>> => {
    if (engine === "SQLite") {
      const db = new Database(filename, { readonly: true })
      try {
        const rows = db.prepare("SELECT uuid, entry FROM acx_session_entries").all() as Array<
          { uuid: string; entry: string }
        >
        return new Map(rows.map((row) => [row.uuid, row.entry]))
      } finally {
        db.close()
      }
    }
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ uuid: string; entry: string }>(
        `SELECT uuid, entry::text AS entry FROM "${SCHEMA}".claude_session_entries`
      )
      return new Map(rows.map((row) => [row.uuid, row.entry]))
    } finally {
      await client.end()
    }
  })

const engines: ReadonlyArray<
  readonly [string, (file: string) => Layer.Layer<SessionStore.SessionStore, unknown>, boolean]
> = [
  ["SQLite", (filename) => SqliteSessionStore.layer({ filename }), true],
  ["Postgres", () => Pg.layer({ url: Redacted.make(PG_URL ?? ""), schema: SCHEMA }), PG_URL !== undefined]
]

describe("EntryText", () => {
  it("counts the members a JSON text writes, a key written twice twice, none inside strings", () => {
    expect(JsonDepth.membersWritten(`{"a":1,"b":{"c":[{"d":"x:y"}]}}`)).toBe(4)
    expect(JsonDepth.membersWritten(TWICE)).toBe(5)
    expect(JsonDepth.membersWritten(`{"a":"\\":"}`)).toBe(1)
    expect(JsonDepth.membersWritten(`{"a":"never closed`)).toBe(-1)
  })

  it("takes a line that encodes its value exactly, never one that writes a key twice", () => {
    expect(EntryText.remember(JSON.parse(SPACED), SPACED)).toBe(true)
    const twice = JSON.parse(TWICE) as SessionStore.SessionStoreEntry
    expect(EntryText.remember(twice, TWICE)).toBe(false)
    expect(EntryText.textOf(twice)).toBe(JSON.stringify(twice))
    expect(EntryText.textOf(twice)).not.toContain("hidden-first-value")
  })

  for (const [engine, layer, enabled] of engines) {
    it.runIf(enabled)(`${engine}: a remembered line is stored as it is and reads back as its value`, async () => {
      const filename = path.join(tempDir, `${randomUUID()}.db`)
      const spaced = JSON.parse(SPACED) as SessionStore.SessionStoreEntry
      const twice = JSON.parse(TWICE) as SessionStore.SessionStoreEntry
      EntryText.remember(spaced, SPACED)
      EntryText.remember(twice, TWICE)
      const key = { projectKey: `p-${randomUUID()}`, sessionId: randomUUID() }
      await Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [spaced, twice, PLAIN])
        expect(yield* store.load(key)).toEqual([JSON.parse(SPACED), JSON.parse(TWICE), PLAIN])
        const texts = yield* rawTexts(engine, filename)
        expect(texts.get("u-spaced")).toBe(SPACED)
        expect(texts.get("u-twice")).not.toContain("hidden-first-value")
        expect(JSON.parse(texts.get("u-plain")!)).toEqual(PLAIN)
        // the summary folds the value, not the text
        const [summary] = yield* store.listSessionSummaries(key.projectKey)
        expect(summary?.sessionId).toBe(key.sessionId)
      }).pipe(Effect.provide(layer(filename)), Effect.runPromise)
    }, 60_000)
  }
})
