/**
 * The SQLite `SessionStore` adapter: every contract point of `SessionStore.ts`, through the
 * Effect API (`SqliteSessionStore.make`) and the Promise store (`createSqliteSessionStore`);
 * cross-process uuid idempotency and ordering with four worker processes; and the SDK's own
 * `importSessionToStore` / `getSessionMessages` on top of the store.
 */
import * as Fixtures from "@acx/fixtures"
import { bundleWorker } from "@acx/fixtures/workerBundle"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import { makeReadOnly, probeReadOnly } from "@acx/testing/ReadOnlyPath"
import { expectInterleavedAppends, runAppendWorkers } from "@acx/testing/SessionStoreConcurrency"
import {
  foldSessionSummary,
  getSessionMessages,
  importSessionToStore,
  InMemorySessionStore
} from "@anthropic-ai/claude-agent-sdk"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sqlite-session-store-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let counter = 0
const tempFile = (): string => path.join(root, `store-${process.pid}-${++counter}.sqlite`)

/** The Promise shape both APIs are exercised through. */
type Store = SessionStore.SdkSessionStore

/** The Effect service from `make`, run directly (not through `toSdk`), rejecting with the typed error. */
const effectStore = async (filename: string): Promise<Store> => {
  const scope = Effect.runSync(Scope.make())
  const service = await run(Scope.extend(SqliteSessionStore.make({ filename }), scope))
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  return {
    append: (key, entries) => run(service.append(key, entries as Array<SessionStore.SessionStoreEntry>)),
    load: (key) => run(service.load(key)) as Promise<Array<Sdk.SessionStoreEntry> | null>,
    listSessions: (projectKey) => run(service.listSessions(projectKey)),
    listSessionSummaries: (projectKey) =>
      run(service.listSessionSummaries(projectKey)) as Promise<Array<Sdk.SessionSummaryEntry>>,
    delete: (key) => run(service.delete(key)),
    listSubkeys: (key) => run(service.listSubkeys(key)),
    deleteOlderThan: (cutoff, options) => run(service.deleteOlderThan(cutoff, options)),
    close,
    [Symbol.asyncDispose]: close
  }
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) =>
    Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))
  )

const apis: ReadonlyArray<readonly [string, (filename: string) => Promise<Store>]> = [
  ["Effect API", effectStore],
  ["Promise API", (filename) => Promise.resolve(SqliteSessionStore.createSqliteSessionStore({ filename }))]
]

const key = (sessionId = "s1", projectKey = "p1"): Sdk.SessionKey => ({ projectKey, sessionId })
const sub = (subpath: string, sessionId = "s1", projectKey = "p1"): Sdk.SessionKey => ({
  projectKey,
  sessionId,
  subpath
})

const user = (uuid: string, text: string, extra: Record<string, unknown> = {}): Sdk.SessionStoreEntry => ({
  type: "user",
  uuid,
  timestamp: "2025-01-01T12:00:00.000Z",
  cwd: "/srv/app",
  gitBranch: "main",
  isSidechain: false,
  message: { role: "user", content: text },
  ...extra
})

const expectStoreError = async (promise: Promise<unknown>, reason: SessionStore.SessionStoreError["reason"]) => {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(SessionStore.SessionStoreError)
  expect((error as SessionStore.SessionStoreError).reason).toBe(reason)
}

