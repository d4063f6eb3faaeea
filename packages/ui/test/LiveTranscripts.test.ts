/**
 * The session page's shared live reader on real files and `fs.watch`: many streams of one
 * transcript read it once; each stream resumes from its own offset (an update's start replayed,
 * any other line start caught up on alone); a truncated file reloads every stream; the reader
 * closes with its last stream.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Pricing from "@acx/convert/Pricing"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { fileSource } from "../src/internal/fileTranscripts.js"
import * as LiveTranscripts from "../src/internal/liveTranscripts.js"
import type * as SessionView from "../src/SessionView.js"

const BACKLOG = 4

let root: string
let scope: Scope.CloseableScope
let projects: ClaudeProjects.ClaudeProjects
let live: LiveTranscripts.LiveTranscripts
const projectDir = () => path.join(root, "claude", "projects", "-home-dev-live")

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-live-"))
  fs.mkdirSync(projectDir(), { recursive: true })
  scope = Effect.runSync(Scope.make())
  const made = await Effect.runPromise(
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.make({ configDir: path.join(root, "claude") })
      const live = yield* LiveTranscripts.make(fileSource(projects, { acxHome: path.join(root, "home") }), {
        backlog: BACKLOG
      })
      return { projects, live }
    }).pipe(Effect.provide(NodeContext.layer), Scope.extend(scope))
  )
  projects = made.projects
  live = made.live
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(root, { recursive: true, force: true })
})

const prompt = (uuid: string, text: string) =>
  JSON.stringify({
    type: "user",
    uuid,
    timestamp: "2026-03-01T10:00:00.000Z",
    cwd: "/home/dev/live",
    message: { role: "user", content: text }
  }) + "\n"

const plant = async (id: string, lines: ReadonlyArray<string>) => {
  const file = path.join(projectDir(), `${id}.jsonl`)
  fs.writeFileSync(file, lines.join(""))
  const files = await Effect.runPromise(projects.listSessionFiles())
  return { file, session: files.find((found) => found.sessionId === id)! }
}

/**
 * A stream consumed in the background: its events so far, and its end. With `gate`, the client
 * reads its first event and then nothing until the gate opens.
 */
const open = (
  session: ClaudeProjects.SessionFile,
  from: number,
  mask = true,
  gate?: Deferred.Deferred<void>
) => {
  let text = ""
  const decoder = new TextDecoder()
  const fiber = Effect.runFork(
    live.events(session, from, mask, Pricing.builtinPricing).pipe(
      Stream.runForEach((bytes) =>
        Effect.zipRight(
          Effect.sync(() => (text += decoder.decode(bytes, { stream: true }))),
          gate === undefined ? Effect.void : Deferred.await(gate)
        )
      )
    )
  )
  const lines = () =>
    [...text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!) as SessionView.SessionLine)
  return {
    lines,
    /** The keys of the items sent, in order. */
    keys: () => lines().flatMap((line) => line.type === "items" ? line.items.map((item) => item.key) : []),
    ends: () => text.split(`"type":"end"`).length - 1,
    done: () => fiber.unsafePoll() !== null,
    stop: () => Effect.runPromise(Fiber.interrupt(fiber))
  }
}

