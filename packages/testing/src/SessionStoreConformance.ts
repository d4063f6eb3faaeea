/**
 * A reusable vitest conformance suite for `SessionStore` adapters: any object with the SDK's
 * `SessionStore` shape (acx's Memory, SQLite and Postgres adapters, the SDK's own
 * `InMemorySessionStore`, or a third-party store) is checked against the contract documented in
 * `SessionStore.ts`.
 *
 * ```ts
 * import { runSessionStoreConformance } from "@acx/testing/SessionStoreConformance"
 *
 * runSessionStoreConformance("SqliteSessionStore", () => createSqliteSessionStore({ filename }), {
 *   sharedStorage: () => createSqliteSessionStore({ filename })
 * })
 * ```
 *
 * How the suite runs:
 * - one `describe(name)` with one `it` per {@link ConformanceCase}; the store is made once
 *   (`beforeAll`) and shared by every case, because each case works under fresh, random
 *   projectKeys and sessionIds; stores backed by a shared database therefore never interfere;
 * - a case needing an optional method the store lacks (`listSessions`, `listSessionSummaries`,
 *   `delete`, `listSubkeys`) fails, naming the method;
 * - cases in `expectedFailures` run under `it.fails`: they pass while the store still breaks
 *   the contract, and fail (telling you to drop the expectation) once it meets it;
 * - the cross-instance uuid case needs `sharedStorage` (a second store on the same underlying
 *   database) and is skipped, with the reason in its title, without it;
 * - the corrupt-row case needs `corruptEntries` (a way to plant a row that is not an entry
 *   behind the store's back, and what the store reported), the construction case needs
 *   `invalidOptions` (constructors given an invalid option); each is skipped, with the reason in
 *   its title, without it;
 * - after all cases, `cleanup` (default: the store's `close()` when it has one) runs on every
 *   store the suite made.
 *
 * @since 0.1.0
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { randomUUID } from "node:crypto"
import type { ExpectStatic } from "vitest"
import { loadSdk, loadVitest, requireRunner } from "./internal/optional.js"

// Nothing of vitest or the SDK loads with this module (it is re-exported by `@acx/testing`,
// which plain scripts import for the emulator): registration goes through vitest's runner,
// required when a suite is registered (importing `vitest` itself outside its runner throws);
// `expect` and the SDK's fold are loaded once the suite runs (in `beforeAll`).
let expect: ExpectStatic
let foldSessionSummary: typeof Sdk.foldSessionSummary

/**
 * What the suite runs against: the SDK's `SessionStore`, optional methods possibly missing.
 *
 * @since 0.1.0
 * @category models
 */
export type ConformanceStore = Sdk.SessionStore

/**
 * Every contract case the suite checks, in the order it registers them.
 *
 * @since 0.1.0
 * @category constants
 */
export const CONFORMANCE_CASES = [
  "round-trip keeps entries and order",
  "multiple appends concatenate in call order",
  "large batch keeps order",
  "empty append to an existing key is a no-op",
  "key only ever appended with [] loads as null",
  "unknown key loads as null",
  "invalid subpaths are rejected",
  "subpaths are independent",
  "projectKeys are isolated",
  "listSessions excludes subkeys",
  "mtime is an integer on a strictly increasing store clock",
  "subkey append leaves the main mtime and summary unchanged",
  "listSessionSummaries lists the project's main transcripts with the listSessions mtime",
  "summary equals a fresh fold of all entries",
  "summary ignores entries skipped as duplicate uuids",
  "delete of a main key cascades to subkeys and summary",
  "delete of a subkey removes only that subkey",
  "append after delete starts a fresh session",
  "listSubkeys lists subpaths and excludes the main key",
  "uuid is idempotent within a batch",
  "uuid is idempotent across batches",
  "uuid is idempotent across store instances",
  "uuid idempotency is scoped to the key",
  "entries without uuid are never deduplicated",
  "concurrent appends keep every entry and a consistent summary",
  "odd JSON round-trips deep-equal",
  "U+0000 and lone surrogates round-trip",
  "stored entries are isolated from caller mutation",
  "corrupt stored rows are skipped by load and reported",
  "invalid options are rejected when the store is constructed"
] as const

/**
 * The name of one contract case (see {@link CONFORMANCE_CASES}).
 *
 * @since 0.1.0
 * @category models
 */
export type ConformanceCase = typeof CONFORMANCE_CASES[number]

/**
 * @since 0.1.0
 * @category models
 */
export interface ConformanceOptions {
  /** Cases the store is known to break; they run under `it.fails`. */
  readonly expectedFailures?: ReadonlyArray<ConformanceCase> | undefined
  /**
   * Opens a second store on the same underlying database (same file, same connection URL), for
   * the cross-instance uuid case. Omit it for stores without shared storage: that case is then
   * skipped, with the reason in its title.
   */
  readonly sharedStorage?: (() => Promise<ConformanceStore> | ConformanceStore) | undefined
  /** Releases a store the suite made. Default: its `close()`, when it has one. */
  readonly cleanup?: ((store: ConformanceStore) => Promise<void> | void) | undefined
  /**
   * For the corrupt-row case: how to plant a stored row that is not an entry, and what the store
   * reported. Omit it for stores whose storage nothing else can write (the case is then skipped,
   * with the reason in its title).
   */
  readonly corruptEntries?: CorruptEntryHooks | undefined
  /**
   * For the construction case: constructors given one invalid option each (a bad schema or table
   * name, …). Each must throw, or return a rejected promise, at once: not at first use.
   */
  readonly invalidOptions?: ReadonlyArray<InvalidOption> | undefined
}