for (const [api, open] of apis) {
  describe(`SqliteSessionStore (${api})`, () => {
    const withStore = (name: string, body: (store: Store, filename: string) => Promise<void>) =>
      it(name, async () => {
        const filename = tempFile()
        const store = await open(filename)
        try {
          await body(store, filename)
        } finally {
          await store.close()
        }
      })

    withStore("round-trips entries in call order", async (store) => {
      const entries = [user("u1", "one"), { type: "assistant", uuid: "a1", n: 1 }, user("u2", "two")]
      await store.append(key(), entries)
      expect(await store.load(key())).toEqual(entries)
    })

    withStore("concatenates several appends", async (store) => {
      await store.append(key(), [user("u1", "one")])
      await store.append(key(), [user("u2", "two"), user("u3", "three")])
      await store.append(key(), [{ type: "custom-title", customTitle: "T" }])
      expect((await store.load(key()))?.map((e) => e.uuid ?? e.type)).toEqual(["u1", "u2", "u3", "custom-title"])
    })

    withStore("returns null for a never-written key", async (store) => {
      expect(await store.load(key("nope"))).toBeNull()
      await store.append(key(), [user("u1", "one")])
      expect(await store.load(key("nope"))).toBeNull()
      expect(await store.load(sub("subagents/agent-x"))).toBeNull()
      expect(await store.load(key("s1", "other"))).toBeNull()
    })

    withStore("an empty append is a no-op", async (store) => {
      await store.append(key(), [])
      expect(await store.load(key())).toBeNull()
      expect(await store.listSessions("p1")).toEqual([])
      expect(await store.listSessionSummaries("p1")).toEqual([])
      await store.append(key(), [user("u1", "one")])
      const before = await store.listSessions("p1")
      const summariesBefore = await store.listSessionSummaries("p1")
      await store.append(key(), [])
      expect(await store.listSessions("p1")).toEqual(before)
      expect(await store.listSessionSummaries("p1")).toEqual(summariesBefore)
      expect(await store.load(key())).toHaveLength(1)
    })

    withStore("keeps the main transcript and subpaths independent", async (store) => {
      await store.append(key(), [user("u1", "main")])
      await store.append(sub("subagents/agent-a"), [user("u1", "sub a")])
      await store.append(sub("subagents/agent-b"), [user("u9", "sub b")])
      expect((await store.load(key()))?.map((e) => e["message"])).toEqual([{ role: "user", content: "main" }])
      expect((await store.load(sub("subagents/agent-a")))?.map((e) => e["message"])).toEqual([
        { role: "user", content: "sub a" }
      ])
      expect(await store.load(sub("subagents/agent-b"))).toHaveLength(1)
    })

    withStore("isolates project keys", async (store) => {
      await store.append(key("s1", "p1"), [user("u1", "p1")])
      await store.append(key("s1", "p2"), [user("u1", "p2"), user("u2", "p2")])
      expect(await store.load(key("s1", "p1"))).toHaveLength(1)
      expect(await store.load(key("s1", "p2"))).toHaveLength(2)
      expect((await store.listSessions("p1")).map((s) => s.sessionId)).toEqual(["s1"])
      expect((await store.listSessionSummaries("p2")).map((s) => s.sessionId)).toEqual(["s1"])
      await store.delete(key("s1", "p1"))
      expect(await store.load(key("s1", "p1"))).toBeNull()
      expect(await store.load(key("s1", "p2"))).toHaveLength(2)
      expect(await store.listSessions("p3")).toEqual([])
    })

    withStore("lists main transcripts only, with integer epoch-ms mtimes", async (store) => {
      const before = Date.now()
      await store.append(key("s1"), [user("u1", "one")])
      await store.append(key("s2"), [user("u1", "two")])
      await store.append(sub("subagents/agent-a", "s3"), [user("u1", "sub only")])
      await store.append(sub("subagents/agent-a", "s1"), [user("u2", "sub")])
      const sessions = await store.listSessions("p1")
      expect(sessions.map((s) => s.sessionId).sort()).toEqual(["s1", "s2"])
      for (const session of sessions) {
        expect(Number.isInteger(session.mtime)).toBe(true)
        expect(session.mtime).toBeGreaterThanOrEqual(before)
        expect(session.mtime).toBeLessThan(Date.now() + 1000)
      }
      expect((await store.listSessionSummaries("p1")).map((s) => s.sessionId).sort()).toEqual(["s1", "s2"])
    })

    withStore("mtime is strictly increasing across keys", async (store) => {
      const mtimes: Array<number> = []
      for (let i = 0; i < 30; i++) {
        await store.append(key(`s${i}`), [user(`u${i}`, "x")])
        if (i % 3 === 0) await store.append(sub("subagents/agent-a", `s${i}`), [user(`u${i}`, "sub")])
      }
      const sessions = new Map((await store.listSessions("p1")).map((s) => [s.sessionId, s.mtime]))
      for (let i = 0; i < 30; i++) mtimes.push(sessions.get(`s${i}`) ?? -1)
      for (let i = 1; i < mtimes.length; i++) expect(mtimes[i]!).toBeGreaterThan(mtimes[i - 1]!)
      // A subagent append does not bump the session's listed mtime.
      const s0 = sessions.get("s0")
      await store.append(sub("subagents/agent-a", "s0"), [user("later", "sub")])
      expect((await store.listSessions("p1")).find((s) => s.sessionId === "s0")?.mtime).toBe(s0)
      // Summaries share the clock.
      for (const summary of await store.listSessionSummaries("p1")) {
        expect(summary.mtime).toBe(sessions.get(summary.sessionId))
      }
    })

    withStore("delete of a main key removes its subkeys and summary", async (store) => {
      await store.append(key(), [user("u1", "one")])
      await store.append(sub("subagents/agent-a"), [user("u1", "a")])
      await store.append(sub("subagents/nested/agent-b"), [user("u1", "b")])
      await store.append(key("s2"), [user("u1", "other")])
      await store.delete(key())
      expect(await store.load(key())).toBeNull()
      expect(await store.load(sub("subagents/agent-a"))).toBeNull()
      expect(await store.load(sub("subagents/nested/agent-b"))).toBeNull()
      expect(await store.listSubkeys(key())).toEqual([])
      expect((await store.listSessions("p1")).map((s) => s.sessionId)).toEqual(["s2"])
      expect((await store.listSessionSummaries("p1")).map((s) => s.sessionId)).toEqual(["s2"])
      // The key can be written again from scratch, uuids included.
      await store.append(key(), [user("u1", "again")])
      expect(await store.load(key())).toHaveLength(1)
      // Deleting a missing key is fine.
      await store.delete(key("missing"))
    })

    withStore("delete of a subkey removes only that subkey", async (store) => {
      await store.append(key(), [user("u1", "one")])
      await store.append(sub("subagents/agent-a"), [user("u1", "a")])
      await store.append(sub("subagents/agent-b"), [user("u1", "b")])
      const summaries = await store.listSessionSummaries("p1")
      await store.delete(sub("subagents/agent-a"))
      expect(await store.load(sub("subagents/agent-a"))).toBeNull()
      expect(await store.load(sub("subagents/agent-b"))).toHaveLength(1)
      expect(await store.load(key())).toHaveLength(1)
      expect(await store.listSubkeys(key())).toEqual(["subagents/agent-b"])
      expect(await store.listSessionSummaries("p1")).toEqual(summaries)
    })

    withStore("listSubkeys returns raw subpaths, not the main key", async (store) => {
      await store.append(key(), [user("u1", "one")])
      expect(await store.listSubkeys(key())).toEqual([])
      await store.append(sub("subagents/agent-a1b2"), [user("u1", "a")])
      await store.append(sub("subagents/workflows/w1/agent-c3"), [{ type: "agent_metadata", agentType: "Explore" }])
      await store.append(sub("subagents/agent-x", "s2"), [user("u1", "other session")])
      expect((await store.listSubkeys(key())).sort()).toEqual([
        "subagents/agent-a1b2",
        "subagents/workflows/w1/agent-c3"
      ])
      expect(await store.listSubkeys(key("s1", "p2"))).toEqual([])
    })

    withStore("summaries equal a fresh foldSessionSummary of all entries", async (store) => {
      const batches: Array<Array<Sdk.SessionStoreEntry>> = [
        [
          { type: "queue-operation", operation: "enqueue", timestamp: "2025-01-01T12:00:00.000Z" },
          user("u1", "Fix the failing test in foo.ts"),
          { type: "assistant", uuid: "a1", timestamp: "2025-01-01T12:00:01.000Z", message: { content: [] } }
        ],
        [
          user("u2", "<command-name>/clear</command-name>"),
          { type: "ai-title", aiTitle: "Fixing foo", uuid: "t1" },
          { type: "last-prompt", lastPrompt: "and the bar test" },
          { type: "custom-title", customTitle: "T", uuid: "t2" },
          { type: "tag", tag: "x", uuid: "t3" },
          { type: "summary", summary: "S" },
          // duplicate uuid with different content: skipped, so not folded either
          { type: "custom-title", customTitle: "ignored", uuid: "t2" }
        ],
        [{ type: "tag", tag: "", uuid: "t4" }, { type: "relocated", relocatedCwd: "/srv/elsewhere" }]
      ]
      const check = async () => {
        const [summary] = await store.listSessionSummaries("p1")
        const [listing] = await store.listSessions("p1")
        const loaded = (await store.load(key())) ?? []
        expect(summary).toEqual(foldSessionSummary(undefined, key(), loaded, { mtime: listing!.mtime }))
      }
      for (const batch of batches) {
        await store.append(key(), batch)
        await check()
      }
      const [summary] = await store.listSessionSummaries("p1")
      expect(summary?.data).toMatchObject({ customTitle: "T", firstPrompt: "Fix the failing test in foo.ts" })
      expect(summary?.data).not.toHaveProperty("tag")
      // Subagent appends do not touch the summary.
      await store.append(sub("subagents/agent-a"), [{ type: "custom-title", customTitle: "sub", uuid: "s" }])
      expect(await store.listSessionSummaries("p1")).toEqual([summary])
    })

    withStore("uuid is an idempotency key; entries without uuid are always kept", async (store) => {
      await store.append(key(), [user("u1", "one"), user("u1", "dup in batch"), { type: "tag", tag: "a" }])
      await store.append(key(), [user("u1", "dup later"), user("u2", "two"), { type: "tag", tag: "a" }])
      const loaded = await store.load(key())
      expect(loaded?.map((e) => e.uuid ?? e.type)).toEqual(["u1", "tag", "u2", "tag"])
      expect(loaded?.[0]?.["message"]).toEqual({ role: "user", content: "one" })
      // The same uuid under another key (subkey, session, project) is a different entry.
      await store.append(sub("subagents/agent-a"), [user("u1", "sub")])
      await store.append(key("s2"), [user("u1", "s2")])
      expect(await store.load(sub("subagents/agent-a"))).toHaveLength(1)
      expect(await store.load(key("s2"))).toHaveLength(1)
    })

    withStore("a batch of already-stored entries changes nothing", async (store) => {
      await store.append(key(), [user("u1", "one"), user("u2", "two")])
      const sessions = await store.listSessions("p1")
      const summaries = await store.listSessionSummaries("p1")
      await store.append(key(), [user("u2", "two"), user("u1", "one")])
      expect(await store.load(key())).toHaveLength(2)
      expect(await store.listSessions("p1")).toEqual(sessions)
      expect(await store.listSessionSummaries("p1")).toEqual(summaries)
    })

    withStore("uuid idempotency holds across two store instances on the same file", async (store, filename) => {
      const other = await open(filename)
      try {
        await store.append(key(), [user("u1", "from A"), user("u2", "from A")])
        await other.append(key(), [user("u2", "from B"), user("u3", "from B"), { type: "tag", tag: "b" }])
        await store.append(key(), [user("u3", "from A"), user("u4", "from A")])
        const fromA = await store.load(key())
        expect(fromA?.map((e) => e.uuid ?? e.type)).toEqual(["u1", "u2", "u3", "tag", "u4"])
        expect(await other.load(key())).toEqual(fromA)
        const mtimes = [...await store.listSessions("p1"), ...await other.listSessions("p1")].map((s) => s.mtime)
        expect(new Set(mtimes).size).toBe(1)
        await other.append(key("s2"), [user("x", "x")])
        const s2 = (await store.listSessions("p1")).find((s) => s.sessionId === "s2")
        expect(s2?.mtime).toBeGreaterThan(mtimes[0]!)
      } finally {
        await other.close()
      }
    })

    withStore("survives closing and reopening the file", async (store, filename) => {
      await store.append(key(), [user("u1", "one")])
      await store.append(sub("subagents/agent-a"), [user("u1", "a")])
      const sessions = await store.listSessions("p1")
      await store.close()
      const reopened = await open(filename)
      try {
        expect(await reopened.load(key())).toHaveLength(1)
        expect(await reopened.listSubkeys(key())).toEqual(["subagents/agent-a"])
        await reopened.append(key(), [user("u1", "dup"), user("u2", "two")])
        expect(await reopened.load(key())).toHaveLength(2)
        expect((await reopened.listSessions("p1"))[0]!.mtime).toBeGreaterThan(sessions[0]!.mtime)
      } finally {
        await reopened.close()
      }
    })

    withStore("entries come back deep-equal, odd JSON included", async (store) => {
      const odd: Sdk.SessionStoreEntry = {
        zeta: 1,
        type: "assistant",
        uuid: "odd-1",
        alpha: { z: [1, [2, [3, { deep: ["x", null, true, false] }]]], a: {} },
        unicode: "héllo 🌍 中文 \u0000 \u2028 \"quoted\" \\ back",
        big: 12345678901234567890,
        tiny: 1e-300,
        huge: 1.7976931348623157e308,
        negative: -42.5,
        emptyString: "",
        emptyArray: [],
        nested: [[[]], [{}], [{ "key with spaces": 1, "": "empty key" }]],
        "weird.key/with:chars": "ok"
      }
      const plain: Sdk.SessionStoreEntry = { type: "x" }
      await store.append(key(), [odd, plain])
      const loaded = await store.load(key())
      expect(loaded).toEqual([odd, plain])
      expect(loaded?.[0]?.["big"]).toBe(12345678901234567890)
      expect(typeof loaded?.[0]?.["big"]).toBe("number")
    })

    withStore("rejects invalid keys and entries with a typed error", async (store) => {
      for (const subpath of ["", "/abs", "a/../b", ".."]) {
        await expectStoreError(store.append(sub(subpath), [user("u1", "x")]), "InvalidKey")
        await expectStoreError(store.load(sub(subpath)), "InvalidKey")
        await expectStoreError(store.delete(sub(subpath)), "InvalidKey")
      }
      await expectStoreError(store.append({ projectKey: "", sessionId: "s1" }, [user("u1", "x")]), "InvalidKey")
      await expectStoreError(store.listSubkeys({ projectKey: "p1", sessionId: "" }), "InvalidKey")
      await expectStoreError(store.append(key(), [{ notype: 1 } as never]), "InvalidEntry")
      await expectStoreError(store.append(key(), [null as never]), "InvalidEntry")
      // Nothing was written by the failed calls.
      expect(await store.listSessions("p1")).toEqual([])
      expect(await store.load(key())).toBeNull()
    })

    withStore("deleteOlderThan deletes whole sessions older than the cutoff", async (store) => {
      await store.append(key("old"), [user("u1", "old")])
      await store.append(sub("subagents/agent-a", "old"), [user("u1", "old sub")])
      await store.append(key("old", "p2"), [user("u1", "old p2")])
      await store.append(key("old2"), [user("u1", "old2")])
      const cutoff = Math.max(...(await store.listSessions("p1")).map((s) => s.mtime)) + 1
      await new Promise((resolve) => setTimeout(resolve, 5))
      await store.append(key("new"), [user("u1", "new")])
      // A session whose main transcript is old but whose subagent wrote after the cutoff is kept.
      await store.append(key("busy"), [user("u1", "busy")])
      const busyCutoff = Math.max(...(await store.listSessions("p1")).map((s) => s.mtime)) + 1
      await store.append(sub("subagents/agent-a", "busy"), [user("u1", "busy sub")])

      expect(await store.deleteOlderThan(cutoff, { projectKey: "p1" })).toBe(2)
      expect(await store.load(key("old"))).toBeNull()
      expect(await store.load(sub("subagents/agent-a", "old"))).toBeNull()
      expect(await store.listSubkeys(key("old"))).toEqual([])
      expect(await store.load(key("old", "p2"))).toHaveLength(1)
      expect((await store.listSessions("p1")).map((s) => s.sessionId).sort()).toEqual(["busy", "new"])
      expect((await store.listSessionSummaries("p1")).map((s) => s.sessionId).sort()).toEqual(["busy", "new"])

      expect(await store.deleteOlderThan(busyCutoff)).toBe(2)
      expect(await store.load(key("old", "p2"))).toBeNull()
      expect((await store.listSessions("p1")).map((s) => s.sessionId)).toEqual(["busy"])
      expect(await store.deleteOlderThan(0)).toBe(0)
    })
  })
}

