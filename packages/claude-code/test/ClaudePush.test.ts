/**
 * `ClaudePush.pushSession` against the in-process Acontext emulator over real HTTP: every
 * fixture session pushed and read back, idempotent re-push, resume after a failure midway,
 * divergence, bad ids, unknown and ambiguous sessions, damaged transcripts.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import type { TranscriptBlob } from "@acx/convert/TranscriptBlobs"
import * as Fixtures from "@acx/fixtures"
import * as Acontext from "@acx/storage/AcontextClient"
import { AcontextClient } from "@acx/storage/AcontextClient"
import * as Emulator from "@acx/testing/AcontextEmulator"
import { AcontextEmulator } from "@acx/testing/AcontextEmulator"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"

type Block = { readonly [key: string]: unknown }
type Blob = { readonly role: string; readonly content: ReadonlyArray<Block> }

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-push-"))
const temp = { file: (name: string) => path.join(tempRoot, name) }
afterAll(() => fs.rmSync(tempRoot, { recursive: true, force: true }))

/** A fresh emulator and acx's client on it (fast retries), per test. */
const Stack = Layer.unwrapEffect(
  Effect.map(AcontextEmulator, (emulator) =>
    Acontext.layer({
      apiKey: Acontext.apiKey(emulator.apiKey),
      baseUrl: emulator.url,
      retry: Schedule.exponential("5 millis").pipe(Schedule.intersect(Schedule.recurs(3)))
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provideMerge(Layer.orDie(Emulator.layer())))

const str = (value: unknown): string => (typeof value === "string" ? value : "")

/**
 * What Acontext's anthropic converter gives back for a stored block (docs/acontext.md; the
 * emulator in `@acx/testing` follows the server's converter), or `undefined` when it is
 * dropped: empty texts and thinking, tool calls without id or name, unknown block types; tool
 * results flattened to one text. Tool-use inputs come back with their keys sorted (Go's
 * json.Marshal); `toStrictEqual` ignores key order, so the input is compared as a value.
 */
const readBackBlock = (block: Block): Block | undefined => {
  switch (block["type"]) {
    case "text":
      return str(block["text"]) === "" ? undefined : { type: "text", text: block["text"] }
    case "tool_use":
      return str(block["id"]) === "" || str(block["name"]) === ""
        ? undefined
        : { type: "tool_use", id: block["id"], name: block["name"], input: block["input"] ?? {} }
    case "tool_result": {
      const content = block["content"]
      const text = typeof content === "string"
        ? content
        : Array.isArray(content)
        ? content.map((item: Block) => (item["type"] === "text" || item["type"] === undefined) ? str(item["text"]) : "")
          .join("")
        : ""
      return str(block["tool_use_id"]) === "" ? undefined : {
        type: "tool_result",
        tool_use_id: block["tool_use_id"],
        content: [{ type: "text", text }],
        is_error: block["is_error"] === true
      }
    }
    case "thinking":
      return str(block["thinking"]) === ""
        ? undefined
        : { type: "thinking", thinking: block["thinking"], signature: str(block["signature"]) }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: str(block["data"]) }
    case "image":
    case "document": {
      const source = block["source"] as Block | undefined
      if (source?.["type"] === "base64") {
        return {
          type: block["type"],
          source: { type: "base64", media_type: source["media_type"], data: source["data"] }
        }
      }
      if (source?.["type"] === "url") return { type: block["type"], source: { type: "url", url: source["url"] } }
      return undefined
    }
    default:
      return undefined
  }
}

const readBack = (blob: Blob): Blob => ({
  role: blob.role,
  content: blob.content.flatMap((block) => {
    const out = readBackBlock(block)
    return out === undefined ? [] : [out]
  })
})

const expectedReadBack = (blobs: ReadonlyArray<{ readonly blob: unknown; readonly meta: unknown }>) =>
  blobs.map(({ blob, meta }) => ({ message: readBack(blob as Blob), meta: meta ?? {} }))

/** The session as Acontext returns it (format=anthropic). */
const stored = (sessionId: string) =>
  Effect.flatMap(AcontextClient, (acontext) => Stream.runCollect(acontext.messages(sessionId))).pipe(
    Effect.map((chunk) => Chunk.toArray(chunk).map(({ message, meta }) => ({ message, meta })))
  )

const storeRequests = Effect.flatMap(AcontextEmulator, (e) => e.requests).pipe(
  Effect.map((log) => log.filter((entry) => entry.route === "storeMessage"))
)

/** Parses a transcript as ClaudeProjects does (lenient), for expected values. */
const readTranscript = (configDir: string, projectKey: string, sessionId: string) =>
  ClaudeProjects.ClaudeProjects.pipe(
    Effect.flatMap((claude) => claude.readSession(projectKey, sessionId)),
    Effect.provide(ClaudeProjects.layerNode({ configDir }))
  )

const toolIds = (blobs: ReadonlyArray<{ readonly blob: unknown }>, type: "tool_use" | "tool_result") =>
  blobs.flatMap(({ blob }) =>
    (blob as Blob).content.filter((b) => b["type"] === type).map((b) =>
      str(type === "tool_use" ? b["id"] : b["tool_use_id"])
    )
  )

describe("pushSession: ids and lookup (no fixtures needed)", () => {
  const configDir = temp.file("empty-config")
  fs.mkdirSync(path.join(configDir, "projects", "p"), { recursive: true })

  it.live("an invalid session id fails with InvalidSessionId before any request", () =>
    Effect.gen(function*() {
      for (const projectKey of [undefined, "p"]) {
        const error = yield* Effect.flip(
          ClaudePush.pushSession({ from: { configDir }, sessionId: "../etc", projectKey })
        )
        expect(error).toMatchObject({ _tag: "ClaudeProjectsError", reason: "InvalidSessionId" })
      }
      expect(yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)).toEqual([])
      expect(fs.readdirSync(path.join(configDir, "projects", "p"))).toEqual([])
    }).pipe(Effect.provide(Stack)))

  it.live("an unknown session fails with SessionNotFound, with or without projectKey, before any request", () =>
    Effect.gen(function*() {
      const sessionId = randomUUID()
      for (const projectKey of [undefined, "p", "no-such-project"]) {
        const error = yield* Effect.flip(ClaudePush.pushSession({ from: { configDir }, sessionId, projectKey }))
        expect(error).toBeInstanceOf(ClaudePush.ClaudePushError)
        expect(error).toMatchObject({ reason: "SessionNotFound", sessionId })
      }
      expect(yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)).toEqual([])
    }).pipe(Effect.provide(Stack)))

  it.live("a project key that leaves the projects directory is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        ClaudePush.pushSession({ from: { configDir }, sessionId: randomUUID(), projectKey: ".." })
      )
      expect(error).toMatchObject({ _tag: "ClaudeProjectsError", reason: "PathEscape" })
      expect(yield* Effect.flatMap(AcontextEmulator, (e) => e.requests)).toEqual([])
    }).pipe(Effect.provide(Stack)))
})