/**
 * The conformance suite's hook into a store's storage, for the corrupt-row case.
 *
 * @since 0.1.0
 * @category models
 */
export interface CorruptEntryHooks {
  /**
   * Stores one row that is not an entry (unparseable text, or JSON that is not an object with a
   * string `type`) after the rows of `key`, behind the store's back, as another program would.
   * The key already holds entries when this is called.
   */
  readonly plant: (key: Sdk.SessionKey) => Promise<void>
  /** Every corrupt row the store reported so far (e.g. what its `onCorruptEntry` collected). */
  readonly reported: () => ReadonlyArray<{ readonly key: Sdk.SessionKey }>
}

/**
 * One invalid construction for the construction case.
 *
 * @since 0.1.0
 * @category models
 */
export interface InvalidOption {
  /** What is invalid, for the failure message, e.g. `schema "Bad-Name"`. */
  readonly title: string
  /** Constructs a store with the invalid option. */
  readonly construct: () => unknown
  /** A text the error's message must contain (e.g. the bad value). */
  readonly mentions: string
}

type Entry = Sdk.SessionStoreEntry
type Key = Sdk.SessionKey
type Listing = { readonly sessionId: string; readonly mtime: number }

type Method = "listSessions" | "listSessionSummaries" | "delete" | "listSubkeys"

/** The optional method `method`, or an error naming it when the store lacks it. */
const need = <M extends Method>(store: ConformanceStore, method: M): NonNullable<ConformanceStore[M]> => {
  const fn = store[method]
  if (typeof fn !== "function") {
    throw new Error(`the store does not implement the optional method ${method}, which this contract case needs`)
  }
  return (fn as (...args: Array<never>) => unknown).bind(store) as NonNullable<ConformanceStore[M]>
}

const defaultCleanup = async (store: ConformanceStore): Promise<void> => {
  const close = (store as { readonly close?: unknown }).close
  if (typeof close === "function") await (close as () => unknown).call(store)
}

/** A fresh project key, unique to one case (shaped like a sanitized cwd). */
const freshProject = (): string => `-tmp-acx-conformance-${randomUUID()}`

const mainKey = (projectKey: string, sessionId: string = randomUUID()): Key => ({ projectKey, sessionId })

const subKey = (key: Key, subpath: string): Key => ({
  projectKey: key.projectKey,
  sessionId: key.sessionId,
  subpath
})

let clock = Date.parse("2025-01-01T12:00:00.000Z")
const timestamp = (): string => new Date(clock += 1000).toISOString()

const userEntry = (sessionId: string, text: string, extra: Record<string, unknown> = {}): Entry => ({
  type: "user",
  uuid: randomUUID(),
  parentUuid: null,
  timestamp: timestamp(),
  sessionId,
  cwd: "/tmp/acx-conformance",
  gitBranch: "main",
  isSidechain: false,
  message: { role: "user", content: text },
  ...extra
})

const assistantEntry = (sessionId: string, text: string): Entry => ({
  type: "assistant",
  uuid: randomUUID(),
  parentUuid: randomUUID(),
  timestamp: timestamp(),
  sessionId,
  message: {
    id: `msg_${randomUUID()}`,
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text }],
    usage: { input_tokens: 12, output_tokens: 34 }
  }
})

const titleEntry = (sessionId: string, customTitle: string, uuid: string = randomUUID()): Entry => ({
  type: "custom-title",
  customTitle,
  sessionId,
  uuid,
  timestamp: timestamp()
})

/** An entry without `uuid`, like the CLI's title, tag and mode markers. */
const markerEntry = (sessionId: string, tag: string): Entry => ({ type: "tag", tag, sessionId })

const conversation = (sessionId: string, n: number): Array<Entry> =>
  Array.from(
    { length: n },
    (_, i) => i % 2 === 0 ? userEntry(sessionId, `prompt ${i}`) : assistantEntry(sessionId, `answer ${i}`)
  )

const byId = (listings: ReadonlyArray<Listing>): Map<string, number> =>
  new Map(listings.map((listing) => [listing.sessionId, listing.mtime]))

const mtimeOf = async (store: ConformanceStore, key: Key): Promise<number | undefined> =>
  byId(await need(store, "listSessions")(key.projectKey)).get(key.sessionId)

const summaryOf = async (store: ConformanceStore, key: Key): Promise<Sdk.SessionSummaryEntry | undefined> =>
  (await need(store, "listSessionSummaries")(key.projectKey)).find((summary) => summary.sessionId === key.sessionId)

const sorted = (values: ReadonlyArray<string>): Array<string> => [...values].sort()