describe("SqliteSessionStore (construction)", () => {
  it.scoped("layer, layerConfig and make agree on the same file", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      const viaLayer = SessionStore.SessionStore.pipe(
        Effect.flatMap((store) => store.append(key(), [user("u1", "one")])),
        Effect.provide(SqliteSessionStore.layer({ filename }))
      )
      yield* viaLayer
      const loaded = yield* SessionStore.SessionStore.pipe(
        Effect.flatMap((store) => store.load(key())),
        Effect.provide(SqliteSessionStore.layerConfig({ filename: Config.succeed(filename) }))
      )
      expect(loaded).toHaveLength(1)
      const store = yield* SqliteSessionStore.make({ filename, busyTimeout: "1 second" })
      expect(yield* store.listSessions("p1")).toHaveLength(1)
    }))

  it.effect("fails with a Storage error when the file cannot be opened", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(SqliteSessionStore.make({ filename: path.join(root, "missing-dir", "x", "store.sqlite") }))
      )
      expect(error).toBeInstanceOf(SessionStore.SessionStoreError)
      expect(error.reason).toBe("Storage")
      expect(error.operation).toBe("open")
      expect(error.description).toMatch(/store\.sqlite: .*directory does not exist$/)
    }))
})

/** A file with one stored entry, closed again. */
const seeded = async (filename = tempFile()): Promise<string> => {
  const store = SqliteSessionStore.createSqliteSessionStore({ filename })
  await store.append(key(), [user("seed-1", "kept")])
  await store.close()
  return filename
}

