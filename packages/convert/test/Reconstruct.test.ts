import { forkTranscript } from "@acx/convert/Fork"
import { mergeAssistantFragments } from "@acx/convert/Fragments"
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { ancestry, conversation, sidechains } from "@acx/convert/Reconstruct"
import { sessionStats } from "@acx/convert/Stats"
import { transcriptToBlobs } from "@acx/convert/TranscriptBlobs"
import { transcriptToMarkdown } from "@acx/convert/TranscriptMarkdown"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as Fixtures from "@acx/fixtures"
import type { TranscriptEntry } from "@acx/schema/Transcript"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

type Raw = Record<string, unknown>

const decode = (raws: ReadonlyArray<Raw>): Array<TranscriptEntry> => {
  const parsed = parseTranscript(raws.map((raw) => JSON.stringify(raw)).join("\n"))
  expect(parsed.errors).toEqual([])
  return parsed.entries.map(({ entry }) => entry)
}

let clock = 0
const stamp = () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString()
const user = (uuid: string, parentUuid: string | null, extra: Raw = {}): Raw => ({
  type: "user",
  uuid,
  parentUuid,
  timestamp: stamp(),
  message: { role: "user", content: uuid },
  ...extra
})
const assistant = (uuid: string, parentUuid: string | null, extra: Raw = {}, content: Array<Raw> = []): Raw => ({
  type: "assistant",
  uuid,
  parentUuid,
  timestamp: stamp(),
  message: {
    id: `msg-${uuid}`,
    role: "assistant",
    content: content.length > 0 ? content : [{ type: "text", text: uuid }]
  },
  ...extra
})
const toolResult = (uuid: string, parentUuid: string, toolUseId: string): Raw =>
  user(uuid, parentUuid, {
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content: "ok" }] }
  })
const boundary = (uuid: string, logicalParentUuid: string, compactMetadata: Raw = {}): Raw => ({
  type: "system",
  subtype: "compact_boundary",
  content: "Conversation compacted",
  uuid,
  parentUuid: null,
  logicalParentUuid,
  timestamp: stamp(),
  compactMetadata: { trigger: "auto", preTokens: 1, ...compactMetadata }
})

const uuids = (items: ReadonlyArray<{ readonly uuid: string }>) => items.map((item) => item.uuid)