describe("LiveTranscripts", () => {
  it("reads a transcript once for fifty streams from its start, and closes with the last one", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => prompt(`k${i}`, `prompt ${i} ${"x".repeat(2000)}`))
    const { session } = await plant("aaaaaaaa-0000-4000-8000-000000000001", lines)
    const before = live.counts()
    const streams = Array.from({ length: 50 }, () => open(session, 0))
    await vi.waitFor(() => expect(streams.every((stream) => stream.ends() >= 1)).toBe(true), { timeout: 30_000 })
    for (const stream of streams) expect(stream.keys()).toEqual(lines.map((_, i) => `k${i}`))
    expect(live.counts().readers).toBe(before.readers + 1)
    // one read of the file (and at most one more, when the watch reported it before it was read)
    expect(live.counts().reads - before.reads).toBeLessThanOrEqual(2)
    await Promise.all(streams.map((stream) => stream.stop()))
    expect(live.counts().readers).toBe(before.readers)
  })

  it("resumes each stream from its own offset: an update replayed, a line inside one caught up on", async () => {
    const a = prompt("a", "first")
    const b = prompt("b", "second")
    const c = prompt("c", "third")
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000002", [a, b])
    const all = open(session, 0)
    await vi.waitFor(() => expect(all.keys()).toEqual(["a", "b"]))
    fs.appendFileSync(file, c)
    await vi.waitFor(() => expect(all.keys()).toEqual(["a", "b", "c"]))
    const before = live.counts().reads
    // the page read a and b, then connected: the update that starts there is replayed, no read
    const fromUpdate = open(session, Buffer.byteLength(a + b))
    await vi.waitFor(() => expect(fromUpdate.keys()).toEqual(["c"]))
    expect(live.counts().reads).toBe(before)
    // the page read only a (the file grew meanwhile): b and c come from a catch-up of its own
    const fromLine = open(session, Buffer.byteLength(a))
    await vi.waitFor(() => expect(fromLine.keys()).toEqual(["b", "c"]))
    // the next line reaches all three, once each
    fs.appendFileSync(file, prompt("d", "fourth"))
    await vi.waitFor(() => {
      expect(all.keys()).toEqual(["a", "b", "c", "d"])
      expect(fromUpdate.keys()).toEqual(["c", "d"])
      expect(fromLine.keys()).toEqual(["b", "c", "d"])
    })
    await Promise.all([all, fromUpdate, fromLine].map((stream) => stream.stop()))
  })

  it("tells every stream to reload when the file is rewritten shorter, and a new stream reads it afresh", async () => {
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000003", [
      prompt("a", "a long first prompt"),
      prompt("b", "second")
    ])
    const streams = [open(session, 0), open(session, 0)]
    await vi.waitFor(() => expect(streams.every((stream) => stream.ends() === 1)).toBe(true))
    fs.writeFileSync(file, prompt("z", "short"))
    await vi.waitFor(() => expect(streams.every((stream) => stream.done())).toBe(true))
    for (const stream of streams) expect(stream.lines().at(-1)).toEqual({ type: "reload" })
    const fresh = open(session, 0)
    await vi.waitFor(() => expect(fresh.keys()).toEqual(["z"]))
    await fresh.stop()
  })

  it("opens one new reader after a rewrite while a stream still holds the closed one", async () => {
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000008", [prompt("a", "first line")])
    const before = live.counts().readers
    // a client that reads its first event and then nothing: it holds the old reader past its close
    const gate = Effect.runSync(Deferred.make<void>())
    const stuck = open(session, 0, true, gate)
    await vi.waitFor(() => expect(live.counts().readers).toBe(before + 1))
    fs.writeFileSync(file, prompt("z", "short"))
    await vi.waitFor(() => expect(live.counts().readers).toBe(before))
    const fresh = open(session, 0)
    await vi.waitFor(() => expect(fresh.keys()).toEqual(["z"]))
    // the old reader's last stream goes: the new reader stays the transcript's one reader
    Effect.runSync(Deferred.succeed(gate, undefined))
    await vi.waitFor(() => expect(stuck.done()).toBe(true))
    expect(stuck.lines().at(-1)).toEqual({ type: "reload" })
    const late = open(session, 0)
    await vi.waitFor(() => expect(late.keys()).toEqual(["z"]))
    expect(live.counts().readers).toBe(before + 1)
    fs.appendFileSync(file, prompt("y", "next"))
    await vi.waitFor(() => expect([fresh.keys(), late.keys()]).toEqual([["z", "y"], ["z", "y"]]))
    await Promise.all([fresh.stop(), late.stop()])
    await vi.waitFor(() => expect(live.counts().readers).toBe(before))
  })

  it("tells every stream to reload when the transcript is deleted, and lets the reader go", async () => {
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000006", [prompt("a", "first")])
    const before = live.counts().readers
    const streams = [open(session, 0), open(session, 0)]
    await vi.waitFor(() => expect(streams.every((stream) => stream.ends() === 1)).toBe(true))
    expect(live.counts().readers).toBe(before + 1)
    fs.rmSync(file)
    await vi.waitFor(() => expect(streams.every((stream) => stream.done())).toBe(true))
    for (const stream of streams) expect(stream.lines().at(-1)).toEqual({ type: "reload" })
    await vi.waitFor(() => expect(live.counts().readers).toBe(before))
  })

  it("leaves no reader or watcher behind when streams come and go while the file grows", async () => {
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000007", [prompt("a", "first")])
    const watchers = () => process.getActiveResourcesInfo().filter((name) => name === "FSEventWrap").length
    const before = { readers: live.counts().readers, watchers: watchers() }
    const keys = ["a"]
    const open_ = [open(session, 0)]
    for (let round = 0; round < 30; round++) {
      // some streams go (the first one stays), new ones come at the start and at the end
      const leaving = open_.splice(1, round % 3)
      await Promise.all(leaving.map((stream) => stream.stop()))
      open_.push(open(session, 0), open(session, fs.statSync(file).size))
      fs.appendFileSync(file, prompt(`r${round}`, `round ${round}`))
      keys.push(`r${round}`)
    }
    // the stream that stayed has every line once, in order
    await vi.waitFor(() => expect(open_[0]!.keys()).toEqual(keys), { timeout: 10_000 })
    await Promise.all(open_.map((stream) => stream.stop()))
    await vi.waitFor(() => {
      expect(live.counts().readers).toBe(before.readers)
      expect(watchers()).toBe(before.watchers)
    })
  })

  it("keeps a masked and an unmasked reader apart", async () => {
    const secret = "sk-ant-api03-" + "L".repeat(40)
    const { session } = await plant("aaaaaaaa-0000-4000-8000-000000000004", [prompt("s", `key ${secret}`)])
    const masked = open(session, 0, true)
    const open_ = open(session, 0, false)
    await vi.waitFor(() => expect(masked.ends() + open_.ends()).toBe(2))
    expect(JSON.stringify(masked.lines())).not.toContain(secret)
    expect(JSON.stringify(open_.lines())).toContain(secret)
    await Promise.all([masked.stop(), open_.stop()])
  })

  it("tells a stream whose client stopped reading to reload, instead of holding its updates forever", async () => {
    const { file, session } = await plant("aaaaaaaa-0000-4000-8000-000000000005", [prompt("a", "first")])
    const reading = open(session, 0)
    const gate = Effect.runSync(Deferred.make<void>())
    const stuck = open(session, 0, true, gate)
    await vi.waitFor(() => expect(reading.keys()).toEqual(["a"]))
    const streams = live.counts().streams
    // one update per line, each seen by the reading client before the next is written
    const keys = ["a"]
    for (let i = 0; i < BACKLOG * 3 && live.counts().streams === streams; i++) {
      fs.appendFileSync(file, prompt(`n${i}`, `line ${i}`))
      keys.push(`n${i}`)
      await vi.waitFor(() => expect(reading.keys()).toEqual(keys))
    }
    expect(live.counts().streams).toBe(streams - 1)
    expect(stuck.done()).toBe(false)
    // the client reads again: what waited, then `reload`, and the stream ends
    Effect.runSync(Deferred.succeed(gate, undefined))
    await vi.waitFor(() => expect(stuck.done()).toBe(true))
    expect(stuck.lines().at(-1)).toEqual({ type: "reload" })
    fs.appendFileSync(file, prompt("z", "after"))
    await vi.waitFor(() => expect(reading.keys()).toEqual([...keys, "z"]))
    await reading.stop()
  })
})