// Whether this machine can make a file read-only for the process running the tests (as root:
// only with chattr +i, on a filesystem that supports it).
const probe = probeReadOnly(root)

describe("SqliteSessionStore (read-only databases, invalid options)", () => {
  it("a database on a read-only connection (SQLite's own SQLITE_READONLY) fails with ReadOnly naming the file", async () => {
    const filename = await seeded()
    const error = await Effect.runPromise(Effect.flip(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(SqliteClient.layer({ filename, readonly: true })).pipe(Effect.orDie)
      return yield* SqliteSessionStore.makeWithClient({ filename }).pipe(
        Effect.provideService(SqlClient.SqlClient, Context.get(context, SqlClient.SqlClient))
      )
    }))))
    expect(error.reason).toBe("ReadOnly")
    expect(error.description).toBe(`database is read-only: ${filename}`)
  })

  it.skipIf(!probe.ok)(`a read-only file fails at open with ReadOnly, and its data stays (${probe.why})`, async () => {
    const filename = await seeded()
    const readOnly = makeReadOnly(filename)
    try {
      expect(readOnly.ok).toBe(true)
      const store = SqliteSessionStore.createSqliteSessionStore({ filename })
      await expectStoreError(store.append(key(), [user("lost-1", "x")]), "ReadOnly")
      const error = await store.load(key()).then(() => undefined, (e: SessionStore.SessionStoreError) => e)
      expect(error?.description).toBe(`database is read-only: ${filename}`)
      await store.close()
    } finally {
      readOnly.restore()
    }
    const store = SqliteSessionStore.createSqliteSessionStore({ filename })
    expect(await store.load(key())).toEqual([user("seed-1", "kept")])
    await store.close()
  })

  it.skipIf(!probe.ok)(`a database in a read-only directory fails at open with ReadOnly (${probe.why})`, async () => {
    const dir = path.join(root, `ro-dir-${++counter}`)
    fs.mkdirSync(dir)
    const filename = await seeded(path.join(dir, "store.sqlite"))
    const readOnly = makeReadOnly(dir)
    try {
      expect(readOnly.ok).toBe(true)
      const error = await Effect.runPromise(Effect.flip(Effect.scoped(SqliteSessionStore.make({ filename }))))
      expect(error.reason).toBe("ReadOnly")
      expect(error.description).toMatch(
        new RegExp(`^database is read-only: ${filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`)
      )
    } finally {
      readOnly.restore()
    }
  })

  it("an empty filename is rejected when the store is constructed", async () => {
    expect(() => SqliteSessionStore.createSqliteSessionStore({ filename: "" })).toThrow(SessionStore.SessionStoreError)
    const error = await Effect.runPromise(Effect.flip(Effect.scoped(SqliteSessionStore.make({ filename: "" }))))
    expect(error.reason).toBe("InvalidOption")
  })
})

