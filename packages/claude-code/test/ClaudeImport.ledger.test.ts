/**
 * The import ledger: an import into SQLite or Postgres reads only what was appended since the
 * last one, leaves a torn last line for the next, tells a rewritten file from a grown one, says
 * which files had lines it could not take, and two imports of the same source at the same time
 * store every entry once (uuid-less ones included). Concurrent processes are tested with the CLI
 * (packages/cli/test/cli.import.test.ts); here two Postgres stores race in one process, which the
 * driver's asynchronous connections allow.
 */
import { importClaudeDir, type ImportResult } from "@acx/claude-code/ClaudeImport"
import * as ImportLedger from "@acx/session-store/ImportLedger"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-import-ledger-"))
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }))

const PG_URL = process.env.ACX_PG_URL

const PROJECT = "-home-dev-app"
const SESSION = "7d2c3f4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
const KEY: SessionStore.SessionKey = { projectKey: PROJECT, sessionId: SESSION }

const user = (n: number) => ({
  type: "user",
  uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  sessionId: SESSION,
  message: { role: "user", content: `prompt ${n}` }
})
// uuid-less: only the ledger keeps these from being stored twice by racing imports
const snapshot = (n: number) => ({ type: "file-history-snapshot", messageId: `m${n}`, snapshot: { n } })

const lines = (entries: ReadonlyArray<unknown>) => entries.map((e) => JSON.stringify(e) + "\n").join("")

const configDir = (name: string, content: string | Uint8Array) => {
  const dir = path.join(tempDir, name)
  fs.mkdirSync(path.join(dir, "projects", PROJECT), { recursive: true })
  const file = path.join(dir, "projects", PROJECT, `${SESSION}.jsonl`)
  fs.writeFileSync(file, content)
  return { dir, file }
}

const runImport = (
  store: SessionStore.SessionStore,
  dir: string,
  batchSize = 3
): Effect.Effect<ImportResult, unknown> =>
  importClaudeDir({ from: { configDir: dir }, to: store, batchSize }).pipe(Effect.provide(NodeContext.layer))

const withSqlite = <A>(
  body: (store: ImportLedger.SessionStoreWithLedger) => Effect.Effect<A, unknown, Scope.Scope>
): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* SqliteSessionStore.make({ filename: path.join(tempDir, `${randomUUID()}.sqlite`) })
    return yield* body(store)
  })))

const bumpMtime = (file: string) => {
  const later = new Date(fs.statSync(file).mtimeMs + 5_000)
  fs.utimesSync(file, later, later)
}

