/**
 * The `SessionStoreConformance` cases of the data itself: odd JSON, U+0000 and lone surrogates,
 * and stored entries isolated from the caller's objects.
 */
import { randomUUID } from "node:crypto"
import {
  assistantEntry,
  type ConformanceSuite,
  conversation,
  type Entry,
  expect,
  foldSessionSummary,
  freshProject,
  mainKey,
  markerEntry,
  oddEntries,
  reverseKeys,
  subKey,
  summaryOf,
  titleEntry,
  userEntry
} from "./conformanceKit.js"

/** Registers the data cases. */
export const registerDataCases = (suite: ConformanceSuite): void => {
  const { check } = suite
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
}
