/**
 * The `SessionStoreConformance` cases of uuid idempotency (within a batch, across batches, across
 * store instances, per key), entries without uuid, and concurrent appends.
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import {
  assistantEntry,
  type ConformanceSuite,
  conversation,
  expect,
  foldSessionSummary,
  freshProject,
  mainKey,
  markerEntry,
  mtimeOf,
  sorted,
  subKey,
  summaryOf,
  titleEntry,
  userEntry
} from "./conformanceKit.js"

/** Registers the uuid cases; the cross-instance case needs `openShared`. */
export const registerUuidCases = (
  suite: ConformanceSuite,
  openShared: (() => Promise<Sdk.SessionStore> | Sdk.SessionStore) | undefined
): void => {
  const { check } = suite
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

  if (openShared === undefined) {
    suite.skip("uuid is idempotent across store instances (skipped: no sharedStorage given)")
  } else {
    check("uuid is idempotent across store instances", async (store) => {
      const other = await suite.track(openShared)
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
}

/** Registers the cases of entries without uuid and of concurrent appends. */
export const registerConcurrencyCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}