describe("importClaudeDir with an import ledger", () => {
  it("reads only what was appended, and nothing when nothing changed", () =>
    withSqlite((store) =>
      Effect.gen(function*() {
        const first = [user(1), snapshot(1), user(2), snapshot(2), user(3)]
        const { dir, file } = configDir("grow", lines(first))
        const a = yield* runImport(store, dir)
        expect(a).toMatchObject({ entries: 5, filesRead: 1, filesUnchanged: 0 })
        expect(a.bytesRead).toBe(fs.statSync(file).size)

        const unchanged = yield* runImport(store, dir)
        expect(unchanged).toMatchObject({ entries: 0, filesRead: 0, filesUnchanged: 1, bytesRead: 0 })

        const added = lines([snapshot(1), user(4)]) // an equal snapshot again: the transcript's own line
        fs.appendFileSync(file, added)
        bumpMtime(file)
        const b = yield* runImport(store, dir)
        expect(b).toMatchObject({ entries: 2, filesRead: 1, bytesRead: Buffer.byteLength(added) })
        expect(yield* store.load(KEY)).toEqual([...first, snapshot(1), user(4)])
        const records = yield* store.importedFiles(fs.realpathSync(path.join(dir, "projects")))
        expect(records).toEqual([expect.objectContaining({
          file: `${PROJECT}/${SESSION}.jsonl`,
          offset: fs.statSync(file).size,
          size: fs.statSync(file).size
        })])
      })
    ))

  it("carries on where an import that stopped mid-file left off", () =>
    withSqlite((store) =>
      Effect.gen(function*() {
        const entries = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? user(i) : snapshot(i)))
        const { dir } = configDir("stopped", lines(entries))
        let batches = 0
        const failing: ImportLedger.SessionStoreWithLedger = {
          ...store,
          appendImported: (key, batch, advance) =>
            ++batches === 3 ? Effect.die("stopped") : store.appendImported(key, batch, advance)
        }
        const stopped = yield* Effect.exit(runImport(failing, dir))
        expect(stopped._tag).toBe("Failure")
        expect((yield* store.load(KEY))?.length).toBe(6)
        const resumed = yield* runImport(store, dir)
        expect(resumed).toMatchObject({ entries: 14 })
        expect(yield* store.load(KEY)).toEqual(entries)
      })
    ))

  it("leaves a torn last line for the next import, and takes it once it is whole", () =>
    withSqlite((store) =>
      Effect.gen(function*() {
        const whole = JSON.stringify(user(2))
        const { dir, file } = configDir("torn", lines([user(1)]) + whole.slice(0, 20))
        const a = yield* runImport(store, dir)
        // incomplete, not malformed: the next import takes it
        expect(a).toMatchObject({ entries: 1, skippedLines: 0 })
        expect(a.warnings).toEqual([{
          file: `${PROJECT}/${SESSION}.jsonl`,
          malformedLines: 0,
          invalidUtf8Lines: 0,
          firstOffset: -1,
          incompleteAt: Buffer.byteLength(lines([user(1)]))
        }])
        fs.appendFileSync(file, whole.slice(20) + "\n")
        bumpMtime(file)
        const b = yield* runImport(store, dir)
        expect(b).toMatchObject({ entries: 1, skippedLines: 0, warnings: [] })
        expect(yield* store.load(KEY)).toEqual([user(1), user(2)])
      })
    ))

  it("reads a file rewritten in place from the start, storing nothing twice", () =>
    withSqlite((store) =>
      Effect.gen(function*() {
        const { dir, file } = configDir("rewrite", lines([user(1), snapshot(1), user(2)]))
        yield* runImport(store, dir)
        // same length, different bytes before the recorded offset: not a file that grew
        fs.writeFileSync(file, lines([user(1), snapshot(1), user(2)]).replace("prompt 1", "prompt 9"))
        fs.appendFileSync(file, lines([snapshot(3), user(5)]))
        bumpMtime(file)
        const b = yield* runImport(store, dir)
        expect(b.bytesRead).toBe(fs.statSync(file).size)
        // user(1)'s uuid is stored already (the store keeps the first), snapshot(1) is equal to a
        // stored one, the rest is new
        expect(yield* store.load(KEY)).toEqual([user(1), snapshot(1), user(2), snapshot(3), user(5)])
      })
    ))

  it("keeps a line that is not UTF-8 (U+FFFD in place of the bad bytes) and says where it is", () =>
    withSqlite((store) =>
      Effect.gen(function*() {
        const head = Buffer.from(lines([user(1)]))
        const bad = Buffer.concat([
          Buffer.from(`{"type":"user","uuid":"bad-utf8","message":{"role":"user","content":"caf`),
          Buffer.from([0xe9]),
          Buffer.from(`"}}\n`)
        ])
        const { dir } = configDir("latin1", Buffer.concat([head, bad, Buffer.from("not json\n")]))
        const a = yield* runImport(store, dir)
        expect(a.warnings).toEqual([{
          file: `${PROJECT}/${SESSION}.jsonl`,
          malformedLines: 1,
          invalidUtf8Lines: 1,
          firstOffset: head.length
        }])
        const stored = (yield* store.load(KEY))!
        expect(stored[1]).toEqual({ type: "user", uuid: "bad-utf8", message: { role: "user", content: "caf\uFFFD" } })
      })
    ))

  it.skipIf(PG_URL === undefined)(
    "two imports racing into Postgres store every entry once, uuid-less ones included",
    async () => {
      const schema = `acx_ledger_${randomUUID().replace(/-/g, "").slice(0, 12)}`
      const entries = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? user(i) : snapshot(i)))
      const { dir } = configDir("race", lines(entries))
      const open = PostgresSessionStore.make({ url: Redacted.make(PG_URL!), schema })
      try {
        await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const a = yield* open
          const b = yield* open
          const [ra, rb] = yield* Effect.all([runImport(a, dir, 7), runImport(b, dir, 11)], {
            concurrency: "unbounded"
          })
          // each entry read by one import or the other (a batch that lost the race is read again)
          expect(ra.entries + rb.entries).toBeGreaterThanOrEqual(entries.length)
          expect(ra.entries + rb.entries).toBeLessThan(2 * entries.length)
          expect((yield* a.load(KEY))?.length).toBe(entries.length)
          expect(yield* a.load(KEY)).toEqual(entries)
          const again = yield* runImport(b, dir)
          expect(again).toMatchObject({ entries: 0, filesUnchanged: 1 })
        })))
      } finally {
        const { default: pg } = await import("pg")
        const client = new pg.Client({ connectionString: PG_URL })
        await client.connect()
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
        await client.end()
      }
    },
    60_000
  )

  it("ledgerOf finds the ledger of the SQLite store and none on a plain store", () =>
    withSqlite((store) =>
      Effect.sync(() => {
        expect(ImportLedger.ledgerOf(store)).toBeDefined()
        const { appendImported: _a, importedFiles: _i, ...plain } = store
        expect(ImportLedger.ledgerOf(plain)).toBeUndefined()
      })
    ))
})
