/**
 * A store's derived session metadata (`@acx/session-store/StoreCatalog`) equals what the
 * config-dir listing computes (`ClaudeProjects.listSessions`, the rows of `acx sessions --json`)
 * for every fixture session, field by field: the same sessions mirrored into SQLite and, with
 * `ACX_PG_URL`, Postgres.
 */
import { layerNode } from "@acx/claude-code/ClaudeProjects"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as Fixtures from "@acx/fixtures"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-catalog-listing-"))
const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_catalog_listing_${randomUUID().replace(/-/g, "").slice(0, 12)}`

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).finally(() => client.end())
})

const FIELDS = ["title", "firstPrompt", "lastPrompt", "cwd", "gitBranch", "startTime", "lastTime"] as const

const stores = [
  { name: "SQLite", skip: false, open: () => SqliteSessionStore.make({ filename: path.join(root, "store.sqlite") }) },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    open: () => PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema: SCHEMA })
  }
]

for (const backend of stores) {
  describe.skipIf(backend.skip)(`${backend.name}: a store's sessions equal the config-dir listing`, () => {
    it.scoped("every fixture session, field by field", () =>
      Effect.gen(function*() {
        const listing = SessionListing.rows(
          yield* Effect.flatMap(ClaudeProjects.ClaudeProjects, (projects) => projects.listSessions()).pipe(
            Effect.provide(layerNode({ configDir: built.configDir }))
          )
        )
        const store = yield* backend.open()
        for (const session of built.sessions) {
          const key = { projectKey: session.projectKey, sessionId: session.sessionId }
          const entries = Fixtures.readJsonLines(session.file).map((line) => line.value as { type: string })
          for (let start = 0; start < entries.length; start += 100) {
            yield* store.append(key, entries.slice(start, start + 100))
          }
          for (const agent of session.subagents) {
            yield* store.append(
              { ...key, subpath: `subagents/agent-${agent.agentId}` },
              Fixtures.readJsonLines(agent.file).map((line) => line.value as { type: string })
            )
          }
        }
        const stored = yield* store.catalog.listSessions()
        expect(stored.map((s) => s.sessionId).sort()).toEqual(listing.map((s) => s.sessionId).sort())
        for (const listed of listing) {
          const row = stored.find((s) => s.sessionId === listed.sessionId)!
          expect(row.projectKey).toBe(listed.projectKey)
          for (const field of FIELDS) {
            expect({ session: listed.sessionId, field, value: row[field] })
              .toEqual({ session: listed.sessionId, field, value: listed[field] })
          }
        }
      }), 60_000)
  })
}