describe("conversation", () => {
  it("is empty without turns and never throws on odd input", () => {
    expect(conversation([])).toEqual([])
    expect(conversation(decode([{ type: "ai-title", aiTitle: "x" }, { type: "user", message: "no uuid" }]))).toEqual([])
  })

  it("follows parentUuid from the newest leaf; the other branch is dropped", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      user("u2", "a1"),
      assistant("old", "u2"),
      assistant("new", "u2"),
      { type: "custom-title", customTitle: "t" }
    ])
    expect(uuids(conversation(entries))).toEqual(["u1", "a1", "u2", "new"])
  })

  it("relinks across compact boundaries through logicalParentUuid and flags the summary", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      boundary("b1", "a1"),
      user("s1", "b1", { isCompactSummary: true, isMeta: true }),
      assistant("a2", "s1"),
      boundary("b2", "a2"),
      user("s2", "b2", { isCompactSummary: true }),
      user("u3", "s2")
    ])
    const items = conversation(entries)
    expect(uuids(items)).toEqual(["u1", "a1", "b1", "s1", "a2", "b2", "s2", "u3"])
    expect(items.filter((item) => item.isCompactBoundary).map((item) => item.uuid)).toEqual(["b1", "b2"])
    expect(items.find((item) => item.uuid === "s1")).toMatchObject({ isMeta: true, isCompactSummary: true })
  })

  it("honours a preserved segment: kept messages come once, after the boundary", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      user("p1", "a1"),
      assistant("p2", "p1"),
      boundary("b1", "p2", { preservedSegment: { headUuid: "p1", anchorUuid: "s1", tailUuid: "p2" } }),
      user("s1", "b1", { isCompactSummary: true }),
      user("u2", "s1")
    ])
    expect(uuids(conversation(entries))).toEqual(["u1", "a1", "b1", "s1", "p1", "p2", "u2"])
  })

  it("honours preserved messages: the listed uuids follow the anchor, its other children the last one", () => {
    const entries = decode([
      user("u1", null),
      assistant("k1", "u1"),
      user("k2", "k1"),
      boundary("b1", "k2", { preservedMessages: { anchorUuid: "s1", uuids: ["k1", "k2"] } }),
      user("s1", "b1", { isCompactSummary: true }),
      assistant("a2", "s1")
    ])
    expect(uuids(conversation(entries))).toEqual(["u1", "b1", "s1", "k1", "k2", "a2"])
  })

  it("is total and lists each entry once on arbitrary graphs", () => {
    const ids = ["a", "b", "c", "d", "e", "f"]
    const raw = fc.record({
      type: fc.constantFrom("user", "assistant", "system", "attachment", "progress", "summary"),
      uuid: fc.constantFrom(...ids),
      parentUuid: fc.option(fc.constantFrom(...ids, "zz")),
      logicalParentUuid: fc.option(fc.constantFrom(...ids)),
      isSidechain: fc.boolean(),
      subtype: fc.constantFrom("compact_boundary", "other"),
      compactMetadata: fc.record({
        preservedSegment: fc.record({
          headUuid: fc.constantFrom(...ids),
          anchorUuid: fc.constantFrom(...ids),
          tailUuid: fc.constantFrom(...ids)
        })
      })
    }).map((entry): Raw => ({
      ...entry,
      message: entry.type === "assistant"
        ? { role: "assistant", id: "m", content: [{ type: "tool_use", id: "t", name: "x", input: {} }] }
        : { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "" }] }
    }))
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 12 }), fc.constantFrom(...ids), (raws, target) => {
        const entries = parseTranscript(raws.map((entry) => JSON.stringify(entry)).join("\n")).entries.map((
          { entry }
        ) => entry)
        const items = conversation(entries)
        expect(new Set(uuids(items)).size).toBe(items.length)
        const chain = ancestry(entries, target)
        expect(new Set(uuids(chain)).size).toBe(chain.length)
        expect(sidechains(entries).flatMap((side) => side.entries).every((item) => item.isSidechain)).toBe(true)
      }),
      { numRuns: 2_000 }
    )
  })

  it("excludes sidechain entries from the main chain", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      user("side1", "a1", { isSidechain: true, agentId: "ag" }),
      assistant("side2", "side1", { isSidechain: true, agentId: "ag" })
    ])
    expect(uuids(conversation(entries))).toEqual(["u1", "a1"])
  })

  it("splices orphaned tool results and sibling blocks next to their assistant", () => {
    const entries = decode([
      user("u1", null),
      assistant("t1", "u1", {
        message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "tu1", name: "A", input: {} }] }
      }),
      assistant("t2", "t1", {
        message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "tu2", name: "B", input: {} }] }
      }),
      toolResult("r1", "t1", "tu1"),
      toolResult("r2", "t2", "tu2"),
      assistant("a2", "r2"),
      user("u2", "a2")
    ])
    const items = conversation(entries)
    expect(uuids(items)).toEqual(["u1", "t1", "t2", "r1", "r2", "a2", "u2"])
    expect(items.filter((item) => item.spliced).map((item) => item.uuid)).toEqual(["r1"])
  })
})

