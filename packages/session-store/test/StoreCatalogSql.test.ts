/**
 * The SQLite catalog's reads as plain data (`StoreCatalogSql`), which a reader without Effect runs
 * with better-sqlite3 (the CLI's fast read path): `SCHEMA_VERSION` is the store's last migration,
 * `READINESS` says "behind" exactly while some appended entry is not derived yet, and the listing
 * statement with the row mapping gives what `catalog.listSessions` gives, filters included.
 */
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const entry = (n: number, sessionId: string) => ({
  type: "user",
  uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
  sessionId,
  message: { role: "user", content: `prompt ${n}` }
})

describe("StoreCatalogSql", () => {
  it.scoped("readiness follows the watermark; the listing statement lists what the catalog lists", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-catalog-sql-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const filename = path.join(dir, "s.db")
      const store = yield* SqliteSessionStore.make({ filename })
      const readiness = () => {
        const db = new Database(filename, { readonly: true })
        try {
          return db.prepare(StoreCatalogSql.READINESS).get()
        } finally {
          db.close()
        }
      }
      expect(readiness()).toEqual({ version: StoreCatalogSql.SCHEMA_VERSION, behind: 0 })
      yield* store.append({ projectKey: "-a", sessionId: "s1" }, [entry(1, "s1"), entry(2, "s1")])
      yield* store.append({ projectKey: "-b", sessionId: "s2" }, [entry(3, "s2")])
      yield* store.append({ projectKey: "-b", sessionId: "s2", subpath: "subagents/agent-x" }, [entry(4, "s2")])
      expect(readiness()).toEqual({ version: StoreCatalogSql.SCHEMA_VERSION, behind: 1 })
      const listed = yield* store.catalog.listSessions()
      expect(readiness()).toEqual({ version: StoreCatalogSql.SCHEMA_VERSION, behind: 0 })
      const read = (filter: StoreCatalog.SessionFilter) => {
        const db = new Database(filename, { readonly: true })
        try {
          const statement = StoreCatalogSql.listSessions(filter)
          return (db.prepare(statement.sql).all(...statement.params) as Array<StoreCatalogSql.MetaRow>)
            .map(StoreCatalogSql.storedSessionOf).sort(StoreCatalog.byLastActivity)
        } finally {
          db.close()
        }
      }
      expect(read({})).toEqual(listed)
      expect(listed.map((session) => session.sessionId)).toEqual(["s2", "s1"])
      for (
        const filter of [{ projectKey: "-b" }, { sessionId: "s1" }, { since: Date.UTC(2026, 0, 1, 0, 2) }, {
          projectKey: "-a",
          sessionId: "s2"
        }]
      ) {
        expect(read(filter), JSON.stringify(filter)).toEqual(yield* store.catalog.listSessions(filter))
      }
    }))
})
