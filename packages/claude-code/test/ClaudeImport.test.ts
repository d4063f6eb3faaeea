import { importClaudeDir, type ImportProgress } from "@acx/claude-code/ClaudeImport"
import * as Redact from "@acx/convert/Redact"
import * as Fixtures from "@acx/fixtures"
import * as MemorySessionStore from "@acx/session-store/MemorySessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-import-"))
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }))

const parse = (file: string): Array<SessionStore.SessionStoreEntry> =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    if (line.trim() === "") return []
    try {
      const value = JSON.parse(line) as SessionStore.SessionStoreEntry
      return typeof value === "object" && value !== null && typeof value.type === "string" ? [value] : []
    } catch {
      return []
    }
  })

interface Expected {
  readonly key: SessionStore.SessionKey
  readonly file: string
  readonly meta?: Record<string, unknown>
}

/** The fixtures as a Claude config dir (shared helper), flattened to one row per transcript. */
const buildConfigDir = (): { readonly configDir: string; readonly expected: Array<Expected> } => {
  const built = Fixtures.buildClaudeConfigDir(path.join(tempDir, "config"))
  const expected = built.sessions.flatMap((session): Array<Expected> => [
    { key: { projectKey: session.projectKey, sessionId: session.sessionId }, file: session.file },
    ...session.subagents.map((agent): Expected => ({
      key: {
        projectKey: session.projectKey,
        sessionId: session.sessionId,
        subpath: `subagents/agent-${agent.agentId}`
      },
      file: agent.file,
      meta: agent.meta
    }))
  ])
  return { configDir: built.configDir, expected }
}

const stores: ReadonlyArray<readonly [string, () => Layer.Layer<SessionStore.SessionStore, unknown>]> = [
  ["MemorySessionStore", () => MemorySessionStore.layer],
  ["SqliteSessionStore", () => SqliteSessionStore.layer({ filename: path.join(tempDir, `${randomUUID()}.sqlite`) })]
]

describe(
  "importClaudeDir",
  () => {
    const { configDir, expected } = buildConfigDir()
    const mains = expected.filter((e) => e.key.subpath === undefined)
    const subs = expected.filter((e) => e.key.subpath !== undefined)
    const total = expected.reduce((n, e) => n + parse(e.file).length + (e.meta !== undefined ? 1 : 0), 0)

    for (const [name, makeLayer] of stores) {
      it(`imports the fixture dir into ${name}, idempotently`, async () => {
        const progress: Array<ImportProgress> = []
        await Effect.gen(function*() {
          const store = yield* SessionStore.SessionStore
          const run = importClaudeDir({
            from: { configDir },
            to: store,
            batchSize: 7,
            onProgress: (p) => Effect.sync(() => progress.push(p))
          })
          const first = yield* run
          expect(first).toMatchObject({
            sessions: mains.length,
            entries: total,
            subagents: subs.length,
            skippedLines: 0,
            filesUnchanged: 0,
            warnings: []
          })
          // one report a session, then one as the store derives its catalog (the import's last step)
          expect(progress.filter((p) => p.indexing !== true).length).toBe(mains.length)
          expect(progress.at(-1)?.sessions).toBe(mains.length)
          if (name === "SqliteSessionStore") expect(progress.at(-1)?.indexing).toBe(true)
          // as stored: secrets masked (`ImportOptions.mask`'s default)
          const want = (e: Expected) =>
            [
              ...parse(e.file),
              ...(e.meta !== undefined ? [{ ...e.meta, type: "agent_metadata" }] : [])
            ].map((entry) => Redact.maskEntry(entry).value)
          for (const e of expected) expect(yield* store.load(e.key)).toEqual(want(e))
          const second = yield* run
          expect(second.sessions).toBe(mains.length)
          // with a ledger (SQLite) nothing is even opened the second time
          if (name === "SqliteSessionStore") expect(second).toMatchObject({ filesRead: 0, bytesRead: 0, entries: 0 })
          // The second import adds nothing: entries with a uuid are deduped by the store, equal
          // uuid-less ones (snapshots, titles, agent_metadata) by the importer.
          for (const e of expected) expect(yield* store.load(e.key)).toEqual(want(e))
          const projectKey = mains[0]!.key.projectKey
          const only = yield* importClaudeDir({ from: { configDir }, to: store, projectKey })
          expect(only.sessions).toBe(mains.filter((e) => e.key.projectKey === projectKey).length)
        }).pipe(Effect.provide(makeLayer()), Effect.provide(NodeContext.layer), Effect.runPromise)
      })
    }
  }
)

describe("importClaudeDir: the text an entry is stored as", () => {
  it("stores a line as written when masking changes nothing, re-encoded when it masks or writes a key twice", async () => {
    const configDir = path.join(tempDir, `as-written-${randomUUID()}`)
    const sessionId = randomUUID()
    const dir = path.join(configDir, "projects", "-as-written")
    fs.mkdirSync(dir, { recursive: true })
    const key = `sk-ant-api03-${"a1B2".repeat(12)}`
    const lines = [
      // spaced, a number JSON.stringify writes otherwise: kept as it is
      `{ "type": "user", "uuid": "u-1", "sessionId": "${sessionId}", "n": 1.50, "message": { "content": "hi" } }`,
      // a key: masked, so stored as the masked entry's encoding
      `{ "type": "user", "uuid": "u-2", "sessionId": "${sessionId}", "message": { "content": "use ${key}" } }`,
      // a key written twice: stored as the parsed value's encoding
      `{ "type": "user", "uuid": "u-3", "sessionId": "${sessionId}", "message": { "content": "x", "content": "y" } }`
    ]
    fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.join("\n") + "\n")
    const filename = path.join(tempDir, `${randomUUID()}.sqlite`)
    await Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* importClaudeDir({ from: { configDir }, to: store })
    }).pipe(
      Effect.provide(SqliteSessionStore.layer({ filename })),
      Effect.provide(NodeContext.layer),
      Effect.runPromise
    )
    const rows = await Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly entry: string }>`SELECT entry FROM acx_session_entries ORDER BY id`
    }).pipe(Effect.provide(SqliteClient.layer({ filename, readonly: true })), Effect.runPromise)
    const parsed = lines.map((line) => JSON.parse(line) as SessionStore.SessionStoreEntry)
    expect(rows.map((row) => row.entry)).toEqual([
      lines[0],
      JSON.stringify(Redact.maskEntry(parsed[1]!).value),
      JSON.stringify(parsed[2])
    ])
    expect(rows[1]!.entry).not.toContain(key)
  })
})
