/**
 * SDK interop, offline: every fixture transcript (main file and subagents) is imported with the
 * SDK's own `importSessionToStore` (always with `dir`) into each acx adapter AND into the SDK's
 * `InMemorySessionStore`; then the SDK's session functions must return the same results on both
 * (clock-derived fields aside): listSessions, getSessionInfo, getSessionMessages, listSubagents,
 * getSubagentMessages, renameSession, tagSession, forkSession, deleteSession. Importing twice
 * leaves no duplicates in acx's stores.
 */
import * as Fixtures from "@acx/fixtures"
import { createMemorySessionStore } from "@acx/session-store/MemorySessionStore"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import type { SdkSessionStore } from "@acx/session-store/SessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

interface Fixture {
  readonly name: string
  readonly file: string
  readonly sessionId: string
  readonly subagentsDir: string | undefined
}

const sessionIdOf = (file: string): string => {
  const first = fs.readFileSync(file, "utf8").split("\n").find((line) => line.includes("\"sessionId\""))
  return (JSON.parse(first ?? "{}") as { sessionId?: string }).sessionId ?? randomUUID()
}

const fixtures: Array<Fixture> = Fixtures.transcriptFiles()
  .filter((file) => !file.includes(`${path.sep}subagents${path.sep}`))
  .map((file) => {
    const sessionId = sessionIdOf(file)
    const subagents = path.join(path.dirname(file), sessionId, "subagents")
    return {
      name: Fixtures.relative(file),
      file,
      sessionId,
      subagentsDir: fs.existsSync(subagents) ? subagents : undefined
    }
  })

// The SDK's project-dir rule (docs/transcripts.md, "Project directories"), for the layout importSessionToStore reads.
const projectDirName = (dir: string): string => fs.realpathSync(dir).replace(/[^a-zA-Z0-9]/g, "-")

let root: string
let workDir: string
const previousConfigDir = process.env["CLAUDE_CONFIG_DIR"]

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-interop-"))
  workDir = path.join(root, "work")
  fs.mkdirSync(workDir)
  const projects = path.join(root, "config", "projects", projectDirName(workDir))
  fs.mkdirSync(projects, { recursive: true })
  for (const fixture of fixtures) {
    fs.copyFileSync(fixture.file, path.join(projects, `${fixture.sessionId}.jsonl`))
    if (fixture.subagentsDir !== undefined) {
      fs.cpSync(fixture.subagentsDir, path.join(projects, fixture.sessionId, "subagents"), { recursive: true })
    }
  }
  process.env["CLAUDE_CONFIG_DIR"] = path.join(root, "config")
})

afterAll(() => {
  if (previousConfigDir === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
  else process.env["CLAUDE_CONFIG_DIR"] = previousConfigDir
  fs.rmSync(root, { recursive: true, force: true })
})

/** Drops what comes from a store's clock or from now (mtime, lastModified) and sorts lists. */
const stable = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === "lastModified" || key === "mtime" ? undefined : v)))

/** A fork gets fresh uuids, its own session id and "now" as its last timestamp. */
const forkComparable = (messages: ReadonlyArray<Sdk.SessionMessage>) =>
  messages.map((message) => {
    const { session_id: _session, uuid: _uuid, ...rest } = message as Sdk.SessionMessage & { timestamp?: string }
    const { timestamp: _timestamp, ...content } = rest as typeof rest & { timestamp?: string }
    return content
  })