describe("SqliteSessionStore (corrupt rows)", () => {
  it("load skips a corrupt row, logs a warning with key and row id, and tells onCorruptEntry", async () => {
    const filename = await seeded()
    const Database = (await import("better-sqlite3")).default
    const db = new Database(filename)
    db.prepare(`INSERT INTO acx_session_entries (key_id, uuid, entry, created_at) VALUES (
      (SELECT id FROM acx_session_keys WHERE project_key = 'p1' AND session_id = 's1'), NULL, 'not json {', 0)`).run()
    const rowId = (db.prepare(`SELECT max(id) AS id FROM acx_session_entries`).get() as { readonly id: number }).id
    db.close()
    const logs: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ annotations, message }) => {
      logs.push({ message, annotations: Object.fromEntries(annotations) })
    })
    const reported: Array<unknown> = []
    const loaded = await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const store = yield* SqliteSessionStore.make({ filename, onCorruptEntry: (corrupt) => reported.push(corrupt) })
        yield* store.append(key(), [user("after-1", "after")])
        return yield* store.load(key())
      })).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
    )
    expect(loaded).toEqual([user("seed-1", "kept"), user("after-1", "after")])
    expect(reported).toEqual([{
      key: key(),
      rowId: String(rowId),
      reason: expect.stringMatching(/^not JSON: /),
      preview: "not json {"
    }])
    expect(logs).toHaveLength(1)
    expect(logs[0]!.annotations).toMatchObject({ projectKey: "p1", sessionId: "s1", rowId: String(rowId) })
    expect(String(logs[0]!.message)).toContain(`corrupt row ${rowId}`)
  })
})