describe("shallow line decoding", () => {
  // `decodeLine` checks only the entry envelope, so an entry of a known type can carry any nested
  // payload; every reader of decoded entries must stay total on them.
  const garbage = fc.oneof(
    fc.jsonValue(),
    fc.record({ role: fc.jsonValue(), content: fc.jsonValue(), id: fc.jsonValue() }, { requiredKeys: [] }),
    fc.record({
      role: fc.constantFrom("user", "assistant"),
      id: fc.constantFrom("m1", "m2"),
      content: fc.array(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            type: fc.constantFrom("text", "tool_use", "tool_result", "thinking", "image"),
            id: fc.oneof(fc.constantFrom("t1", "t2"), fc.jsonValue()),
            tool_use_id: fc.oneof(fc.constantFrom("t1", "t2"), fc.jsonValue()),
            text: fc.jsonValue(),
            content: fc.jsonValue(),
            input: fc.jsonValue()
          }, { requiredKeys: ["type"] })
        ),
        { maxLength: 3 }
      ),
      usage: fc.jsonValue(),
      stop_reason: fc.jsonValue()
    }, { requiredKeys: [] })
  )
  const ids = ["a", "b", "c", "d"]
  const raw = fc.record({
    type: fc.constantFrom("user", "assistant", "system", "attachment", "progress", "summary", "custom-title"),
    uuid: fc.constantFrom(...ids),
    parentUuid: fc.oneof(fc.constantFrom(...ids, null), fc.jsonValue()),
    logicalParentUuid: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
    timestamp: fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z"),
    isSidechain: fc.oneof(fc.boolean(), fc.jsonValue()),
    isMeta: fc.jsonValue(),
    isCompactSummary: fc.jsonValue(),
    agentId: fc.jsonValue(),
    subtype: fc.oneof(fc.constantFrom("compact_boundary", "turn_duration"), fc.jsonValue()),
    compactMetadata: fc.jsonValue(),
    message: garbage,
    toolUseResult: fc.jsonValue(),
    sourceToolAssistantUUID: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
    attachment: fc.jsonValue(),
    data: fc.jsonValue(),
    customTitle: fc.jsonValue()
  }, { requiredKeys: ["type", "uuid", "timestamp"] })

  it("property: entries with garbage nested payloads decode, and every reader of them is total", async () => {
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 10 }), fc.constantFrom(...ids), (raws, target) => {
        const parsed = parseTranscript(raws.map((entry) => JSON.stringify(entry)).join("\n"))
        // every such line is an entry: the envelope (type, uuid, timestamp) is well-formed
        expect(parsed.errors).toEqual([])
        const entries = parsed.entries.map(({ entry }) => entry)
        expect(entries.length).toBe(raws.length)
        const items = conversation(entries)
        expect(new Set(uuids(items)).size).toBe(items.length)
        ancestry(entries, target)
        sidechains(entries)
        sessionStats(entries)
        transcriptToBlobs(entries)
        transcriptToBlobs(entries, { includeThinking: true })
        mergeAssistantFragments(entries)
        forkTranscript(entries, { newSessionId: "s2", now: "2026-01-02T00:00:00.000Z", uuid: () => "x" })
        forkTranscript(entries, {
          newSessionId: "s2",
          upToUuid: target,
          now: "2026-01-02T00:00:00.000Z",
          uuid: () => "y"
        })
        transcriptToMarkdown(entries)
      }),
      { numRuns: 500 }
    )
  })
})

describe("ancestry", () => {
  it("gives the root-to-entry chain, across boundaries", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      assistant("x", "u1"),
      boundary("b1", "a1"),
      user("s1", "b1")
    ])
    expect(uuids(ancestry(entries, "s1"))).toEqual(["u1", "a1", "b1", "s1"])
    expect(uuids(ancestry(entries, "x"))).toEqual(["u1", "x"])
    expect(ancestry(entries, "missing")).toEqual([])
  })

  it("survives parent cycles", () => {
    const entries = decode([user("c1", "c2"), assistant("c2", "c1")])
    expect(uuids(ancestry(entries, "c2"))).toEqual(["c1", "c2"])
  })
})

describe("sidechains", () => {
  it("groups inline sidechain entries per agent, or per root without one", () => {
    const entries = decode([
      user("u1", null),
      assistant("a1", "u1"),
      user("s1", null, { isSidechain: true, agentId: "ag1" }),
      user("n1", null, { isSidechain: true }),
      assistant("s2", "s1", { isSidechain: true, agentId: "ag1" }),
      assistant("n2", "n1", { isSidechain: true })
    ])
    expect(sidechains(entries).map((side) => [side.agentId, side.rootUuid, uuids(side.entries)])).toEqual([
      ["ag1", "s1", ["s1", "s2"]],
      [undefined, "n1", ["n1", "n2"]]
    ])
  })
})