/** Builds entries through `JSON.parse`, so keys such as `"10"`, `""` or `"__proto__"` are plain data. */
const oddEntries = (): Array<Entry> => {
  const deep: Record<string, unknown> = { leaf: [1, "two", null, true, false, {}] }
  let nested: Record<string, unknown> = deep
  for (let i = 0; i < 40; i++) nested = { [`level${i}`]: nested, list: [[i], [[i, [i]]]] }
  const entries: Array<unknown> = [
    {
      type: "user",
      uuid: randomUUID(),
      text: "Grüße, 你好, こんにちは, مرحبا, שלום, Ελληνικά, emoji 👩🏽‍💻🎉🏳️‍🌈, combining é, ZWJ \u200d, BOM \ufeff",
      escapes: "quotes \" backslash \\ slash / tab \t newline \n return \r controls \u0001\u001f\u007f",
      lineSeparators: "\u2028 and \u2029",
      astral: "𝄞 𝕏 🀄"
    },
    {
      type: "numbers",
      uuid: randomUUID(),
      maxSafe: Number.MAX_SAFE_INTEGER,
      minSafe: Number.MIN_SAFE_INTEGER,
      beyondSafe: Number("12345678901234567890"),
      huge: Number.MAX_VALUE,
      tiny: Number.MIN_VALUE,
      float: 0.1 + 0.2,
      exponent: 6.02214076e23,
      negative: -42.5,
      zero: 0,
      intLike: 1e21,
      list: [0, 1, -1, 2 ** 53, 2 ** 64, 1e-7]
    },
    {
      type: "nested",
      uuid: randomUUID(),
      arrays: [[], [[]], [[[]]], [1, [2, [3, [4, [5]]]]], [{ a: [{ b: [] }] }]],
      objects: { "": "empty key", "10": "ten", "2": "two", "a.b": 1, "$ref": "#", "with space": true },
      nulls: { value: null, list: [null, null] },
      deep
    },
    JSON.parse(
      `{"zeta":1,"alpha":{"z":[3,2,1],"a":{"y":null,"b":"b"}},"type":"key-order","__proto__":{"own":true},"mid":"m"}`
    ),
    { type: "no-uuid-odd", list: ["", " ", "  "], bools: [true, false], emptyString: "" }
  ]
  return entries as Array<Entry>
}