describe("SqliteSessionStore (concurrency)", () => {
  it("2 processes appending to one session at once: every entry once, each process's entries in order", async () => {
    const filename = tempFile()
    // two writers, started together (runAppendWorkers' barrier), wait on SQLite's one write lock
    // for each other's every batch as four did: the same 2 000 entries, two process starts fewer
    const run = { workers: 2, batches: 50, batchSize: 20 }
    // plain Node on a bundle of the worker and the workspace sources it imports (through tsx's
    // hooks each start cost seconds of CPU)
    const worker = await bundleWorker(new URL("./workers/sqliteAppendWorker.ts", import.meta.url))
    try {
      await runAppendWorkers(worker.file, filename, run, { execArgv: [] })
    } finally {
      worker.remove()
    }
    await using store = SqliteSessionStore.createSqliteSessionStore({ filename })
    await expectInterleavedAppends(store, { projectKey: "concurrency", sessionId: "shared-session" }, run)
  }, 60_000)
})

describe("SqliteSessionStore (SDK session functions)", () => {
  const sessionId = "258c7280-ae70-4798-800f-63464d01a85d"
  const source = Fixtures.transcriptFiles().find((file) => file.endsWith(`marot-spotter/${sessionId}.jsonl`))

  it(
    "importSessionToStore + getSessionMessages match InMemorySessionStore",
    async () => {
      const base = fs.realpathSync(fs.mkdtempSync(path.join(root, "sdk-")))
      const dir = path.join(base, "project")
      fs.mkdirSync(dir)
      const configDir = path.join(base, "config")
      const projectDir = path.join(configDir, "projects", dir.replace(/[^a-zA-Z0-9]/g, "-"))
      fs.mkdirSync(projectDir, { recursive: true })
      fs.copyFileSync(source!, path.join(projectDir, `${sessionId}.jsonl`))
      const subagents = path.join(path.dirname(source!), sessionId)
      if (fs.existsSync(subagents)) fs.cpSync(subagents, path.join(projectDir, sessionId), { recursive: true })

      const previous = process.env["CLAUDE_CONFIG_DIR"]
      process.env["CLAUDE_CONFIG_DIR"] = configDir
      await using store = SqliteSessionStore.createSqliteSessionStore({ filename: path.join(base, "store.sqlite") })
      try {
        const memory = new InMemorySessionStore()
        await importSessionToStore(sessionId, store, { dir })
        await importSessionToStore(sessionId, memory, { dir })

        const ours = await getSessionMessages(sessionId, { dir, sessionStore: store })
        const theirs = await getSessionMessages(sessionId, { dir, sessionStore: memory })
        expect(ours.length).toBeGreaterThan(0)
        expect(ours).toEqual(theirs)

        const projectKey = dir.replace(/[^a-zA-Z0-9]/g, "-")
        const mainKey = { projectKey, sessionId }
        const once = await store.load(mainKey)
        expect(once).toEqual(await memory.load(mainKey))
        const subkeys = await store.listSubkeys(mainKey)
        expect(subkeys.sort()).toEqual((await memory.listSubkeys(mainKey)).sort())

        // A second import adds nothing to our store (the SDK's in-memory store duplicates).
        await importSessionToStore(sessionId, store, { dir })
        const twice = await store.load(mainKey)
        const withoutUuid = (once ?? []).filter((entry) => typeof entry.uuid !== "string").length
        expect(twice).toHaveLength((once?.length ?? 0) + withoutUuid)
        expect(twice?.slice(0, once?.length)).toEqual(once)
        for (const subpath of subkeys) {
          const entries = (await store.load({ ...mainKey, subpath })) ?? []
          const uuids = entries.flatMap((entry) => (typeof entry.uuid === "string" ? [entry.uuid] : []))
          expect(new Set(uuids).size).toBe(uuids.length)
        }
        expect(await getSessionMessages(sessionId, { dir, sessionStore: store })).toEqual(ours)
        expect((await store.listSessions(projectKey)).map((s) => s.sessionId)).toEqual([sessionId])
      } finally {
        if (previous === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
        else process.env["CLAUDE_CONFIG_DIR"] = previous
      }
    },
    30_000
  )
})
