/**
 * `AgentPool.layerDatabase` takes the one `DatabaseSpec` grammar: `sqlite:FILE` and a bare
 * `FILE.db` open SQLite; `postgres://…?schema=S` puts the registry and the session store in
 * schema S (the parameter never reaches the driver); a spec that names no database, or whose
 * database cannot be reached, is a `StartFailed` that never shows the password.
 */
import * as AgentPool from "@acx/agent/AgentPool"
import * as AgentRegistry from "@acx/agent/AgentRegistry"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"

const pgUrl = process.env["ACX_PG_URL"]
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-agent-database-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** Claims a conversation and appends an entry through the layer, then reads both back. */
const roundTrip = (database: string) =>
  Effect.gen(function*() {
    const registry = yield* AgentRegistry.AgentRegistry
    const store = yield* SessionStore.SessionStore
    yield* registry.claim("chat-1", { owner: "test", cwd: root, ttl: "1 minute" })
    yield* store.append({ projectKey: "p", sessionId: "s-1" }, [{ type: "user", uuid: "u-1" }])
    return {
      keys: (yield* registry.list).map((conversation) => conversation.key),
      entries: (yield* store.load({ projectKey: "p", sessionId: "s-1" }))?.length ?? 0
    }
  }).pipe(Effect.provide(AgentPool.layerDatabase(database)), Effect.scoped)

const failureOf = (database: string) =>
  Effect.runPromise(Effect.exit(Layer.build(AgentPool.layerDatabase(database)).pipe(Effect.scoped))).then((exit) =>
    Exit.isFailure(exit) ? String(exit.cause) : "opened"
  )

describe("AgentPool.layerDatabase", () => {
  it("opens sqlite:FILE and a bare FILE.db alike", async () => {
    for (const database of [`sqlite:${path.join(root, "prefixed.db")}`, path.join(root, "bare.db")]) {
      expect(await Effect.runPromise(roundTrip(database)), database).toEqual({ keys: ["chat-1"], entries: 1 })
    }
    expect(fs.existsSync(path.join(root, "bare.db"))).toBe(true)
  })

  it("refuses a spec that names no database, echoing it without its password", async () => {
    const failure = await failureOf("postgress://u:S3cretZ@127.0.0.1/acx")
    expect(failure).toContain("StartFailed")
    expect(failure).toContain("database: expected sqlite:FILE")
    expect(failure).not.toContain("S3cretZ")
    // a mistyped URL never becomes a file named after it (an older acx left one, password and all)
    expect(fs.existsSync(path.resolve("postgress:"))).toBe(false)
  })

  it("an unreachable Postgres is a StartFailed without the password", async () => {
    const failure = await failureOf("postgres://u:p%40ssZ@127.0.0.1:1/acx?schema=x&connect_timeout=2")
    expect(failure).toContain("StartFailed")
    expect(failure).toContain("postgres://u:***@127.0.0.1:1/acx")
    expect(failure).not.toMatch(/p%40ssZ|p@ssZ/)
  })

  it.skipIf(pgUrl === undefined)("puts the registry and the store in the ?schema= schema", async () => {
    const schema = `acx_agent_db_${randomBytes(4).toString("hex")}`
    const url = new URL(pgUrl!)
    url.searchParams.set("schema", schema)
    const client = new pg.Client({ connectionString: pgUrl })
    await client.connect()
    try {
      expect(await Effect.runPromise(roundTrip(url.href))).toEqual({ keys: ["chat-1"], entries: 1 })
      const { rows } = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema]
      )
      const tables = rows.map((row: { table_name: string }) => row.table_name)
      expect(tables).toContain("acx_agent_conversations")
      expect(tables).toContain("claude_session_entries")
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await client.end()
    }
  })
})
