/**
 * The session list a Postgres catalog keeps between reads (`pgDerived`'s list cache, keyed by a
 * fingerprint of the rows it lists): whatever changes the list — an append by this store or by
 * another process, a delete, retention — is in the next read, which always equals what a fresh
 * store (nothing kept) lists. And the `sessions` filter (one read for a page of search hits) and
 * `listOrigins`' `sessions` on both SQL stores. And the list's digest (`StoreCatalogSql`), which a
 * reader without the store computes in Postgres and a report kept from a list computes in the
 * process: the same text for the same list, whatever its keys hold; another text after any change.
 */
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_list_cache_${process.pid}_${randomUUID().slice(0, 8)}`
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-list-cache-"))
const PROJECT = "-home-dev-app"

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  for (const suffix of ["a", "b", "c", "d"]) await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}_${suffix}" CASCADE`)
  await client.end()
})

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

const openPg = (suffix: string): Effect.Effect<Store, SessionStore.SessionStoreError, Scope.Scope> =>
  PostgresSessionStore.make({ url: Redacted.make(PG_URL!), schema: `${SCHEMA}_${suffix}` })

/** A prompt and an answer, at `time`. */
const turn = (sessionId: string, prompt: string, time: string): Array<SessionStore.SessionStoreEntry> => {
  const user = randomUUID()
  return [
    {
      type: "user",
      uuid: user,
      parentUuid: null,
      sessionId,
      cwd: "/home/dev/app",
      timestamp: time,
      message: { role: "user", content: prompt }
    },
    {
      type: "assistant",
      uuid: randomUUID(),
      parentUuid: user,
      sessionId,
      cwd: "/home/dev/app",
      timestamp: time,
      requestId: `req_${user.slice(0, 8)}`,
      message: {
        id: `msg_${user.slice(0, 8)}`,
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: "done" }],
        usage: { input_tokens: 3, output_tokens: 2 }
      }
    }
  ]
}

const ids = ["a", "b", "c"].map(() => randomUUID())
const keyOf = (sessionId: string) => ({ projectKey: PROJECT, sessionId })

describe.skipIf(PG_URL === undefined)("the Postgres catalog's kept session list", () => {
  it.scoped("every change is in the next read, which equals a fresh store's list", () =>
    Effect.gen(function*() {
      const store = yield* openPg("a")
      const other = yield* openPg("a") // another process (a second machine) on the same schema
      const fresh = () => Effect.scoped(Effect.flatMap(openPg("a"), (s) => s.catalog.listSessions()))
      yield* store.append(keyOf(ids[0]!), turn(ids[0]!, "first", "2026-11-01T10:00:00.000Z"))
      yield* store.append(keyOf(ids[1]!), turn(ids[1]!, "second", "2026-11-02T10:00:00.000Z"))
      const first = yield* store.catalog.listSessions()
      expect(first.map((s) => s.sessionId)).toEqual([ids[1], ids[0]])
      expect(yield* store.catalog.listSessions()).toEqual(first)

      // an append by another process: more entries, a new last prompt
      yield* other.append(keyOf(ids[0]!), turn(ids[0]!, "later", "2026-11-03T10:00:00.000Z"))
      const appended = yield* store.catalog.listSessions()
      expect(appended.map((s) => s.sessionId)).toEqual([ids[0], ids[1]])
      expect(appended[0]!.entries).toBe(4)
      expect(appended[0]!.lastPrompt).toBe("later")
      expect(appended).toEqual(yield* fresh())

      // a new session by the other process
      yield* other.append(keyOf(ids[2]!), turn(ids[2]!, "third", "2026-11-04T10:00:00.000Z"))
      expect((yield* store.catalog.listSessions()).map((s) => s.sessionId)).toEqual([ids[2], ids[0], ids[1]])

      // a delete (by the other process), then retention, which does not move the clock
      yield* other.delete(keyOf(ids[2]!))
      expect((yield* store.catalog.listSessions()).map((s) => s.sessionId)).toEqual([ids[0], ids[1]])
      const before = yield* store.catalog.clock()
      yield* other.deleteOlderThan(Date.now() + 60_000, { projectKey: PROJECT })
      expect(yield* store.catalog.clock()).toBe(before)
      expect(yield* store.catalog.listSessions()).toEqual([])
      expect(yield* fresh()).toEqual([])
    }))

  it.scoped("a filtered read is never answered from the whole list", () =>
    Effect.gen(function*() {
      const store = yield* openPg("b")
      yield* store.append(keyOf(ids[0]!), turn(ids[0]!, "first", "2026-11-01T10:00:00.000Z"))
      yield* store.append(keyOf(ids[1]!), turn(ids[1]!, "second", "2026-11-02T10:00:00.000Z"))
      expect(yield* store.catalog.listSessions()).toHaveLength(2)
      expect((yield* store.catalog.listSessions({ sessionId: ids[0]! })).map((s) => s.sessionId)).toEqual([ids[0]])
      expect(yield* store.catalog.listSessions({ projectKey: "-elsewhere" })).toEqual([])
    }))
})

