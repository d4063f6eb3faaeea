/**
 * The real Claude Code CLI (offline, against the model double) mirroring into acx's stores
 * through the SDK's `query()`, and resuming from them alone.
 */
import {
  createMemorySessionStore,
  createPostgresSessionStore,
  createSqliteSessionStore
} from "@acx/session-store/promise"
import { runSessionStoreRealClaudeSuite } from "@acx/testing/SessionStoreRealClaude"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-claude-stores-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

runSessionStoreRealClaudeSuite("MemorySessionStore", () => createMemorySessionStore())
runSessionStoreRealClaudeSuite(
  "SqliteSessionStore",
  () => createSqliteSessionStore({ filename: path.join(dir, `${randomUUID()}.sqlite`) })
)
// ACX_PG_URL: CI's cluster, or the embedded server the root vitest setup starts
runSessionStoreRealClaudeSuite("PostgresSessionStore", () =>
  createPostgresSessionStore({
    url: process.env["ACX_PG_URL"]!,
    schema: `real_claude_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  }))
