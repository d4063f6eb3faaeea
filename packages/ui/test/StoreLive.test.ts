/**
 * A session followed over a store (`acx ui --from`): an append at any point of the follow's start
 * reaches the page. The store's reads are counted from the moment the page connects, and an
 * append runs just before the `at`-th of them, for each `at` in turn: before the first look,
 * between the look and the clock's start, during the polls after. The store announces nothing
 * and has no file to watch, so only a clock move (read every 500 ms) can bring a late append.
 */
import * as Pricing from "@acx/convert/Pricing"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it, vi } from "vitest"
import * as LiveTranscripts from "../src/internal/liveTranscripts.js"
import { storeSource } from "../src/internal/storeTranscripts.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-store-live-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const prompt = (uuid: string) => ({
  type: "user",
  uuid,
  timestamp: "2026-03-01T10:00:00.000Z",
  cwd: "/home/dev/live",
  message: { role: "user", content: `prompt ${uuid}` }
})

type Store = SessionStore.SessionStore & StoreCatalog.WithCatalog

/** `store` with `before` run ahead of each read the page's source makes. */
const counted = (store: Store, before: Effect.Effect<void>): Store => ({
  ...store,
  load: (key) => Effect.zipRight(before, store.load(key)),
  catalog: {
    ...store.catalog,
    clock: () => Effect.zipRight(before, store.catalog.clock()),
    listSessions: (query) => Effect.zipRight(before, store.catalog.listSessions(query))
  }
})

describe("a session followed over a store", () => {
  it("shows an entry appended at any point of the follow's start", async () => {
    const reached: Array<number> = []
    for (let at = 0; at < 10; at++) {
      const key = { projectKey: "-home-dev-live", sessionId: `00000000-0000-4000-8000-00000000000${at}` }
      const keys = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const store = yield* SqliteSessionStore.make({ filename: path.join(root, `store-${at}.db`) })
        yield* store.append(key, [prompt("a")])
        let reads: number | undefined
        const before = Effect.suspend(() => {
          if (reads === undefined || reads++ !== at) return Effect.void
          reached.push(at)
          return Effect.orDie(store.append(key, [prompt("b")]))
        })
        const source = yield* storeSource({ store: counted(store, before), location: "test", acxHome: root })
        const live = yield* LiveTranscripts.make(source, { backlog: 4 })
        let text = ""
        const decoder = new TextDecoder()
        reads = 0
        const fiber = yield* live.events({ ...key, file: "" }, 0, true, Pricing.builtinPricing).pipe(
          Stream.runForEach((bytes) => Effect.sync(() => (text += decoder.decode(bytes, { stream: true })))),
          Effect.fork
        )
        const seen = () => [...text.matchAll(/"key":"([ab])"/g)].map((match) => match[1])
        // the polls read the clock every 500 ms: 30 of them, for a move that will never come
        yield* Effect.promise(() =>
          vi.waitFor(() => expect({ at, keys: seen() }).toEqual({ at, keys: ["a", "b"] }), { timeout: 15_000 })
        )
        yield* Fiber.interrupt(fiber)
        return seen()
      })))
      expect(keys).toEqual(["a", "b"])
    }
    expect(reached).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })
})