describe("StoreCatalogSql.listDigest", () => {
  const row = FastCheck.record({
    projectKey: FastCheck.string({ unit: "binary", maxLength: 12 }),
    sessionId: FastCheck.string({ unit: "grapheme", maxLength: 12 }),
    mtime: FastCheck.nat(),
    entries: FastCheck.nat()
  })
  it("does not depend on the list's order, and a changed row changes it", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.array(row, { minLength: 1, maxLength: 20 }), FastCheck.nat(), (rows, i) => {
        const digest = StoreCatalogSql.listDigest(rows)
        expect(StoreCatalogSql.listDigest([...rows].reverse())).toBe(digest)
        const changed = rows.map((r, j) => j === i % rows.length ? { ...r, mtime: r.mtime + 1 } : r)
        expect(StoreCatalogSql.listDigest(changed)).not.toBe(digest)
        expect(StoreCatalogSql.listDigest(rows.slice(1))).not.toBe(digest)
      })
    )
    // lengths before the texts: the separators inside keys cannot make two lists one
    expect(StoreCatalogSql.listDigest([{ projectKey: "a:1", sessionId: "b", mtime: 1, entries: 1 }])).not.toBe(
      StoreCatalogSql.listDigest([{ projectKey: "a", sessionId: "1:b", mtime: 1, entries: 1 }])
    )
  })
})

