import { forkTranscript } from "@acx/convert/Fork"
import type { ForkOptions } from "@acx/convert/Fork"
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { ancestry, conversation } from "@acx/convert/Reconstruct"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as Fixtures from "@acx/fixtures"
import type { TranscriptEntry } from "@acx/schema/Transcript"
import { describe, expect, it } from "@effect/vitest"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

type Raw = Record<string, unknown>

const NOW = "2030-01-01T00:00:00.000Z"
const NEW_SID = "00000000-0000-4000-8000-000000000001"

const counter = () => {
  let n = 0
  return () => `fresh-${n++}`
}

const options = (extra: Partial<ForkOptions> = {}): ForkOptions => ({
  newSessionId: NEW_SID,
  now: NOW,
  uuid: counter(),
  ...extra
})

const decode = (raws: ReadonlyArray<Raw>): Array<TranscriptEntry> => {
  const parsed = parseTranscript(raws.map((raw) => JSON.stringify(raw)).join("\n"))
  expect(parsed.errors).toEqual([])
  return parsed.entries.map(({ entry }) => entry)
}

const raw = (entry: TranscriptEntry | Raw): Raw => entry as unknown as Raw

const msg = (uuid: string, parentUuid: string | null, type = "user", extra: Raw = {}): Raw => ({
  type,
  uuid,
  parentUuid,
  sessionId: "old",
  timestamp: `2026-01-01T00:00:0${uuid.length % 10}.000Z`,
  message: { role: type, content: `text of ${uuid}` },
  ...extra
})

// Every parent link points inside the fork, no original uuid survives.
const checkStructure = (original: ReadonlyArray<TranscriptEntry>, fork: ReadonlyArray<TranscriptEntry | Raw>) => {
  const forkUuids = new Set<unknown>(fork.map((entry) => raw(entry)["uuid"]))
  const originalUuids = new Set<unknown>(
    original.map((entry) => raw(entry)["uuid"]).filter((uuid) => uuid !== undefined)
  )
  for (const entry of fork) {
    const parent = raw(entry)["parentUuid"]
    if (parent !== undefined && parent !== null) expect(forkUuids.has(parent)).toBe(true)
    const logical = raw(entry)["logicalParentUuid"]
    if (logical !== undefined && logical !== null) expect(forkUuids.has(logical)).toBe(true)
    expect(originalUuids.has(raw(entry)["uuid"])).toBe(false)
  }
}