// ------------------------------------------------------------------------------------------------
// cross-check with the SDK's getSessionMessages on every fixture main transcript
// ------------------------------------------------------------------------------------------------

interface SdkSessionMessage {
  readonly uuid: string
  readonly type: string
}
type GetSessionMessages = (
  sessionId: string,
  options: { readonly dir: string }
) => Promise<ReadonlyArray<SdkSessionMessage>>

const loadSdk = async (): Promise<GetSessionMessages> => {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk")
  const sdk = (await import(pathToFileURL(entry).href)) as { readonly getSessionMessages: GetSessionMessages }
  return sdk.getSessionMessages
}

const mainTranscripts = () =>
  Fixtures.transcriptFiles().filter((file) => !file.includes(`${path.sep}subagents${path.sep}`))

describe(
  "fixture transcripts against getSessionMessages",
  () => {
    it("puts every inline sidechain entry in one sidechain and none in the conversation", () => {
      let seen = 0
      for (const file of mainTranscripts()) {
        const entries = parseTranscript(fs.readFileSync(file, "utf8")).entries.map(({ entry }) => entry)
        const inline = new Set(
          entries.flatMap((entry) =>
            (entry as Raw)["isSidechain"] === true && typeof entry.uuid === "string" ? [entry.uuid] : []
          )
        )
        const grouped = sidechains(entries).flatMap((side) => uuids(side.entries))
        expect(new Set(grouped), Fixtures.relative(file)).toEqual(inline)
        expect(grouped.length, Fixtures.relative(file)).toBe(inline.size)
        expect(conversation(entries).filter((item) => item.isSidechain && !item.spliced), Fixtures.relative(file))
          .toEqual([])
        seen += inline.size
      }
      expect(seen).toBeGreaterThan(0)
    })

    it("matches the SDK after the last compact boundary, and contains it all", async () => {
      const files = mainTranscripts()
      expect(files.length).toBeGreaterThan(0)
      const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-reconstruct-")))
      const configDir = path.join(root, "config")
      const projectDir = path.join(root, "project")
      fs.mkdirSync(projectDir, { recursive: true })
      const transcriptsDir = path.join(configDir, "projects", encodeProjectDir(fs.realpathSync(projectDir)))
      fs.mkdirSync(transcriptsDir, { recursive: true })
      const previous = process.env["CLAUDE_CONFIG_DIR"]
      process.env["CLAUDE_CONFIG_DIR"] = configDir
      try {
        const getSessionMessages = await loadSdk()
        for (const file of files) {
          const text = fs.readFileSync(file, "utf8")
          const sessionId = crypto.randomUUID()
          fs.writeFileSync(path.join(transcriptsDir, `${sessionId}.jsonl`), text)
          const sdk = uuids(await getSessionMessages(sessionId, { dir: projectDir }))
          const entries = parseTranscript(text).entries.map(({ entry }) => entry)
          const items = conversation(entries)
          const lastBoundary = items.reduce((last, item, index) => item.isCompactBoundary ? index : last, -1)
          const ours = uuids(
            items.slice(lastBoundary + 1).filter((item) =>
              (item.entry.type === "user" || item.entry.type === "assistant") && !item.isMeta && !item.isSidechain
            )
          )
          const label = Fixtures.relative(file)
          expect(sdk.length, label).toBeGreaterThan(0)
          expect(ours, label).toEqual(sdk)
          const all = new Set(uuids(items))
          expect(sdk.filter((uuid) => !all.has(uuid)), label).toEqual([])
          const last = items.filter((item) => !item.spliced).at(-1)
          if (last !== undefined) {
            expect(uuids(ancestry(entries, last.uuid)), label).toEqual(uuids(items.filter((item) => !item.spliced)))
          }
        }
      } finally {
        if (previous === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
        else process.env["CLAUDE_CONFIG_DIR"] = previous
        fs.rmSync(root, { recursive: true, force: true })
      }
    })
  }
)
