/**
 * The Postgres store's clock announced (migration 6 and `StoreCatalog.changes`), on a server of
 * this file's own (an embedded Postgres it stops and starts again):
 * - another store's append (another pool, as another process would) is `changed` to a listener;
 *   so is the SDK-shaped store's (`createPostgresSessionStore`), and a delete;
 * - a store in another schema is not heard;
 * - the server going away is `lost` once, its return `changed` (the listener reconnects without
 *   being asked, and says so), and the appends after it are heard again;
 * - the listener's connection closes with the scope that consumed it.
 */
import { startEmbeddedPostgres } from "@acx/fixtures/postgres"
import * as Pg from "@acx/session-store/PostgresSessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import pg from "pg"

let server: Awaited<ReturnType<typeof startEmbeddedPostgres>>
beforeAll(async () => {
  // beside the run's private TMPDIR, which the server's user (as root: nobody) cannot reach
  server = await startEmbeddedPostgres()
}, 120_000)
afterAll(() => server?.stop(), 60_000)

const entry = (n: number) => ({
  type: "user",
  uuid: `u-${n}-${randomUUID()}`,
  message: { role: "user", content: `${n}` }
})

// a store in `schema`, its catalog's `changes` read into a queue while the scope lasts
const listening = (schema: string) =>
  Effect.gen(function*() {
    const store = yield* Pg.make({ url: Redacted.make(server.url), schema })
    const changes = StoreCatalog.catalogOf(store)!.changes
    expect(changes).toBeDefined()
    const queue = yield* Queue.unbounded<"changed" | "lost">()
    yield* Stream.runForEach(changes!, (signal) => Queue.offer(queue, signal)).pipe(Effect.forkScoped)
    // the first `changed`: it is listening
    expect(yield* Queue.take(queue)).toBe("changed")
    return { store, queue }
  })

// the next signal that is not `changed` of a write that happened earlier
const next = <A>(queue: Queue.Queue<A>) => Queue.take(queue).pipe(Effect.timeout("20 seconds"))

describe("Postgres store clock notifications", () => {
  it.scoped("another writer's append and delete are heard; another schema's are not", () =>
    Effect.gen(function*() {
      const schema = `notify_${randomUUID().slice(0, 8)}`
      const { queue } = yield* listening(schema)
      const writer = yield* Pg.make({ url: Redacted.make(server.url), schema })
      const other = yield* Pg.make({ url: Redacted.make(server.url), schema: `${schema}_other` })
      yield* other.append({ projectKey: "p", sessionId: "s0" }, [entry(0)])
      yield* writer.append({ projectKey: "p", sessionId: "s1" }, [entry(1)])
      expect(yield* next(queue)).toBe("changed")
      // the other schema's append came first: had it been heard, it would be in the queue now
      expect(yield* Queue.size(queue)).toBe(0)
      yield* writer.delete({ projectKey: "p", sessionId: "s1" })
      expect(yield* next(queue)).toBe("changed")
      const sdk = Pg.createPostgresSessionStore({ url: server.url, schema })
      yield* Effect.promise(() => sdk.append({ projectKey: "p", sessionId: "s2" }, [entry(2)]))
      yield* Effect.promise(() => sdk.close())
      expect(yield* next(queue)).toBe("changed")
    }), 60_000)

  it.scoped("a server restart is lost once, then heard again without being asked", () =>
    Effect.gen(function*() {
      const schema = `restart_${randomUUID().slice(0, 8)}`
      const { queue } = yield* listening(schema)
      yield* Effect.promise(() => server.stopServer())
      expect(yield* next(queue)).toBe("lost")
      yield* Effect.promise(() => server.startServer())
      // listening again: it says so, as it may have missed notifications
      expect(yield* next(queue)).toBe("changed")
      // a writer after the restart (a fresh pool: the old one's connections died with the server)
      const writer = yield* Pg.make({ url: Redacted.make(server.url), schema })
      yield* writer.append({ projectKey: "p", sessionId: "s3" }, [entry(3)])
      expect(yield* next(queue)).toBe("changed")
      // every attempt while the server was down made no second `lost`
      const rest = yield* Queue.takeAll(queue)
      expect([...rest].filter((signal) => signal === "lost")).toEqual([])
    }), 90_000)

  it("the listener's connection closes with its scope", async () => {
    const schema = `scope_${randomUUID().slice(0, 8)}`
    const listeners = async () => {
      const client = new pg.Client({ connectionString: server.url })
      await client.connect()
      try {
        const result = await client.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1",
          [`LISTEN "acx_clock_${schema}"`]
        )
        return (result.rows[0] as { n: number }).n
      } finally {
        await client.end()
      }
    }
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* listening(schema)
      expect(yield* Effect.promise(listeners)).toBe(1)
    })))
    let left = await listeners()
    for (let i = 0; i < 100 && left > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      left = await listeners()
    }
    expect(left).toBe(0)
  }, 60_000)
})
