/**
 * The real Claude Code CLI (offline, against the model double) mirroring into a second
 * Claude-format directory through the SDK's `query()`, and resuming from it alone.
 */
import { createClaudeProjectsSessionStore } from "@acx/claude-code/promise"
import { runSessionStoreRealClaudeSuite } from "@acx/testing/SessionStoreRealClaude"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-claude-layout-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

runSessionStoreRealClaudeSuite(
  "ClaudeProjectsSessionStore",
  () => createClaudeProjectsSessionStore({ configDir: fs.mkdtempSync(path.join(dir, "mirror-")) })
)
