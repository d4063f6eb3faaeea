/**
 * The `SessionStoreConformance` cases of appending and loading: order, batches, empty appends,
 * unknown keys, subpaths and project keys.
 */
import { randomUUID } from "node:crypto"
import {
  type ConformanceSuite,
  conversation,
  type Entry,
  expect,
  freshProject,
  invalidSubpaths,
  mainKey,
  markerEntry,
  mtimeOf,
  need,
  subKey,
  summaryOf,
  titleEntry,
  userEntry
} from "./conformanceKit.js"

/** Registers the append and load cases: order, batches, empty appends, unknown keys. */
export const registerAppendCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}

/** Registers the cases of keys: subpaths checked and independent, project keys isolated. */
export const registerKeyCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}