/** The same content with every object's keys in reverse order. */
const reverseKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).reverse()) {
    Object.defineProperty(out, key, {
      value: reverseKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}

const invalidSubpaths = ["", "/abs", "a/../b"] as const

/**
 * Registers `describe(name)` with one vitest `it` per {@link ConformanceCase}, run against the
 * store `makeStore` returns (made once and shared by every case).
 *
 * @since 0.1.0
 * @category constructors
 */
export const runSessionStoreConformance = (
  name: string,
  makeStore: () => Promise<ConformanceStore> | ConformanceStore,
  options: ConformanceOptions = {}
): void => {
  const expected = new Set<ConformanceCase>(options.expectedFailures ?? [])
  const cleanup = options.cleanup ?? defaultCleanup

  const { afterAll, beforeAll, describe, it } = requireRunner("runSessionStoreConformance")
  describe(name, () => {
    let current: ConformanceStore | undefined
    const made: Array<ConformanceStore> = []
    const track = async (open: () => Promise<ConformanceStore> | ConformanceStore): Promise<ConformanceStore> => {
      const store = await open()
      made.push(store)
      return store
    }
    const store = (): ConformanceStore => {
      if (current === undefined) throw new Error(`${name}: makeStore did not produce a store`)
      return current
    }

    beforeAll(async () => {
      expect = (await loadVitest()).expect
      foldSessionSummary = (await loadSdk()).foldSessionSummary
      current = await track(makeStore)
    })

    afterAll(async () => {
      for (const each of made.reverse()) await cleanup(each)
    })

    const check = (title: ConformanceCase, body: (store: ConformanceStore) => Promise<void>): void => {
      const run = () => body(store())
      if (expected.has(title)) it.fails(title, run)
      else it(title, run)
    }

    check("round-trip keeps entries and order", async (store) => {
      const key = mainKey(freshProject())
      const entries = [
        ...conversation(key.sessionId, 4),
        markerEntry(key.sessionId, "x"),
        titleEntry(key.sessionId, "T")
      ]
      await store.append(key, entries)
      expect(await store.load(key)).toEqual(entries)
    })

    check("multiple appends concatenate in call order", async (store) => {
      const key = mainKey(freshProject())
      const batches = [
        conversation(key.sessionId, 3),
        [markerEntry(key.sessionId, "a")],
        conversation(key.sessionId, 2)
      ]
      for (const batch of batches) await store.append(key, batch)
      expect(await store.load(key)).toEqual(batches.flat())
    })

    check("large batch keeps order", async (store) => {
      const key = mainKey(freshProject())
      const entries = Array.from({ length: 1000 }, (_, i): Entry => ({
        type: i % 10 === 0 ? "progress" : "assistant",
        ...(i % 7 === 0 ? {} : { uuid: randomUUID() }),
        index: i
      }))
      await store.append(key, entries)
      const loaded = await store.load(key)
      expect(loaded?.map((entry) => entry.index)).toEqual(entries.map((entry) => entry.index))
      expect(loaded).toEqual(entries)
    })

    check("empty append to an existing key is a no-op", async (store) => {
      const key = mainKey(freshProject())
      const entries = conversation(key.sessionId, 2)
      await store.append(key, entries)
      const mtime = await mtimeOf(store, key)
      const summary = await summaryOf(store, key)
      await store.append(key, [])
      expect(await store.load(key)).toEqual(entries)
      expect(await mtimeOf(store, key)).toBe(mtime)
      expect(await summaryOf(store, key)).toEqual(summary)
    })

    check("key only ever appended with [] loads as null", async (store) => {
      const key = mainKey(freshProject())
      const sub = subKey(mainKey(key.projectKey), "subagents/agent-empty")
      await store.append(key, [])
      await store.append(sub, [])
      expect(await store.load(key)).toBeNull()
      expect(await store.load(sub)).toBeNull()
      expect(await need(store, "listSessions")(key.projectKey)).toEqual([])
      expect(await need(store, "listSessionSummaries")(key.projectKey)).toEqual([])
      expect(await need(store, "listSubkeys")(mainKey(sub.projectKey, sub.sessionId))).toEqual([])
    })

    check("unknown key loads as null", async (store) => {
      const key = mainKey(freshProject())
      expect(await store.load(key)).toBeNull()
      await store.append(key, conversation(key.sessionId, 1))
      expect(await store.load(subKey(key, "subagents/agent-unknown"))).toBeNull()
      expect(await store.load(mainKey(key.projectKey))).toBeNull()
      expect(await store.load(mainKey(freshProject(), key.sessionId))).toBeNull()
    })

    check("invalid subpaths are rejected", async (store) => {
      const key = mainKey(freshProject())
      await store.append(key, conversation(key.sessionId, 2))
      for (const subpath of invalidSubpaths) {
        const bad = subKey(key, subpath)
        await expect(
          store.append(bad, [markerEntry(key.sessionId, "bad")]),
          `append subpath ${JSON.stringify(subpath)}`
        )
          .rejects.toBeDefined()
        await expect(store.load(bad), `load subpath ${JSON.stringify(subpath)}`).rejects.toBeDefined()
        if (typeof store.delete === "function") {
          await expect(store.delete(bad), `delete subpath ${JSON.stringify(subpath)}`).rejects.toBeDefined()
        }
      }
      expect(await store.load(key)).toHaveLength(2)
      if (typeof store.listSubkeys === "function") expect(await store.listSubkeys(key)).toEqual([])
    })

    check("subpaths are independent", async (store) => {
      const key = mainKey(freshProject())
      const a = subKey(key, "subagents/agent-a")
      const b = subKey(key, "subagents/agent-b")
      const mainEntries = conversation(key.sessionId, 2)
      const aEntries = [userEntry(key.sessionId, "to a", { isSidechain: true, agentId: "a" })]
      const bEntries = [{ type: "agent_metadata", agentType: "Explore", toolUseId: "toolu_01" }]
      await store.append(a, aEntries)
      await store.append(key, mainEntries)
      await store.append(b, bEntries)
      expect(await store.load(key)).toEqual(mainEntries)
      expect(await store.load(a)).toEqual(aEntries)
      expect(await store.load(b)).toEqual(bEntries)
    })

    check("projectKeys are isolated", async (store) => {
      const sessionId = randomUUID()
      const p1 = mainKey(freshProject(), sessionId)
      const p2 = mainKey(freshProject(), sessionId)
      const e1 = [userEntry(sessionId, "first project")]
      const e2 = [userEntry(sessionId, "second project"), titleEntry(sessionId, "P2")]
      await store.append(p1, e1)
      await store.append(p2, e2)
      await store.append(subKey(p2, "subagents/agent-p2"), [markerEntry(sessionId, "p2")])
      expect(await store.load(p1)).toEqual(e1)
      expect(await store.load(p2)).toEqual(e2)
      expect((await need(store, "listSessions")(p1.projectKey)).map((l) => l.sessionId)).toEqual([sessionId])
      expect(await need(store, "listSubkeys")(p1)).toEqual([])
      expect((await summaryOf(store, p1))?.data["customTitle"]).toBeUndefined()
      expect((await summaryOf(store, p2))?.data["customTitle"]).toBe("P2")
      await need(store, "delete")(p1)
      expect(await store.load(p1)).toBeNull()
      expect(await store.load(p2)).toEqual(e2)
      expect(await need(store, "listSubkeys")(p2)).toEqual(["subagents/agent-p2"])
    })

    check("listSessions excludes subkeys", async (store) => {
      const projectKey = freshProject()
      const withSubagents = mainKey(projectKey)
      const subagentOnly = mainKey(projectKey)
      const plain = mainKey(projectKey)
      await store.append(withSubagents, conversation(withSubagents.sessionId, 2))
      await store.append(subKey(withSubagents, "subagents/agent-1"), [markerEntry(withSubagents.sessionId, "1")])
      await store.append(subKey(withSubagents, "subagents/workflows/run-1/agent-2"), [markerEntry("s", "2")])
      await store.append(subKey(subagentOnly, "subagents/agent-3"), [markerEntry(subagentOnly.sessionId, "3")])
      await store.append(plain, conversation(plain.sessionId, 1))
      const listed = await need(store, "listSessions")(projectKey)
      expect(sorted(listed.map((listing) => listing.sessionId))).toEqual(
        sorted([withSubagents.sessionId, plain.sessionId])
      )
    })

    check("mtime is an integer on a strictly increasing store clock", async (store) => {
      const projectKey = freshProject()
      const keys = Array.from({ length: 6 }, () => mainKey(projectKey))
      const before = Date.now()
      for (const key of keys) await store.append(key, [markerEntry(key.sessionId, "t")])
      const listed = byId(await need(store, "listSessions")(projectKey))
      const mtimes = keys.map((key) => listed.get(key.sessionId))
      for (const mtime of mtimes) {
        expect(Number.isInteger(mtime)).toBe(true)
        // The store's clock is epoch milliseconds (a database clock may drift a little).
        expect(mtime).toBeGreaterThan(before - 24 * 3600_000)
        expect(mtime).toBeLessThan(Date.now() + 24 * 3600_000)
      }
      for (let i = 1; i < mtimes.length; i++) expect(mtimes[i]).toBeGreaterThan(mtimes[i - 1] as number)
      // Store-wide: a write in another project still moves the clock forward.
      const other = mainKey(freshProject())
      await store.append(other, [markerEntry(other.sessionId, "o")])
      const otherMtime = await mtimeOf(store, other)
      expect(otherMtime).toBeGreaterThan(mtimes[mtimes.length - 1] as number)
      // Appending again to the first session moves it past everything before.
      const first = keys[0] as Key
      await store.append(first, [markerEntry(first.sessionId, "again")])
      expect(await mtimeOf(store, first)).toBeGreaterThan(otherMtime as number)
    })

    check("subkey append leaves the main mtime and summary unchanged", async (store) => {
      const key = mainKey(freshProject())
      await store.append(key, [...conversation(key.sessionId, 2), titleEntry(key.sessionId, "Main")])
      const mtime = await mtimeOf(store, key)
      const summary = await summaryOf(store, key)
      const sub = subKey(key, "subagents/agent-x")
      await store.append(sub, [
        userEntry(key.sessionId, "subagent prompt", { isSidechain: true }),
        titleEntry(key.sessionId, "Subagent title"),
        { type: "agent_metadata", agentType: "general-purpose" }
      ])
      await store.append(sub, [assistantEntry(key.sessionId, "subagent answer")])
      expect(await mtimeOf(store, key)).toBe(mtime)
      expect(await summaryOf(store, key)).toEqual(summary)
    })

    check("listSessionSummaries lists the project's main transcripts with the listSessions mtime", async (store) => {
      const projectKey = freshProject()
      const a = mainKey(projectKey)
      const b = mainKey(projectKey)
      const subagentOnly = mainKey(projectKey)
      await store.append(a, conversation(a.sessionId, 2))
      await store.append(b, conversation(b.sessionId, 1))
      await store.append(subKey(a, "subagents/agent-a"), [markerEntry(a.sessionId, "sa")])
      await store.append(a, [titleEntry(a.sessionId, "A")])
      await store.append(subKey(subagentOnly, "subagents/agent-s"), [userEntry(subagentOnly.sessionId, "s")])
      const elsewhere = mainKey(freshProject())
      await store.append(elsewhere, conversation(elsewhere.sessionId, 1))
      const summaries = await need(store, "listSessionSummaries")(projectKey)
      expect(sorted(summaries.map((summary) => summary.sessionId))).toEqual(sorted([a.sessionId, b.sessionId]))
      const listed = byId(await need(store, "listSessions")(projectKey))
      for (const summary of summaries) {
        expect(Number.isInteger(summary.mtime)).toBe(true)
        expect(summary.mtime).toBe(listed.get(summary.sessionId))
      }
    })

    check("summary equals a fresh fold of all entries", async (store) => {
      const key = mainKey(freshProject())
      const sid = key.sessionId
      const batches: Array<Array<Entry>> = [
        [{ type: "queue-operation", operation: "enqueue", timestamp: timestamp(), sessionId: sid }],
        [userEntry(sid, "<command-name>/review</command-name>"), userEntry(sid, "Fix the failing test\nin foo.ts")],
        [assistantEntry(sid, "Done."), { type: "ai-title", aiTitle: "Fixing foo", sessionId: sid }],
        [titleEntry(sid, "Custom"), { type: "tag", tag: "urgent", sessionId: sid, uuid: randomUUID() }],
        [{ type: "last-prompt", lastPrompt: "thanks", sessionId: sid }, { type: "summary", summary: "Fixed foo" }],
        [{ type: "relocated", relocatedCwd: "/tmp/elsewhere", sessionId: sid }, {
          type: "tag",
          tag: "",
          sessionId: sid
        }]
      ]
      for (const batch of batches) await store.append(key, batch)
      const summary = await summaryOf(store, key)
      const loaded = await store.load(key)
      expect(loaded).toEqual(batches.flat())
      expect(summary).toBeDefined()
      expect(summary).toEqual(foldSessionSummary(undefined, key, loaded ?? [], { mtime: summary?.mtime ?? 0 }))
      expect(summary?.data).toMatchObject({ firstPrompt: "Fix the failing test in foo.ts", customTitle: "Custom" })
    })

    check("summary ignores entries skipped as duplicate uuids", async (store) => {
      const key = mainKey(freshProject())
      const sid = key.sessionId
      const titleUuid = randomUUID()
      await store.append(key, [userEntry(sid, "hello"), titleEntry(sid, "Original", titleUuid)])
      // A replay of the same line with other content: skipped, so the summary must not see it.
      await store.append(key, [titleEntry(sid, "Replayed", titleUuid), { type: "tag", tag: "kept", sessionId: sid }])
      const loaded = await store.load(key)
      const summary = await summaryOf(store, key)
      expect(summary?.data["customTitle"]).toBe("Original")
      expect(summary?.data["tag"]).toBe("kept")
      expect(summary).toEqual(foldSessionSummary(undefined, key, loaded ?? [], { mtime: summary?.mtime ?? 0 }))
    })

    check("delete of a main key cascades to subkeys and summary", async (store) => {
      const key = mainKey(freshProject())
      const survivor = mainKey(key.projectKey)
      const subs = [subKey(key, "subagents/agent-1"), subKey(key, "subagents/workflows/w/agent-2")]
      await store.append(key, conversation(key.sessionId, 2))
      for (const sub of subs) await store.append(sub, [markerEntry(key.sessionId, "s")])
      await store.append(survivor, conversation(survivor.sessionId, 1))
      await need(store, "delete")(key)
      expect(await store.load(key)).toBeNull()
      for (const sub of subs) expect(await store.load(sub)).toBeNull()
      expect(await need(store, "listSubkeys")(key)).toEqual([])
      expect((await need(store, "listSessions")(key.projectKey)).map((l) => l.sessionId)).toEqual([survivor.sessionId])
      expect((await need(store, "listSessionSummaries")(key.projectKey)).map((s) => s.sessionId)).toEqual([
        survivor.sessionId
      ])
      expect(await store.load(survivor)).toHaveLength(1)
    })

    check("delete of a subkey removes only that subkey", async (store) => {
      const key = mainKey(freshProject())
      const gone = subKey(key, "subagents/agent-gone")
      const kept = subKey(key, "subagents/agent-kept")
      const mainEntries = [...conversation(key.sessionId, 2), titleEntry(key.sessionId, "Kept")]
      const keptEntries = [markerEntry(key.sessionId, "kept")]
      await store.append(key, mainEntries)
      await store.append(gone, [markerEntry(key.sessionId, "gone")])
      await store.append(kept, keptEntries)
      const mtime = await mtimeOf(store, key)
      const summary = await summaryOf(store, key)
      await need(store, "delete")(gone)
      expect(await store.load(gone)).toBeNull()
      expect(await store.load(kept)).toEqual(keptEntries)
      expect(await store.load(key)).toEqual(mainEntries)
      expect(await need(store, "listSubkeys")(key)).toEqual([kept.subpath])
      expect(await mtimeOf(store, key)).toBe(mtime)
      expect(await summaryOf(store, key)).toEqual(summary)
    })

    check("append after delete starts a fresh session", async (store) => {
      const key = mainKey(freshProject())
      const first = userEntry(key.sessionId, "first life")
      await store.append(key, [first, titleEntry(key.sessionId, "Old")])
      await store.append(subKey(key, "subagents/agent-old"), [markerEntry(key.sessionId, "old")])
      await need(store, "delete")(key)
      // The same uuid again: after a delete it is a new line, not a duplicate.
      const reborn = { ...first, message: { role: "user", content: "second life" } }
      await store.append(key, [reborn])
      expect(await store.load(key)).toEqual([reborn])
      expect(await need(store, "listSubkeys")(key)).toEqual([])
      const summary = await summaryOf(store, key)
      expect(summary?.data["firstPrompt"]).toBe("second life")
      expect(summary?.data["customTitle"]).toBeUndefined()
      expect(summary?.mtime).toBe(await mtimeOf(store, key))
    })

    check("listSubkeys lists subpaths and excludes the main key", async (store) => {
      const key = mainKey(freshProject())
      const subpaths = ["subagents/agent-a1b2c3", "subagents/workflows/run-1/agent-d4e5", "remote/agent-z"]
      await store.append(key, conversation(key.sessionId, 1))
      for (const subpath of subpaths) await store.append(subKey(key, subpath), [markerEntry(key.sessionId, subpath)])
      await store.append(subKey(key, subpaths[0] as string), [markerEntry(key.sessionId, "again")])
      const listSubkeys = need(store, "listSubkeys")
      expect(sorted(await listSubkeys(key))).toEqual(sorted(subpaths))
      expect(await listSubkeys(mainKey(key.projectKey))).toEqual([])
      expect(await listSubkeys(mainKey(freshProject(), key.sessionId))).toEqual([])
    })

    check("uuid is idempotent within a batch", async (store) => {
      const key = mainKey(freshProject())
      const a = userEntry(key.sessionId, "a")
      const b = assistantEntry(key.sessionId, "b")
      await store.append(key, [a, b, { ...a, message: { role: "user", content: "a, replayed" } }, b])
      expect(await store.load(key)).toEqual([a, b])
    })

    check("uuid is idempotent across batches", async (store) => {
      const key = mainKey(freshProject())
      const sub = subKey(key, "subagents/agent-r")
      const entries = conversation(key.sessionId, 4)
      const subEntries = conversation(key.sessionId, 2)
      await store.append(key, entries.slice(0, 3))
      await store.append(sub, subEntries)
      // A retried batch overlapping the previous one, as after a mirror retry or a re-import.
      await store.append(key, entries.slice(1))
      await store.append(key, entries)
      await store.append(sub, subEntries)
      expect(await store.load(key)).toEqual(entries)
      expect(await store.load(sub)).toEqual(subEntries)
      const summary = await summaryOf(store, key)
      expect(summary).toEqual(foldSessionSummary(undefined, key, entries, { mtime: summary?.mtime ?? 0 }))
    })

    if (options.sharedStorage === undefined) {
      it.skip("uuid is idempotent across store instances (skipped: no sharedStorage given)", () => {})
    } else {
      const openShared = options.sharedStorage
      check("uuid is idempotent across store instances", async (store) => {
        const other = await track(openShared)
        const key = mainKey(freshProject())
        const entries = conversation(key.sessionId, 4)
        await store.append(key, entries.slice(0, 2))
        await other.append(key, entries)
        await store.append(key, entries.slice(1))
        await other.append(key, [markerEntry(key.sessionId, "no uuid")])
        const expectedEntries = [...entries, markerEntry(key.sessionId, "no uuid")]
        expect(await store.load(key)).toEqual(expectedEntries)
        expect(await other.load(key)).toEqual(expectedEntries)
        const summary = await summaryOf(store, key)
        expect(summary).toEqual(foldSessionSummary(undefined, key, expectedEntries, { mtime: summary?.mtime ?? 0 }))
      })
    }

    check("uuid idempotency is scoped to the key", async (store) => {
      const projectKey = freshProject()
      const key = mainKey(projectKey)
      const otherSession = mainKey(projectKey)
      const otherProject = mainKey(freshProject(), key.sessionId)
      const entry = userEntry(key.sessionId, "same uuid everywhere")
      const targets = [
        key,
        subKey(key, "subagents/agent-1"),
        subKey(key, "subagents/agent-2"),
        otherSession,
        otherProject
      ]
      for (const target of targets) await store.append(target, [entry])
      for (const target of targets) expect(await store.load(target)).toEqual([entry])
    })

    check("entries without uuid are never deduplicated", async (store) => {
      const key = mainKey(freshProject())
      const marker = markerEntry(key.sessionId, "same")
      const mode = { type: "mode", mode: "plan", sessionId: key.sessionId }
      await store.append(key, [marker, marker, mode])
      await store.append(key, [marker, mode])
      await store.append(subKey(key, "subagents/agent-m"), [marker, marker])
      expect(await store.load(key)).toEqual([marker, marker, mode, marker, mode])
      expect(await store.load(subKey(key, "subagents/agent-m"))).toEqual([marker, marker])
    })

    check("concurrent appends keep every entry and a consistent summary", async (store) => {
      const key = mainKey(freshProject())
      const batches = Array.from({ length: 20 }, (_, i) => [
        userEntry(key.sessionId, `prompt ${i}`),
        titleEntry(key.sessionId, `title ${i}`),
        i % 2 === 0 ? markerEntry(key.sessionId, `t${i}`) : assistantEntry(key.sessionId, `answer ${i}`)
      ])
      await Promise.all(batches.map((batch) => store.append(key, batch)))
      const loaded = await store.load(key) ?? []
      expect(loaded).toHaveLength(60)
      // Each batch lands contiguously and whole, in some order.
      const order = loaded.filter((_, i) => i % 3 === 0).map((entry) =>
        batches.findIndex((batch) => batch[0]?.uuid === entry.uuid)
      )
      const rebuilt = order.flatMap((index) => batches[index] ?? [])
      expect(loaded).toEqual(rebuilt)
      expect(sorted(order.map(String))).toEqual(sorted(batches.map((_, i) => String(i))))
      const summary = await summaryOf(store, key)
      expect(summary).toEqual(foldSessionSummary(undefined, key, loaded, { mtime: summary?.mtime ?? 0 }))
      expect(summary?.mtime).toBe(await mtimeOf(store, key))
    })

    check("odd JSON round-trips deep-equal", async (store) => {
      const key = mainKey(freshProject())
      const entries = oddEntries()
      const reversed = reverseKeys(entries) as Array<Entry>
      await store.append(key, entries)
      const loaded = await store.load(key)
      expect(loaded).toEqual(entries)
      // Key order does not matter, values do, types included: numbers stay JSON numbers.
      expect(loaded).toEqual(reversed)
      const numbers = loaded?.[1]
      expect(typeof numbers?.["beyondSafe"]).toBe("number")
      expect(numbers?.["beyondSafe"]).toBe(Number("12345678901234567890"))
      expect(numbers?.["tiny"]).toBe(Number.MIN_VALUE)
      expect(Object.keys(loaded?.[3] ?? {})).toContain("__proto__")
      const sub = subKey(key, "subagents/agent-odd")
      await store.append(sub, reversed)
      expect(await store.load(sub)).toEqual(entries)
    })

    check("U+0000 and lone surrogates round-trip", async (store) => {
      const key = mainKey(freshProject())
      const entries: Array<Entry> = [
        { type: "tool-output", uuid: randomUUID(), binary: "a\u0000b", nested: { list: ["\u0000"] } },
        { type: "broken-text", uuid: randomUUID(), high: "x\ud800y", low: "\udc00", reversed: "\udc00\ud800" },
        // in the summary too: the first prompt and the title carry them
        userEntry(key.sessionId, "cat \u0000 and \ud800"),
        titleEntry(key.sessionId, "title \u0000")
      ]
      await store.append(key, entries.slice(0, 2))
      // A batch where only one entry holds U+0000 is stored whole, not dropped with it.
      const mixed = [assistantEntry(key.sessionId, "plain"), ...entries.slice(2)]
      await store.append(key, mixed)
      const all = [...entries.slice(0, 2), ...mixed]
      expect(await store.load(key)).toEqual(all)
      const sub = subKey(key, "subagents/agent-nul")
      await store.append(sub, entries.slice(0, 1))
      expect(await store.load(sub)).toEqual(entries.slice(0, 1))
      const summary = await summaryOf(store, key)
      expect(summary?.data["customTitle"]).toBe("title \u0000")
      expect(summary).toEqual(foldSessionSummary(undefined, key, all, { mtime: summary?.mtime ?? 0 }))
    })

    check("stored entries are isolated from caller mutation", async (store) => {
      const key = mainKey(freshProject())
      const entries = conversation(key.sessionId, 2)
      const snapshot = structuredClone(entries)
      await store.append(key, entries) // The caller keeps mutating its objects after append resolved.
      ;(entries[0] as Record<string, unknown>)["type"] = "mutated"
      const answer = entries[1] as unknown as { message: { content: Array<Record<string, unknown>> } }
      ;(answer.message.content[0] ?? {})["text"] = "mutated"
      entries.push(markerEntry(key.sessionId, "pushed"))
      expect(await store.load(key)).toEqual(snapshot)
      // And mutating what load returned changes nothing either.
      const loaded = await store.load(key) ?? []
      ;(loaded[0] as Record<string, unknown>)["type"] = "mutated"
      loaded.pop()
      expect(await store.load(key)).toEqual(snapshot)
    })

    if (options.corruptEntries === undefined) {
      it.skip("corrupt stored rows are skipped by load and reported (skipped: no corruptEntries hooks given)", () => {})
    } else {
      const hooks = options.corruptEntries
      check("corrupt stored rows are skipped by load and reported", async (store) => {
        const key = mainKey(freshProject())
        const sub = subKey(key, "subagents/agent-corrupt")
        const before = conversation(key.sessionId, 2)
        const after = [titleEntry(key.sessionId, "After"), markerEntry(key.sessionId, "after")]
        await store.append(key, before)
        await store.append(sub, before.slice(0, 1))
        await hooks.plant(key)
        await hooks.plant(sub)
        await store.append(key, after)
        const reportsBefore = hooks.reported().length
        expect(await store.load(key)).toEqual([...before, ...after])
        expect(await store.load(sub)).toEqual(before.slice(0, 1))
        const reports = hooks.reported().slice(reportsBefore)
        const same = (a: Key, b: Key) =>
          a.projectKey === b.projectKey && a.sessionId === b.sessionId && a.subpath === b.subpath
        expect(reports.filter((report) => same(report.key, key))).toHaveLength(1)
        expect(reports.filter((report) => same(report.key, sub))).toHaveLength(1)
        // The rest of the store is untouched by the corrupt rows.
        const summary = await summaryOf(store, key)
        expect(summary?.data["customTitle"]).toBe("After")
        expect(await mtimeOf(store, key)).toBe(summary?.mtime)
      })
    }

    if (options.invalidOptions === undefined || options.invalidOptions.length === 0) {
      it.skip(
        "invalid options are rejected when the store is constructed (skipped: no invalidOptions given)",
        () => {}
      )
    } else {
      const invalid = options.invalidOptions
      check("invalid options are rejected when the store is constructed", async () => {
        for (const each of invalid) {
          let thrown: unknown = undefined
          let made: unknown = undefined
          try {
            made = each.construct()
          } catch (error) {
            thrown = error
          }
          if (thrown === undefined && made instanceof Promise) {
            thrown = await made.then(() => undefined, (error: unknown) => error)
          }
          if (thrown === undefined && made !== undefined) await cleanup(made as ConformanceStore)
          expect(thrown, `${each.title}: not rejected at construction`).toBeInstanceOf(Error)
          expect((thrown as Error).message, each.title).toContain(each.mentions)
        }
      })
    }
  })
}