describe.skipIf(PG_URL === undefined)("the list digest computed in Postgres", () => {
  it.scoped("is the digest of the catalog's list, for any keys; moves with an append and a delete", () =>
    Effect.gen(function*() {
      const schema = `${SCHEMA}_d`
      const store = yield* openPg("d")
      const client = new pg.Client({ connectionString: PG_URL })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
      const inPostgres = () =>
        Effect.promise(() => client.query(StoreCatalogSql.postgresListDigest(schema))).pipe(
          Effect.map(({ rows: [row] }) => ({ ...row, behind: Number(row.behind) }))
        )
      expect(yield* inPostgres()).toEqual({
        version: StoreCatalogSql.POSTGRES_SCHEMA_VERSION,
        behind: 0,
        digest: StoreCatalogSql.listDigest([])
      })
      // keys a collation would order differently than bytes, with separators and astral characters
      const keys = [
        { projectKey: "-home-dév-app", sessionId: "Zeta" },
        { projectKey: "-home-dev-app", sessionId: "alpha:1/2" },
        { projectKey: "-home-dev-app", sessionId: "é😀" },
        { projectKey: "-HOME-a:b/c", sessionId: "x" }
      ]
      for (const [i, key] of keys.entries()) {
        yield* store.append(key, turn(key.sessionId, `prompt ${i}`, `2026-11-0${i + 1}T10:00:00.000Z`))
      }
      // not derived yet: the reader must not answer from the derived rows
      expect((yield* inPostgres()).behind).toBeGreaterThan(0)
      const listed = yield* store.catalog.listSessions()
      expect(listed).toHaveLength(keys.length)
      const digest = (yield* inPostgres()).digest
      expect(digest).toBe(StoreCatalogSql.listDigest(listed))
      yield* store.append(keys[1]!, turn(keys[1]!.sessionId, "later", "2026-11-09T10:00:00.000Z"))
      yield* store.catalog.listSessions()
      const appended = (yield* inPostgres()).digest
      expect(appended).not.toBe(digest)
      expect(appended).toBe(StoreCatalogSql.listDigest(yield* store.catalog.listSessions()))
      yield* store.delete(keys[0]!)
      expect((yield* inPostgres()).digest).toBe(StoreCatalogSql.listDigest(yield* store.catalog.listSessions()))
      expect((yield* store.catalog.listSessions()).length).toBe(keys.length - 1)

      // the origins' digest, as a report grouped by them keys it
      const origins = SessionOrigins.originsOf(store)!
      const withOrigins = () =>
        Effect.promise(() => client.query(StoreCatalogSql.postgresListDigest(schema, { origins: true }))).pipe(
          Effect.map(({ rows: [row] }) => row.origins as string)
        )
      const inProcess = () =>
        Effect.map(origins.listOrigins(), (rows) =>
          StoreCatalogSql.originsDigest(
            rows.map((row) => [SessionOrigins.originKey(row), row] as const)
          ))
      expect(yield* withOrigins()).toBe(StoreCatalogSql.originsDigest([]))
      yield* origins.recordOrigins(
        keys.map((key, i) => ({ ...key, machine: `m:${i}`, user: "dév", project: i === 0 ? "/a:b" : "github.com/o/r" }))
      )
      const recorded = yield* withOrigins()
      expect(recorded).toBe(yield* inProcess())
      expect(recorded).not.toBe(StoreCatalogSql.originsDigest([]))
      yield* Effect.promise(() =>
        client.query(`UPDATE ${schema}.acx_session_origin SET machine = 'm:9' WHERE machine = 'm:1'`)
      )
      expect(yield* withOrigins()).not.toBe(recorded)
      expect(yield* withOrigins()).toBe(yield* inProcess())
    }))
})

interface Backend {
  readonly name: string
  readonly skip: boolean
  readonly open: () => Effect.Effect<Store, SessionStore.SessionStoreError, Scope.Scope>
}

const backends: ReadonlyArray<Backend> = [
  {
    name: "SQLite",
    skip: false,
    open: () => SqliteSessionStore.make({ filename: path.join(root, "sessions.sqlite") })
  },
  { name: "Postgres", skip: PG_URL === undefined, open: () => openPg("c") }
]

for (const backend of backends) {
  describe.skipIf(backend.skip)(`the sessions filters on ${backend.name}`, () => {
    it.scoped("listSessions({ sessions }) and listOrigins(_, sessions) read the named sessions only", () =>
      Effect.gen(function*() {
        const store = yield* backend.open()
        for (const [i, id] of ids.entries()) {
          yield* store.append(keyOf(id), turn(id, `prompt ${i}`, `2026-11-0${i + 1}T10:00:00.000Z`))
        }
        const named = [keyOf(ids[0]!), keyOf(ids[2]!), keyOf(randomUUID()), { projectKey: "-x", sessionId: ids[1]! }]
        const listed = yield* store.catalog.listSessions({ sessions: named })
        expect(listed.map((s) => s.sessionId)).toEqual([ids[2], ids[0]])
        expect(listed).toEqual((yield* store.catalog.listSessions()).filter((s) => s.sessionId !== ids[1]))
        expect(yield* store.catalog.listSessions({ sessions: [] })).toEqual([])

        const origins = SessionOrigins.originsOf(store)!
        yield* origins.recordOrigins(
          ids.map((id) => ({ ...keyOf(id), machine: "m01", user: "dev", project: "github.com/org/app" }))
        )
        const found = yield* origins.listOrigins(undefined, named)
        expect(found.map((o) => o.sessionId).sort()).toEqual([ids[0], ids[2]].sort())
        expect(yield* origins.listOrigins(PROJECT, [])).toEqual([])
        expect(yield* origins.listOrigins()).toHaveLength(3)
      }))
  })
}