describe("forkTranscript", () => {
  const entries = decode([
    { type: "queue-operation", operation: "enqueue", sessionId: "old" },
    msg("u1", null),
    msg("a1", "u1", "assistant"),
    { type: "progress", uuid: "p1", parentUuid: "a1", sessionId: "old", data: {} },
    msg("u2", "p1"),
    msg("s1", "a1", "user", { isSidechain: true, agentId: "x" }),
    msg("a2", "u2", "assistant", { teamName: "t", slug: "s" }),
    { type: "ai-title", aiTitle: "Original", sessionId: "old" },
    { type: "last-prompt", lastPrompt: "p", sessionId: "old" },
    msg("u3", "a2")
  ])

  it("copies the main entries with fresh uuids and a remapped chain", () => {
    const fork = forkTranscript(entries, options())
    expect(fork.map((entry) => raw(entry)["type"])).toEqual([
      "api-request-route",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "custom-title"
    ])
    checkStructure(entries, fork)
    expect(fork[0]).toEqual({
      type: "api-request-route",
      provider: "unrecorded",
      credential: "unrecorded",
      sessionId: NEW_SID
    })
    const copied = fork.slice(1, -1).map(raw)
    expect(copied.map((entry) => entry["forkedFrom"])).toEqual(
      ["u1", "a1", "u2", "a2", "u3"].map((messageUuid) => ({ sessionId: "old", messageUuid }))
    )
    // u2's parent was the progress entry p1: it is skipped, to a1
    expect(copied.map((entry) => entry["parentUuid"])).toEqual([null, "fresh-0", "fresh-1", "fresh-3", "fresh-4"])
    expect(copied.every((entry) => entry["sessionId"] === NEW_SID && entry["isSidechain"] === false)).toBe(true)
    expect(copied[3]?.["teamName"]).toBeUndefined()
    expect(copied[3]?.["requestSessionId"]).toBe("old")
    expect(copied.map((entry) => entry["timestamp"]).at(-1)).toBe(NOW)
    expect(copied.map((entry) => entry["message"])).toEqual(
      ["u1", "a1", "u2", "a2", "u3"].map((uuid) =>
        raw(entries.find((entry) => raw(entry)["uuid"] === uuid)!)["message"]
      )
    )
    expect(fork.at(-1)).toEqual({
      type: "custom-title",
      sessionId: NEW_SID,
      customTitle: "Original (fork)",
      uuid: "fresh-6",
      timestamp: NOW
    })
  })

  it("stops at upToUuid, keeps its ancestry only, and uses the given title", () => {
    const fork = forkTranscript(entries, options({ upToUuid: "u2", title: "  Mine " }))
    expect(fork.map((entry) => raw(entry)["forkedFrom"] ?? raw(entry)["customTitle"] ?? raw(entry)["type"])).toEqual([
      "api-request-route",
      { sessionId: "old", messageUuid: "u1" },
      { sessionId: "old", messageUuid: "a1" },
      { sessionId: "old", messageUuid: "u2" },
      "Mine"
    ])
    checkStructure(entries, fork)
  })

  it("remaps logicalParentUuid and the preserved uuids of a compact boundary", () => {
    const compacted = decode([
      msg("u1", null),
      msg("a1", "u1", "assistant"),
      {
        type: "system",
        subtype: "compact_boundary",
        uuid: "b1",
        parentUuid: null,
        logicalParentUuid: "a1",
        content: "Conversation compacted",
        compactMetadata: { trigger: "auto", preservedSegment: { headUuid: "u1", anchorUuid: "b1", tailUuid: "a1" } }
      },
      msg("u2", "b1", "user", { isCompactSummary: true })
    ])
    const fork = forkTranscript(compacted, options())
    checkStructure(compacted, fork)
    const boundary = raw(fork[3]!)
    expect(boundary["logicalParentUuid"]).toBe("fresh-1")
    expect(boundary["compactMetadata"]).toEqual({
      trigger: "auto",
      preservedSegment: { headUuid: "fresh-0", anchorUuid: "fresh-2", tailUuid: "fresh-1" }
    })
  })

  it("carries the session's API request routes first, as the SDK reads them", () => {
    const route = (provider: unknown, credential: unknown, sessionId = "old"): Raw => ({
      type: "api-request-route",
      provider,
      credential,
      sessionId
    })
    const routed = decode([
      route("customEndpoint", "key"),
      msg("u1", null),
      route("bedrock", "cloud", "elsewhere"),
      route("customEndpoint", "key"),
      route("someday", "passkey"),
      route("unrecorded", "unrecorded"),
      route("unrecorded", "key"),
      route(7, "key"),
      msg("a1", "u1", "assistant")
    ])
    const fork = forkTranscript(routed, options()).map(raw)
    expect(fork.filter((entry) => entry["type"] === "api-request-route")).toEqual([
      route("customEndpoint", "key", NEW_SID),
      route("bedrock", "cloud", NEW_SID),
      route("other", "other", NEW_SID),
      route("unrecorded", "unrecorded", NEW_SID),
      route("other", "key", NEW_SID)
    ])
    expect(fork.slice(0, 5).every((entry) => entry["type"] === "api-request-route")).toBe(true)
  })

  it("clears the fields the SDK clears on each copy, and only those", () => {
    const fields = {
      entrypointInherited: true,
      nestedSession: true,
      askedToGoOn: true,
      sessionKind: "bg",
      rowsAheadOfPutBack: 2
    }
    const fork = forkTranscript(decode([msg("u1", null, "user", fields)]), options()).map(raw)
    const copy = fork.find((entry) => entry["type"] === "user")
    expect(copy).toMatchObject({ rowsAheadOfPutBack: 2 })
    for (const field of ["entrypointInherited", "nestedSession", "askedToGoOn", "sessionKind"]) {
      expect(copy?.[field]).toBeUndefined()
    }
  })

  it("is empty when there is nothing to fork", () => {
    expect(forkTranscript([], options())).toEqual([])
    expect(forkTranscript(entries, options({ upToUuid: "missing" }))).toEqual([])
    expect(forkTranscript(entries, options({ upToUuid: "s1" }))).toEqual([])
  })
})

