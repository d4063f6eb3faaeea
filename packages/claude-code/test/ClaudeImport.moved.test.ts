/**
 * A re-import of a plain tree that has records goes over the files that moved since their record
 * only (told by one synchronous listing, `PlainListing.importFiles`), not over every file through
 * the service's walk. What it stores, records and reports must be what the walk gives: here the
 * same store after a first import and the changes is compared with a fresh store that imported
 * the final directory whole (a first import takes the walk), entry by entry, record by record.
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as Fixtures from "@acx/fixtures"
import type * as ImportLedger from "@acx/session-store/ImportLedger"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-import-moved-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const ORIGIN = { machine: "m01", user: "dev" }
const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const projectsDir = path.join(built.configDir, "projects")

const runImport = (store: SessionStore.SessionStore) =>
  ClaudeImport.importClaudeDir({ from: { configDir: built.configDir }, to: store, origin: ORIGIN, batchSize: 7 }).pipe(
    Effect.provide(NodeContext.layer)
  )

const sqlite = () => SqliteSessionStore.make({ filename: path.join(root, `${randomUUID()}.sqlite`) })

const bumpMtime = (file: string) => {
  const later = new Date(fs.statSync(file).mtimeMs + 5_000)
  fs.utimesSync(file, later, later)
}

const line = (entry: unknown) => JSON.stringify(entry) + "\n"

// Every key the listing names (each transcript's and each subagent's), in its order.
const keysOf = (listing: PlainListing.PlainImport): Array<SessionStore.SessionKey> =>
  PlainListing.bySession(listing).flatMap((group) =>
    group.files.filter((file) => file.kind !== "meta").map((file) => file.key)
  )

describe("importClaudeDir over a plain tree with records", () => {
  it.scoped("reads the moved files only, and stores and records what a whole import does", () =>
    Effect.gen(function*() {
      const store = yield* sqlite()
      const first = yield* runImport(store)
      expect(first.filesRead).toBeGreaterThan(3)

      // the changes: growth (with a malformed line), a touch, new metadata, a new session and a
      // new subagent; everything else is left as it is
      const withAgents = built.sessions.find((session) => session.subagents.length > 0)!
      const [grown, touched] = built.sessions.filter((session) => session !== withAgents)
      const agent = withAgents.subagents[0]!
      fs.appendFileSync(
        grown!.file,
        line({
          type: "user",
          uuid: randomUUID(),
          sessionId: grown!.sessionId,
          message: { role: "user", content: "more" }
        }) +
          "{not json\n"
      )
      fs.appendFileSync(agent.file, line({ type: "assistant", uuid: randomUUID(), isSidechain: true }))
      bumpMtime(touched!.file)
      const metaFile = agent.file.slice(0, -".jsonl".length) + ".meta.json"
      const newMeta = { agentType: "Plan", description: "rewritten" }
      fs.writeFileSync(metaFile, JSON.stringify(newMeta))
      bumpMtime(metaFile)
      const newSession = randomUUID()
      fs.writeFileSync(
        path.join(projectsDir, grown!.projectKey, `${newSession}.jsonl`),
        line({
          type: "user",
          uuid: randomUUID(),
          sessionId: newSession,
          cwd: "/tmp",
          message: { role: "user", content: "hi" }
        })
      )
      const newAgent = path.join(
        projectsDir,
        withAgents.projectKey,
        withAgents.sessionId,
        "subagents",
        "agent-new.jsonl"
      )
      fs.writeFileSync(newAgent, line({ type: "user", uuid: randomUUID(), isSidechain: true }))
      fs.writeFileSync(newAgent.slice(0, -".jsonl".length) + ".meta.json", JSON.stringify({ agentType: "New" }))

      const listing = PlainListing.importFiles(built.configDir)!
      const second = yield* runImport(store)
      const whole = yield* sqlite()
      const reference = yield* runImport(whole)

      expect(second).toMatchObject({
        sessions: reference.sessions,
        subagents: reference.subagents,
        // the grown transcript, the grown and the new subagent's, the two metadata files, the
        // touched transcript (read from its record: nothing new) and the new session's
        filesRead: 7,
        filesUnchanged: listing.files.length - 7,
        entries: 6,
        skippedLines: 1
      })
      expect(second.warnings).toEqual(reference.warnings)
      expect(second.warnings).toHaveLength(1)

      // every key holds what a whole import of the final files holds (but for the old metadata:
      // a changed `.meta.json` is appended again, as the walk does)
      const agentKey: SessionStore.SessionKey = {
        projectKey: withAgents.projectKey,
        sessionId: withAgents.sessionId,
        subpath: `subagents/${path.basename(agent.file, ".jsonl")}`
      }
      for (const key of keysOf(listing)) {
        const stored = yield* store.load(key)
        const expected = yield* whole.load(key)
        if (key.subpath === agentKey.subpath && key.sessionId === agentKey.sessionId) {
          // the first import stored the old metadata after the transcript, the second its
          // appended line and then the new metadata
          expect(expected!.at(-1)).toEqual({ ...newMeta, type: "agent_metadata" })
          expect(stored).toEqual([
            ...expected!.slice(0, -2),
            { ...agent.meta, type: "agent_metadata" },
            ...expected!.slice(-2)
          ])
        } else {
          expect(stored, JSON.stringify(key)).toEqual(expected)
        }
      }

      // the same ledger records, and every session's origin
      const source = SessionOrigins.sourceOf(ORIGIN.machine, projectsDir)
      const records = (s: ImportLedger.SessionStoreWithLedger) =>
        Effect.map(s.importedFiles(source), (rows) => [...rows].sort((a, b) => a.file < b.file ? -1 : 1))
      expect(yield* records(store)).toEqual(yield* records(whole))
      const origins = (s: SessionStore.SessionStore) =>
        Effect.map(SessionOrigins.originsOf(s)!.listOrigins(), (rows) => rows.map(SessionOrigins.originKey).sort())
      expect(yield* origins(store)).toEqual(yield* origins(whole))
      expect(yield* origins(store)).toContain(
        SessionOrigins.originKey({ projectKey: grown!.projectKey, sessionId: newSession })
      )

      // and then nothing moved
      expect(yield* runImport(store)).toMatchObject({ entries: 0, filesRead: 0, filesUnchanged: listing.files.length })
    }))
})