describe(
  "pushSession on the fixture sessions",
  () => {
    const built = Fixtures.buildClaudeConfigDir(temp.file("config"))
    const configDir = built.configDir
    const sessions = built.sessions
    const blobsOf = (
      projectKey: string,
      sessionId: string,
      options: Parameters<typeof ClaudePush.sessionBlobs>[1] = {}
    ) =>
      Effect.map(
        readTranscript(configDir, projectKey, sessionId),
        (read) => ClaudePush.sessionBlobs(read.entries, options)
      )

    for (const session of sessions) {
      it.live(
        `${Fixtures.relative(session.source)}: pushed in conversation order, read back equal; a re-push stores nothing`,
        () =>
          Effect.gen(function*() {
            const { projectKey, sessionId } = session
            const blobs = yield* blobsOf(projectKey, sessionId)
            expect(blobs.length).toBeGreaterThan(0)
            const progress: Array<ClaudePush.PushProgress> = []
            // projectKey omitted: found by looking in every project
            const first = yield* ClaudePush.pushSession({
              from: { configDir },
              sessionId,
              onProgress: (p) => Effect.sync(() => progress.push(p))
            })
            expect(first).toEqual({
              projectKey,
              sessionId,
              acontextSessionId: sessionId,
              total: blobs.length,
              stored: blobs.length,
              alreadyPresent: 0,
              recovered: 0,
              skippedLines: 0
            })
            expect(progress.map((p) => p.stored)).toEqual(blobs.map((_, i) => i + 1))
            expect(yield* stored(sessionId)).toStrictEqual(expectedReadBack(blobs))

            // Fragments merged exactly once: every tool call of the main conversation is pushed
            // once, and every tool result comes after its call.
            const uses = toolIds(blobs, "tool_use")
            expect(new Set(uses).size).toBe(uses.length)
            const read = yield* readTranscript(configDir, projectKey, sessionId)
            const onChain = new Set(
              ClaudePush.pushOrder(read.entries).flatMap((entry) => {
                const content = (entry as { message?: { content?: unknown } }).message?.content
                return entry.type === "assistant" && Array.isArray(content)
                  ? content.filter((b: Block) => b["type"] === "tool_use").map((b: Block) => str(b["id"]))
                  : []
              })
            )
            expect(new Set(uses)).toEqual(onChain)
            // one assistant message per API message (message.id), never one per fragment
            const messageIds = new Set(
              ClaudePush.pushOrder(read.entries).flatMap((entry) => {
                const id = (entry as { message?: { id?: unknown } }).message?.id
                return entry.type === "assistant" && typeof id === "string" ? [id] : []
              })
            )
            expect(blobs.filter(({ blob }) => (blob as Blob).role === "assistant").length)
              .toBeLessThanOrEqual(messageIds.size)
            const uuids = blobs.flatMap(({ uuid }) => (uuid === undefined ? [] : [uuid]))
            expect(new Set(uuids).size).toBe(uuids.length)
            blobs.forEach(({ blob }, index) => {
              for (const block of (blob as Blob).content) {
                if (block["type"] !== "tool_result") continue
                const use = blobs.findIndex(({ blob: b }) =>
                  (b as Blob).content.some((x) => x["type"] === "tool_use" && x["id"] === block["tool_use_id"])
                )
                if (use !== -1) expect(use).toBeLessThan(index)
              }
            })

            const requestsBefore = (yield* storeRequests).length
            const again = yield* ClaudePush.pushSession({ from: { configDir }, sessionId, projectKey })
            expect(again).toMatchObject({ total: blobs.length, stored: 0, alreadyPresent: blobs.length })
            expect((yield* storeRequests).length).toBe(requestsBefore)
            expect(yield* stored(sessionId)).toStrictEqual(expectedReadBack(blobs))
          }).pipe(Effect.provide(Stack)),
        90_000
      )
    }

    // The session for the fault and divergence tests: the largest of those under 100 messages.
    // A few dozen stores are enough for every fault kind to hit (the rate draws are seeded: the
    // same requests every run, the hits checked below); the largest fixture (hundreds of
    // messages) only multiplied every request, and is pushed whole by its own test above.
    let chosen: { session: (typeof sessions)[number]; blobs: Array<TranscriptBlob> } | undefined
    const largest = Effect.suspend(() =>
      chosen !== undefined ? Effect.succeed(chosen) : Effect.gen(function*() {
        for (const session of sessions) {
          const blobs = yield* blobsOf(session.projectKey, session.sessionId)
          if (blobs.length < 100 && (chosen === undefined || blobs.length > chosen.blobs.length)) {
            chosen = { session, blobs }
          }
        }
        expect(chosen!.blobs.length).toBeGreaterThan(20)
        return chosen!
      })
    )

    it.live("full history: a compacted session is pushed from its first prompt, not from the last boundary", () =>
      Effect.gen(function*() {
        const compacted = sessions.filter((s) => fs.readFileSync(s.file, "utf8").includes("\"compact_boundary\""))
        expect(compacted.length).toBeGreaterThan(0)
        let pushed = 0
        for (const session of compacted) {
          const read = yield* readTranscript(configDir, session.projectKey, session.sessionId)
          const order = ClaudePush.pushOrder(read.entries)
          const boundary = order.findIndex((e) =>
            e.type === "system" && (e as { subtype?: unknown }).subtype === "compact_boundary"
          )
          expect(boundary).toBeGreaterThan(0)
          const before = order.slice(0, boundary).filter((e) => e.type === "user" || e.type === "assistant")
          expect(before.length).toBeGreaterThan(0)
          const afterOnly = ClaudePush.sessionBlobs(order.slice(boundary))
          const whole = ClaudePush.sessionBlobs(read.entries)
          expect(whole.length).toBeGreaterThan(afterOnly.length)
          // pushed here when small: the per-session test above pushes every session and checks
          // its total is the whole history's (`whole`); a large one is not pushed twice
          if (whole.length < 100) {
            const result = yield* ClaudePush.pushSession({ from: { configDir }, sessionId: session.sessionId })
            expect(result.total).toBe(whole.length)
            pushed += 1
          }
        }
        expect(pushed).toBeGreaterThan(0)
      }).pipe(Effect.provide(Stack)))

    it.live("a failure after N stores fails the push; the re-push completes with nothing lost or duplicated", () =>
      Effect.gen(function*() {
        const { blobs, session } = yield* largest
        const { sessionId } = session
        expect(blobs.length).toBeGreaterThan(4)
        const N = Math.floor(blobs.length / 2)
        const emu = yield* AcontextEmulator
        // From the (N+1)th store on, every store answers 503: the client retries, then gives up.
        const error = yield* Effect.flip(ClaudePush.pushSession({
          from: { configDir },
          sessionId,
          onProgress: (p) =>
            p.stored === N ? Effect.orDie(emu.setFaults([{ route: "storeMessage", status: 503 }])) : Effect.void
        }))
        expect(error).toMatchObject({ _tag: "AcontextError", reason: "Server", status: 503 })
        expect((yield* emu.messages(sessionId)).length).toBe(N)

        yield* emu.clearFaults
        const resumed = yield* ClaudePush.pushSession({ from: { configDir }, sessionId })
        expect(resumed).toMatchObject({ total: blobs.length, alreadyPresent: N, stored: blobs.length - N })
        expect(yield* stored(sessionId)).toStrictEqual(expectedReadBack(blobs))
      }).pipe(Effect.provide(Stack)))

    for (
      const { faults, name } of [
        {
          name: "store-then-drop at rate 0.1",
          faults: [{ route: "storeMessage", drop: true, afterEffect: true, rate: 0.1 }]
        },
        {
          name: "store-then-502 at rate 0.5",
          faults: [{ route: "storeMessage", status: 502, afterEffect: true, rate: 0.5, seed: 5 }]
        },
        { name: "store-then-drop on every request", faults: [{ route: "storeMessage", drop: true, afterEffect: true }] }
      ] satisfies ReadonlyArray<{ name: string; faults: ReadonlyArray<Emulator.AcontextFault> }>
    ) {
      it.live(`${name}: every message stored once, in order; a re-push stores nothing`, () =>
        Effect.gen(function*() {
          const { blobs, session } = yield* largest
          const { sessionId } = session
          const emu = yield* AcontextEmulator
          yield* emu.setFaults(faults)
          const result = yield* ClaudePush.pushSession({ from: { configDir }, sessionId })
          yield* emu.clearFaults
          const hit = (yield* emu.requests).filter((r) => r.route === "storeMessage" && r.faulted).length
          expect(hit).toBeGreaterThan(0)
          expect(result).toMatchObject({ total: blobs.length, stored: blobs.length, recovered: hit })
          expect(yield* stored(sessionId)).toStrictEqual(expectedReadBack(blobs))
          const again = yield* ClaudePush.pushSession({ from: { configDir }, sessionId })
          expect(again).toMatchObject({ stored: 0, alreadyPresent: blobs.length })
        }).pipe(Effect.provide(Stack)))
    }

    it.live("targetSessionId pushes into another Acontext session: a Diverged session completes there", () =>
      Effect.gen(function*() {
        const { blobs, session } = yield* largest
        const { sessionId } = session
        const acontext = yield* AcontextClient
        yield* acontext.createSession({ useUuid: sessionId })
        yield* acontext.storeMessage(sessionId, { role: "user", content: [{ type: "text", text: "someone else" }] })
        const diverged = yield* Effect.flip(ClaudePush.pushSession({ from: { configDir }, sessionId }))
        expect(diverged).toMatchObject({ reason: "Diverged" })
        const fresh = randomUUID()
        const result = yield* ClaudePush.pushSession({ from: { configDir }, sessionId, targetSessionId: fresh })
        expect(result).toMatchObject({ sessionId, acontextSessionId: fresh, stored: blobs.length, alreadyPresent: 0 })
        expect(yield* stored(fresh)).toStrictEqual(expectedReadBack(blobs))
        expect((yield* stored(sessionId)).length).toBe(1)
        const bad = yield* Effect.flip(ClaudePush.pushSession({ from: { configDir }, sessionId, targetSessionId: "x" }))
        expect(bad).toMatchObject({ _tag: "ClaudeProjectsError", reason: "InvalidSessionId" })
      }).pipe(Effect.provide(Stack)))

    it.live("a session holding other messages is Diverged and nothing is stored", () =>
      Effect.gen(function*() {
        const { blobs, session } = yield* largest
        const { sessionId } = session
        const acontext = yield* AcontextClient
        yield* acontext.createSession({ useUuid: sessionId })
        // the second message first: not a prefix
        yield* acontext.storeMessage(sessionId, blobs[1]!.blob, { meta: blobs[1]!.meta })
        const before = (yield* storeRequests).length
        const error = yield* Effect.flip(ClaudePush.pushSession({ from: { configDir }, sessionId }))
        expect(error).toMatchObject({ _tag: "ClaudePushError", reason: "Diverged", existing: 1, mismatchAt: 0 })
        expect((yield* storeRequests).length).toBe(before)
        expect((yield* stored(sessionId)).length).toBe(1)
      }).pipe(Effect.provide(Stack)))

    it.live("a session holding more than the transcript is Diverged too", () =>
      Effect.gen(function*() {
        const { blobs, session } = yield* largest
        const { sessionId } = session
        yield* ClaudePush.pushSession({ from: { configDir }, sessionId })
        const acontext = yield* AcontextClient
        yield* acontext.storeMessage(sessionId, { role: "user", content: [{ type: "text", text: "later" }] })
        const error = yield* Effect.flip(ClaudePush.pushSession({ from: { configDir }, sessionId }))
        expect(error).toMatchObject({ reason: "Diverged", existing: blobs.length + 1, mismatchAt: blobs.length })
        expect((yield* stored(sessionId)).length).toBe(blobs.length + 1)
      }).pipe(Effect.provide(Stack)))

    it.live("the same session id in two projects is Ambiguous unless projectKey says which", () =>
      Effect.gen(function*() {
        const dir = temp.file("ambiguous")
        const copy = Fixtures.buildClaudeConfigDir(dir)
        const session = copy.sessions[0]!
        const other = path.join(dir, "projects", "zz-other-project")
        fs.mkdirSync(other, { recursive: true })
        fs.copyFileSync(session.file, path.join(other, `${session.sessionId}.jsonl`))
        const error = yield* Effect.flip(
          ClaudePush.pushSession({ from: { configDir: dir }, sessionId: session.sessionId })
        )
        expect(error).toMatchObject({
          reason: "Ambiguous",
          candidates: [session.projectKey, "zz-other-project"]
        })
        expect(yield* storeRequests).toEqual([])
        const result = yield* ClaudePush.pushSession({
          from: { configDir: dir },
          sessionId: session.sessionId,
          projectKey: "zz-other-project"
        })
        expect(result.projectKey).toBe("zz-other-project")
        expect(result.stored).toBeGreaterThan(0)
      }).pipe(Effect.provide(Stack)))

    it.live("garbage lines and a torn last line: the good part is pushed, the bad lines counted", () =>
      Effect.gen(function*() {
        const { session } = yield* largest
        const lines = fs.readFileSync(session.file, "utf8").split("\n").filter((l) => l.trim() !== "")
        const last = lines.at(-1)!
        const good = lines.slice(0, -1)
        const middle = Math.floor(good.length / 2)
        const damaged = [
          ...good.slice(0, middle),
          "this is not json",
          "{\"type\":\"user\",",
          "[1,2,3]",
          ...good.slice(middle)
        ].join("\n") + "\n" + last.slice(0, Math.floor(last.length / 2))
        const dir = temp.file("damaged")
        const projectKey = "damaged"
        const sessionId = randomUUID()
        fs.mkdirSync(path.join(dir, "projects", projectKey), { recursive: true })
        fs.writeFileSync(path.join(dir, "projects", projectKey, `${sessionId}.jsonl`), damaged)
        const goodEntries = good.map((l) => JSON.parse(l))
        const expected = ClaudePush.sessionBlobs(goodEntries)
        expect(expected.length).toBeGreaterThan(0)

        const result = yield* ClaudePush.pushSession({ from: { configDir: dir }, sessionId, projectKey })
        expect(result).toEqual({
          projectKey,
          sessionId,
          acontextSessionId: sessionId,
          total: expected.length,
          stored: expected.length,
          alreadyPresent: 0,
          recovered: 0,
          skippedLines: 4
        })
        expect(yield* stored(sessionId)).toStrictEqual(expectedReadBack(expected))
      }).pipe(Effect.provide(Stack)))

    it.live("includeSidechains adds the inline subagent turns; the result still reads back equal", () =>
      Effect.gen(function*() {
        const withInline = sessions.filter((s) => fs.readFileSync(s.file, "utf8").includes("\"isSidechain\":true"))
        expect(withInline.length).toBeGreaterThan(0)
        for (const session of withInline) {
          const plain = yield* blobsOf(session.projectKey, session.sessionId)
          const withSides = yield* blobsOf(session.projectKey, session.sessionId, { includeSidechains: true })
          expect(withSides.length).toBeGreaterThan(plain.length)
          const result = yield* ClaudePush.pushSession({
            from: { configDir },
            sessionId: session.sessionId,
            includeSidechains: true
          })
          expect(result.total).toBe(withSides.length)
          expect(yield* stored(session.sessionId)).toStrictEqual(expectedReadBack(withSides))
        }
      }).pipe(Effect.provide(Stack)))
  }
)