// ------------------------------------------------------------------------------------------------
// cross-check with the SDK's forkSession in store mode
// ------------------------------------------------------------------------------------------------

interface Store {
  load(key: { projectKey: string; sessionId: string }): Promise<Array<Raw> | null>
}
interface Sdk {
  readonly InMemorySessionStore: new() => Store
  readonly importSessionToStore: (sid: string, store: Store, options: { dir: string }) => Promise<void>
  readonly forkSession: (
    sid: string,
    options: { dir: string; sessionStore: Store; upToMessageId?: string; title?: string }
  ) => Promise<{ sessionId: string }>
}

const loadSdk = async (): Promise<Sdk> => {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk")
  return (await import(pathToFileURL(entry).href)) as Sdk
}

// Entries the SDK writes around the copied ones from session state, which forkTranscript does
// not (it does write the `api-request-route` ones).
const SESSION_STATE_TYPES = new Set([
  "content-replacement",
  "atis-latch",
  "tools-used",
  "data-flow-incomplete",
  "data-flow-records",
  "derived-from",
  "relocated",
  "history-suppression",
  "hybrid-organization",
  "session-owner",
  "isolation-latch"
])

const IDS = ["uuid", "parentUuid", "logicalParentUuid", "forkedFrom", "sessionId", "timestamp"]

const contents = (entries: ReadonlyArray<Raw>) =>
  entries.map((entry) => {
    const copy = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined))
    for (const key of IDS) delete copy[key]
    return copy
  })

// Each entry's parent as an index into the list (uuids aside).
const shape = (entries: ReadonlyArray<Raw>) => {
  const index = new Map(entries.map((entry, i) => [entry["uuid"], i]))
  return entries.map((entry) => [
    entry["parentUuid"] == null ? null : index.get(entry["parentUuid"]) ?? "outside",
    entry["logicalParentUuid"] == null ? null : index.get(entry["logicalParentUuid"]) ?? "outside",
    (entry["forkedFrom"] as Raw | undefined)?.["messageUuid"] ?? null
  ])
}

// Runs `use` with a fork function that forks a transcript (its JSONL text) with the SDK's
// forkSession in store mode, in a project of a fresh config dir.
type SdkFork = (text: string, upToUuid: string | undefined) => Promise<{
  readonly sessionId: string
  readonly forkedId: string
  readonly theirs: Array<Raw>
}>
const withSdkFork = async (use: (fork: SdkFork) => Promise<void>): Promise<void> => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-fork-")))
  const configDir = path.join(root, "config")
  const projectDir = path.join(root, "project")
  fs.mkdirSync(projectDir, { recursive: true })
  const projectKey = encodeProjectDir(fs.realpathSync(projectDir))
  const transcriptsDir = path.join(configDir, "projects", projectKey)
  fs.mkdirSync(transcriptsDir, { recursive: true })
  const previous = process.env["CLAUDE_CONFIG_DIR"]
  process.env["CLAUDE_CONFIG_DIR"] = configDir
  try {
    const sdk = await loadSdk()
    await use(async (text, upToUuid) => {
      const sessionId = crypto.randomUUID()
      fs.writeFileSync(path.join(transcriptsDir, `${sessionId}.jsonl`), text)
      const store = new sdk.InMemorySessionStore()
      await sdk.importSessionToStore(sessionId, store, { dir: projectDir })
      const forked = await sdk.forkSession(sessionId, {
        dir: projectDir,
        sessionStore: store,
        title: "Forked",
        ...(upToUuid === undefined ? {} : { upToMessageId: upToUuid })
      })
      const theirs = (await store.load({ projectKey, sessionId: forked.sessionId })) ?? []
      return { sessionId, forkedId: forked.sessionId, theirs }
    })
  } finally {
    if (previous === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
    else process.env["CLAUDE_CONFIG_DIR"] = previous
    fs.rmSync(root, { recursive: true, force: true })
  }
}

