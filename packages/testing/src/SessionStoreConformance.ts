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
import { registerAppendCases, registerKeyCases } from "./internal/conformanceAppend.js"
import { registerDataCases } from "./internal/conformanceData.js"
import {
  CASES,
  type ConformanceSuite,
  conversation,
  defaultCleanup,
  expect,
  freshProject,
  type Key,
  loadConformanceRuntime,
  mainKey,
  markerEntry,
  mtimeOf,
  subKey,
  summaryOf,
  titleEntry
} from "./internal/conformanceKit.js"
import { registerDeleteCases, registerListingCases, registerSummaryCases } from "./internal/conformanceListing.js"
import { registerConcurrencyCases, registerUuidCases } from "./internal/conformanceUuids.js"
import { requireRunner } from "./internal/optional.js"

// Nothing of vitest or the SDK loads with this module (it is re-exported by `@acx/testing`,
// which plain scripts import for the emulator): registration goes through vitest's runner,
// required when a suite is registered (importing `vitest` itself outside its runner throws).
// The cases live in `internal/conformance*.ts`, one module per contract area.

/**
 * What the suite runs against: the SDK's `SessionStore`, optional methods possibly missing.
 *
 * @since 0.1.0
 * @category models
 */
export type ConformanceStore = Sdk.SessionStore

/**
 * Every contract case the suite checks, in the order it registers them (listed in the suite's
 * internal kit, beside the cases).
 *
 * @since 0.1.0
 * @category constants
 */
export const CONFORMANCE_CASES: typeof CASES = CASES

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
// The corrupt-row case: rows planted behind the store's back are skipped and reported.
const registerCorruptCase = (suite: ConformanceSuite, hooks: CorruptEntryHooks | undefined): void => {
  if (hooks === undefined) {
    suite.skip("corrupt stored rows are skipped by load and reported (skipped: no corruptEntries hooks given)")
    return
  }
  const { check } = suite
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

// The construction case: each invalid option is rejected when the store is made, not at first use.
const registerInvalidOptionsCase = (
  suite: ConformanceSuite,
  invalid: ReadonlyArray<InvalidOption> | undefined,
  cleanup: (store: ConformanceStore) => Promise<void> | void
): void => {
  if (invalid === undefined || invalid.length === 0) {
    suite.skip("invalid options are rejected when the store is constructed (skipped: no invalidOptions given)")
    return
  }
  const { check } = suite
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
      await loadConformanceRuntime()
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
    const suite: ConformanceSuite = { check, skip: (title) => it.skip(title, () => {}), track }

    registerAppendCases(suite)
    registerKeyCases(suite)
    registerListingCases(suite)
    registerSummaryCases(suite)
    registerDeleteCases(suite)
    registerUuidCases(suite, options.sharedStorage)
    registerConcurrencyCases(suite)
    registerDataCases(suite)
    registerCorruptCase(suite, options.corruptEntries)
    registerInvalidOptionsCase(suite, options.invalidOptions, cleanup)
  })
}
