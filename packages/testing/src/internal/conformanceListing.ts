/**
 * The `SessionStoreConformance` cases of listing, summaries and deletion: `listSessions` and its
 * mtime clock, `listSessionSummaries` against the SDK's fold, `delete` and `listSubkeys`.
 */
import { randomUUID } from "node:crypto"
import {
  assistantEntry,
  byId,
  type ConformanceSuite,
  conversation,
  type Entry,
  expect,
  foldSessionSummary,
  freshProject,
  type Key,
  mainKey,
  markerEntry,
  mtimeOf,
  need,
  sorted,
  subKey,
  summaryOf,
  timestamp,
  titleEntry,
  userEntry
} from "./conformanceKit.js"

/** Registers the listing cases: `listSessions`, its mtime clock, `listSessionSummaries`. */
export const registerListingCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}

/** Registers the cases of summaries against a fresh fold of the SDK's. */
export const registerSummaryCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}

/** Registers the delete and `listSubkeys` cases. */
export const registerDeleteCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}