describe(
  "fixture transcripts against the SDK's forkSession",
  () => {
    it("gives the SDK's entries, in its order, uuids aside", async () => {
      const files = Fixtures.transcriptFiles().filter((file) => !file.includes(`${path.sep}subagents${path.sep}`))
      expect(files.length).toBeGreaterThan(0)
      let compared = 0
      await withSdkFork(async (sdkFork) => {
        for (const file of files) {
          const text = fs.readFileSync(file, "utf8")
          const entries = parseTranscript(text).entries.map(({ entry }) => entry)
          const turns = conversation(entries).filter((item) =>
            !item.spliced && (item.entry.type === "user" || item.entry.type === "assistant")
          )
          const middle = turns[Math.floor(turns.length / 2)]?.uuid
          for (const upToUuid of [undefined, middle]) {
            const label = `${Fixtures.relative(file)} up to ${upToUuid ?? "the end"}`
            const { forkedId, sessionId, theirs } = await sdkFork(text, upToUuid)
            const ours = forkTranscript(entries, {
              newSessionId: forkedId,
              sourceSessionId: sessionId,
              title: "Forked",
              now: NOW,
              uuid: () => crypto.randomUUID(),
              ...(upToUuid === undefined ? {} : { upToUuid })
            }).map(raw)
            // inherent: the session-state entries the SDK writes around the copied ones (see Fork.ts)
            // are not reproduced; everything else must agree
            const compare = theirs.filter((entry) => !SESSION_STATE_TYPES.has(String(entry["type"])))
            expect(compare.at(-1)?.["customTitle"], label).toBe("Forked")
            expect(contents(ours), label).toEqual(contents(compare))
            expect(shape(ours), label).toEqual(shape(compare))
            checkStructure(entries, ours)
            if (upToUuid !== undefined) {
              // the whole chain up to upToUuid is copied (plus what the SDK splices in beside it)
              const copied = new Set(ours.map((entry) => (entry["forkedFrom"] as Raw | undefined)?.["messageUuid"]))
              const chain = ancestry(entries, upToUuid).filter((item) => item.entry.type !== "progress")
              expect(chain.filter((item) => !copied.has(item.uuid)), label).toEqual([])
              expect(ours.at(-2)?.["forkedFrom"], label).toEqual({ sessionId, messageUuid: upToUuid })
            }
            compared++
          }
        }
      })
      expect(compared).toBeGreaterThan(0)
    })

    it("remaps the row uuids of attachments as the SDK does", async () => {
      const [u1, a1, u2] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]
      const attachment = (uuid: string, parentUuid: string, body: Raw): Raw => ({
        type: "attachment",
        uuid,
        parentUuid,
        sessionId: "old",
        timestamp: "2026-01-01T00:00:01.000Z",
        attachment: body
      })
      const [b1, b2, b3] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]
      const lines = [
        msg(u1, null),
        msg(a1, u1, "assistant"),
        attachment(b1, a1, { type: "attachment_answer", rowUuid: u1 }),
        attachment(b2, b1, { type: "attachment_answer", rowUuid: "gone" }),
        attachment(b3, b2, { type: "blocked_prompts_withdrawn", prompts: [u1, "gone"], rest: [a1, 7] }),
        msg(u2, b3)
      ]
      // each fork's uuids back to the originals they copy, so the two forks compare
      const originals = (entries: ReadonlyArray<Raw>) => {
        const back = new Map(
          entries.map((entry) => [entry["uuid"], (entry["forkedFrom"] as Raw | undefined)?.["messageUuid"]])
        )
        return entries.filter((entry) => entry["type"] === "attachment").map((entry) =>
          JSON.parse(JSON.stringify(entry["attachment"]), (_, value) => back.get(value) ?? value) as unknown
        )
      }
      await withSdkFork(async (sdkFork) => {
        const { forkedId, theirs } = await sdkFork(
          lines.map((line) => JSON.stringify(line)).join("\n") + "\n",
          undefined
        )
        const ours = forkTranscript(decode(lines), { ...options(), newSessionId: forkedId }).map(raw)
        expect(originals(ours)).toEqual(originals(theirs))
        expect(originals(ours)).toEqual(lines.slice(2, 5).map((line) => line["attachment"]))
        // and no original uuid is left in them
        const left = JSON.stringify(ours.map((entry) => entry["attachment"]))
        for (const uuid of [u1, a1]) expect(left).not.toContain(uuid)
      })
    })

    it("carries the state:kept plugin rows past upToUuid as the SDK does", async () => {
      const id = () => crypto.randomUUID()
      const [u1, a1, k1, n1, k2, k3, u2] = [id(), id(), id(), id(), id(), id(), id()]
      const row = (uuid: string, parentUuid: string, name: string, content = ""): Raw => ({
        type: "system",
        uuid,
        parentUuid,
        sessionId: "old",
        timestamp: "2026-01-01T00:00:01.000Z",
        content,
        pluginRow: { name }
      })
      const lines = [
        msg(u1, null),
        msg(a1, u1, "assistant"),
        row(k1, a1, "state:kept"),
        row(n1, a1, "other"),
        row(k2, n1, "state:kept"),
        row(k3, a1, "state:kept", "not empty"),
        msg(u2, k2),
        row(id(), u2, "state:kept")
      ]
      const copiedFrom = (entries: ReadonlyArray<Raw>) =>
        entries.map((entry) => (entry["forkedFrom"] as Raw | undefined)?.["messageUuid"]).filter(Boolean)
      await withSdkFork(async (sdkFork) => {
        const { forkedId, theirs } = await sdkFork(lines.map((line) => JSON.stringify(line)).join("\n") + "\n", a1)
        const ours = forkTranscript(decode(lines), { ...options({ upToUuid: a1 }), newSessionId: forkedId }).map(raw)
        expect(copiedFrom(ours)).toEqual([u1, a1, k1, k2])
        expect(copiedFrom(ours)).toEqual(copiedFrom(theirs))
        expect(shape(ours)).toEqual(shape(theirs.filter((entry) => !SESSION_STATE_TYPES.has(String(entry["type"])))))
      })
    })

    it("carries the same API request routes as the SDK", async () => {
      const route = (provider: unknown, credential: unknown): Raw => ({
        type: "api-request-route",
        provider,
        credential,
        sessionId: "old"
      })
      const [u1, a1] = [crypto.randomUUID(), crypto.randomUUID()]
      const lines = [
        route("customEndpoint", "key"),
        msg(u1, null),
        route("bedrock", "cloud"),
        route("customEndpoint", "key"),
        route("someday", "passkey"),
        route("unrecorded", "unrecorded"),
        route("unrecorded", "key"),
        route(7, "key"),
        msg(a1, u1, "assistant")
      ]
      await withSdkFork(async (sdkFork) => {
        const text = lines.map((line) => JSON.stringify(line)).join("\n") + "\n"
        const { forkedId, theirs } = await sdkFork(text, undefined)
        const ours = forkTranscript(decode(lines), { ...options(), newSessionId: forkedId }).map(raw)
        const routes = (entries: ReadonlyArray<Raw>) => entries.filter((entry) => entry["type"] === "api-request-route")
        expect(routes(theirs)).toHaveLength(5)
        expect(routes(ours)).toEqual(routes(theirs))
      })
    })
  }
)
