/**
 * What the `SessionStoreConformance` cases share: the list of cases, the runtime they are checked
 * with (vitest's `expect` and the SDK's summary fold, loaded when the suite runs), the suite's
 * registration hooks, and the entries and keys the cases build.
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { randomUUID } from "node:crypto"
import type { ExpectStatic } from "vitest"
import { loadSdk, loadVitest } from "./optional.js"

/** Every contract case, in the order the suite registers them (`CONFORMANCE_CASES`). */
export const CASES = [
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

/** The name of one contract case. */
export type CaseTitle = typeof CASES[number]

// Nothing of vitest or the SDK loads with this module (it is re-exported by `@acx/testing`,
// which plain scripts import for the emulator): `expect` and the SDK's fold are loaded once the
// suite runs (in `beforeAll`), and read by the cases through these live bindings.
export let expect: ExpectStatic
export let foldSessionSummary: typeof Sdk.foldSessionSummary

/** Loads `expect` and the SDK's fold; the suite's `beforeAll` calls it before any case runs. */
export const loadConformanceRuntime = async (): Promise<void> => {
  expect = (await loadVitest()).expect
  foldSessionSummary = (await loadSdk()).foldSessionSummary
}

/** What a group of cases registers through. */
export interface ConformanceSuite {
  /** Registers one case (under `it.fails` when the store is expected to break it). */
  readonly check: (title: CaseTitle, body: (store: Sdk.SessionStore) => Promise<void>) => void
  /** Registers a case that cannot run, with the reason in its title. */
  readonly skip: (title: string) => void
  /** Opens another store, closed with the suite's own. */
  readonly track: (open: () => Promise<Sdk.SessionStore> | Sdk.SessionStore) => Promise<Sdk.SessionStore>
}

export type Entry = Sdk.SessionStoreEntry
export type Key = Sdk.SessionKey
type Listing = { readonly sessionId: string; readonly mtime: number }

type Method = "listSessions" | "listSessionSummaries" | "delete" | "listSubkeys"

/** The optional method `method`, or an error naming it when the store lacks it. */
export const need = <M extends Method>(store: Sdk.SessionStore, method: M): NonNullable<Sdk.SessionStore[M]> => {
  const fn = store[method]
  if (typeof fn !== "function") {
    throw new Error(`the store does not implement the optional method ${method}, which this contract case needs`)
  }
  return (fn as (...args: Array<never>) => unknown).bind(store) as NonNullable<Sdk.SessionStore[M]>
}

export const defaultCleanup = async (store: Sdk.SessionStore): Promise<void> => {
  const close = (store as { readonly close?: unknown }).close
  if (typeof close === "function") await (close as () => unknown).call(store)
}

/** A fresh project key, unique to one case (shaped like a sanitized cwd). */
export const freshProject = (): string => `-tmp-acx-conformance-${randomUUID()}`

export const mainKey = (projectKey: string, sessionId: string = randomUUID()): Key => ({ projectKey, sessionId })

export const subKey = (key: Key, subpath: string): Key => ({
  projectKey: key.projectKey,
  sessionId: key.sessionId,
  subpath
})

let clock = Date.parse("2025-01-01T12:00:00.000Z")
export const timestamp = (): string => new Date(clock += 1000).toISOString()

export const userEntry = (sessionId: string, text: string, extra: Record<string, unknown> = {}): Entry => ({
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

export const assistantEntry = (sessionId: string, text: string): Entry => ({
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

export const titleEntry = (sessionId: string, customTitle: string, uuid: string = randomUUID()): Entry => ({
  type: "custom-title",
  customTitle,
  sessionId,
  uuid,
  timestamp: timestamp()
})

/** An entry without `uuid`, like the CLI's title, tag and mode markers. */
export const markerEntry = (sessionId: string, tag: string): Entry => ({ type: "tag", tag, sessionId })

export const conversation = (sessionId: string, n: number): Array<Entry> =>
  Array.from(
    { length: n },
    (_, i) => i % 2 === 0 ? userEntry(sessionId, `prompt ${i}`) : assistantEntry(sessionId, `answer ${i}`)
  )

export const byId = (listings: ReadonlyArray<Listing>): Map<string, number> =>
  new Map(listings.map((listing) => [listing.sessionId, listing.mtime]))

export const mtimeOf = async (store: Sdk.SessionStore, key: Key): Promise<number | undefined> =>
  byId(await need(store, "listSessions")(key.projectKey)).get(key.sessionId)

export const summaryOf = async (store: Sdk.SessionStore, key: Key): Promise<Sdk.SessionSummaryEntry | undefined> =>
  (await need(store, "listSessionSummaries")(key.projectKey)).find((summary) => summary.sessionId === key.sessionId)

export const sorted = (values: ReadonlyArray<string>): Array<string> => [...values].sort()

/** Builds entries through `JSON.parse`, so keys such as `"10"`, `""` or `"__proto__"` are plain data. */
export const oddEntries = (): Array<Entry> => {
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
export const reverseKeys = (value: unknown): unknown => {
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

export const invalidSubpaths = ["", "/abs", "a/../b"] as const