const interop = (name: string, makeStore: () => SdkSessionStore) =>
  describe(name, () => {
    for (const fixture of fixtures) {
      it(`${fixture.name}: the SDK's session functions agree with InMemorySessionStore`, async () => {
        await using ours = makeStore()
        const reference = new Sdk.InMemorySessionStore()
        const sid = fixture.sessionId
        await Sdk.importSessionToStore(sid, ours, { dir: workDir })
        await Sdk.importSessionToStore(sid, reference, { dir: workDir })
        const on = (sessionStore: Sdk.SessionStore) => ({ dir: workDir, sessionStore })
        const mainKey = { projectKey: projectDirName(workDir), sessionId: sid }

        expect(stable((await Sdk.listSessions(on(ours))).filter((s) => s.sessionId === sid)))
          .toEqual(stable((await Sdk.listSessions(on(reference))).filter((s) => s.sessionId === sid)))
        expect(stable(await Sdk.getSessionInfo(sid, on(ours)))).toEqual(
          stable(await Sdk.getSessionInfo(sid, on(reference)))
        )
        expect(await Sdk.getSessionMessages(sid, on(ours))).toEqual(await Sdk.getSessionMessages(sid, on(reference)))
        expect(await Sdk.getSessionMessages(sid, { ...on(ours), includeSystemMessages: true }))
          .toEqual(await Sdk.getSessionMessages(sid, { ...on(reference), includeSystemMessages: true }))

        const agents = await Sdk.listSubagents(sid, on(ours))
        expect([...agents].sort()).toEqual([...(await Sdk.listSubagents(sid, on(reference)))].sort())
        for (const agent of agents) {
          expect(await Sdk.getSubagentMessages(sid, agent, on(ours)))
            .toEqual(await Sdk.getSubagentMessages(sid, agent, on(reference)))
        }

        await Sdk.renameSession(sid, "Renamed by acx", on(ours))
        await Sdk.renameSession(sid, "Renamed by acx", on(reference))
        await Sdk.tagSession(sid, "interop", on(ours))
        await Sdk.tagSession(sid, "interop", on(reference))
        const info = await Sdk.getSessionInfo(sid, on(ours))
        expect(info?.customTitle).toBe("Renamed by acx")
        expect(info?.tag).toBe("interop")
        expect(stable(info)).toEqual(stable(await Sdk.getSessionInfo(sid, on(reference))))

        const messages = await Sdk.getSessionMessages(sid, on(ours))
        const upTo = messages[Math.floor(messages.length / 2)]?.uuid
        const forkOurs = await Sdk.forkSession(sid, {
          ...on(ours),
          ...(upTo === undefined ? {} : { upToMessageId: upTo })
        })
        const forkRef = await Sdk.forkSession(sid, {
          ...on(reference),
          ...(upTo === undefined ? {} : { upToMessageId: upTo })
        })
        expect(forkComparable(await Sdk.getSessionMessages(forkOurs.sessionId, on(ours))))
          .toEqual(forkComparable(await Sdk.getSessionMessages(forkRef.sessionId, on(reference))))

        // Import twice: our stores deduplicate by uuid (the SDK's in-memory store does not);
        // entries without a uuid (snapshots, queue operations) are appended again, by contract.
        const loaded = (await ours.load(mainKey))!
        await Sdk.importSessionToStore(sid, ours, { dir: workDir })
        const reloaded = (await ours.load(mainKey))!
        const withUuid = (entries: ReadonlyArray<Sdk.SessionStoreEntry>) =>
          entries.filter((e) => typeof e.uuid === "string")
        expect(withUuid(reloaded)).toEqual(withUuid(loaded))
        expect(reloaded.length - loaded.length).toBe(loaded.length - withUuid(loaded).length)

        await Sdk.deleteSession(sid, on(ours))
        await Sdk.deleteSession(sid, on(reference))
        expect(await Sdk.getSessionMessages(sid, on(ours))).toEqual([])
        expect(await ours.load(mainKey)).toBeNull()
        expect(await ours.listSubkeys(mainKey)).toEqual([])
      }, 30_000)
    }
  })

describe("SDK interop on acx's SessionStore adapters", () => {
  interop("MemorySessionStore", () => createMemorySessionStore())

  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-interop-sqlite-"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  interop("SqliteSessionStore", () => createSqliteSessionStore({ filename: path.join(dir, `${randomUUID()}.sqlite`) }))

  const url = process.env["ACX_PG_URL"]
  describe.skipIf(url === undefined)(
    `PostgresSessionStore${url === undefined ? " — ACX_PG_URL is not set" : ""}`,
    () => {
      interop(
        "PostgresSessionStore",
        () =>
          createPostgresSessionStore({ url: url!, schema: `interop_${randomUUID().replace(/-/g, "").slice(0, 12)}` })
      )
    }
  )
})
