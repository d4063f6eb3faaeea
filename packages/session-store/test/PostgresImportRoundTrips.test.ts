/**
 * `appendImported` on Postgres in few round trips: every statement the client sends goes through
 * a TCP proxy on 127.0.0.1 that counts the protocol's Sync and Query messages (one each per
 * statement), so an import's batch is seen to cost 6 statements (begin, the clock's lock, the
 * claim with the file's record, the rows with the tick, the key and the previous summary, the
 * summary with the record, commit), not the 13 it took when it went through `append`; a batch
 * over one INSERT's rows adds one statement per further chunk. What it stores is what `append`
 * stores: the same rows, key and summary.
 */
import { dropSchema } from "@acx/fixtures/postgresTools"
import * as ImportLedger from "@acx/session-store/ImportLedger"
import * as Pg from "@acx/session-store/PostgresSessionStore"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as net from "node:net"
import { afterAll, describe, expect, it } from "vitest"

const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_pg_trips_${process.pid}_${randomUUID().slice(0, 8)}`

afterAll(async () => {
  if (PG_URL !== undefined) await dropSchema(PG_URL, SCHEMA)
})

const SYNC = 0x53
const QUERY = 0x51
const PROTOCOL_3 = 196608

/**
 * A proxy to the server counting the statements clients send: a frontend message is a type byte
 * and a length (after the untyped startup messages); each statement ends with a Sync (extended
 * protocol) or is one Query (simple protocol).
 */
const countingProxy = async (target: URL) => {
  const counter = { statements: 0 }
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    let started = false
    let pending = Buffer.alloc(0)
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk)
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        if (!started) {
          if (pending.length < 8) break
          const length = pending.readInt32BE(0)
          if (pending.length < length) break
          if (pending.readInt32BE(4) === PROTOCOL_3) started = true
          pending = pending.subarray(length)
        } else {
          if (pending.length < 5) break
          const length = pending.readInt32BE(1) + 1
          if (pending.length < length) break
          if (pending[0] === SYNC || pending[0] === QUERY) counter.statements++
          pending = pending.subarray(length)
        }
      }
    })
    upstream.on("data", (chunk: Buffer) => client.write(chunk))
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = new URL(target.href)
  url.port = String((server.address() as net.AddressInfo).port)
  return { counter, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const BATCHES = 10
const entriesOf = (sessionId: string, batch: number) =>
  Array.from({ length: 30 }, (_, i): SessionStore.SessionStoreEntry => ({
    type: i % 2 === 0 ? "user" : "assistant",
    uuid: `${sessionId}-${batch}-${i}`,
    sessionId,
    timestamp: new Date(Date.UTC(2026, 10, 1, 10, batch, i)).toISOString(),
    message: { role: i % 2 === 0 ? "user" : "assistant", content: `batch ${batch} line ${i}` }
  }))

describe.skipIf(!PG_URL)("PostgresSessionStore: an imported batch's round trips", () => {
  it("stores a batch and its file's record in 6 statements, the same rows and summary as append", async () => {
    const proxy = await countingProxy(new URL(PG_URL!))
    try {
      await Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        const ledger = ImportLedger.ledgerOf(store)!
        const projectKey = `p-${randomUUID()}`
        const imported = { projectKey, sessionId: randomUUID() }
        const appended = { projectKey, sessionId: randomUUID() }
        const sub = { ...imported, subpath: "subagents/agent-a1" }
        // the fold's SDK loaded and the connection opened before counting
        yield* store.append({ projectKey, sessionId: randomUUID() }, entriesOf("warm", 0))
        for (const key of [imported, sub] as ReadonlyArray<SessionStore.SessionKey>) {
          let expected: ImportLedger.ImportedFile | null = null
          const before = proxy.counter.statements
          for (let batch = 0; batch < BATCHES; batch++) {
            const next: ImportLedger.ImportedFile = {
              file: `${key.sessionId}${key.subpath ?? ""}.jsonl`,
              size: (batch + 1) * 100,
              mtimeMs: 1,
              offset: (batch + 1) * 100,
              fingerprint: `f${batch}`
            }
            const stored = yield* ledger.appendImported(key, entriesOf(key.sessionId, batch), {
              source: "/src",
              expected,
              next
            })
            expect(stored).toBe(true)
            expected = next
          }
          expect((proxy.counter.statements - before) / BATCHES).toBe(6)
        }
        // a record that moved meanwhile: nothing stored
        expect(
          yield* ledger.appendImported(imported, entriesOf(imported.sessionId, 99), {
            source: "/src",
            expected: null,
            next: { file: `${imported.sessionId}.jsonl`, size: 1, mtimeMs: 1, offset: 1, fingerprint: "x" }
          })
        ).toBe(false)
        for (let batch = 0; batch < BATCHES; batch++) {
          yield* store.append(appended, entriesOf(imported.sessionId, batch))
        }
        // the same rows and summary as `append`
        const rows = yield* store.load(imported)
        expect(rows).toEqual(yield* store.load(appended))
        expect(rows).toHaveLength(BATCHES * 30)
        expect(yield* store.load(sub)).toEqual(
          Array.from({ length: BATCHES }, (_, batch) => entriesOf(sub.sessionId, batch)).flat()
        )
        const summaries = yield* store.listSessionSummaries(projectKey)
        const summaryOf = (sessionId: string) => summaries.find((summary) => summary.sessionId === sessionId)?.data
        expect(summaryOf(imported.sessionId)).toBeDefined()
        expect(summaryOf(imported.sessionId)).toEqual(summaryOf(appended.sessionId))
        expect((yield* ledger.importedFiles("/src")).map((record) => record.fingerprint)).toEqual(["f9", "f9"])

        // over one INSERT's rows, uuids repeated within the batch and stored before: as `append`
        const big = Array.from({ length: 45 }, (_, batch) => entriesOf("big", batch)).flat()
        const repeated = [...big.slice(0, 2100), ...big.slice(0, 10), ...big.slice(2100)]
        const again = [...big.slice(1000, 1100), ...entriesOf("big", 99)]
        const bigImported = { projectKey, sessionId: randomUUID() }
        const bigAppended = { projectKey, sessionId: randomUUID() }
        let record: ImportLedger.ImportedFile | null = null
        for (const [i, batch] of [repeated, again].entries()) {
          const next = {
            file: `${bigImported.sessionId}.jsonl`,
            size: i + 1,
            mtimeMs: 1,
            offset: i + 1,
            fingerprint: `b${i}`
          }
          expect(yield* ledger.appendImported(bigImported, batch, { source: "/src", expected: record, next })).toBe(
            true
          )
          record = next
          yield* store.append(bigAppended, batch)
        }
        const bigRows = yield* store.load(bigImported)
        expect(bigRows).toHaveLength(big.length + 30)
        expect(bigRows).toEqual(yield* store.load(bigAppended))
        const after = yield* store.listSessionSummaries(projectKey)
        const dataOf = (sessionId: string) => after.find((summary) => summary.sessionId === sessionId)?.data
        expect(dataOf(bigImported.sessionId)).toEqual(dataOf(bigAppended.sessionId))
      }).pipe(
        Effect.provide(Pg.layer({ url: Redacted.make(proxy.url.href), schema: SCHEMA })),
        Effect.runPromise
      )
    } finally {
      await proxy.close()
    }
  }, 60_000)
})
