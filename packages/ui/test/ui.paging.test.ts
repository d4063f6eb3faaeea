/**
 * `acx ui` (the built binary) lists a config directory's sessions off its event loop: while the
 * listing is held — it reads a project's index file, here a FIFO the test holds open without
 * writing, so the listing waits on it as on a slow disk — the page and its assets are answered,
 * and the list request stays pending; once the barrier is released, the list arrives whole.
 * (The listing used to run in the server's thread: one cold list held every other request.)
 */
import * as ProjectIndex from "@acx/claude-code/ProjectIndex"
import * as Fixtures from "@acx/fixtures"
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import type * as UiApi from "@acx/ui/UiApi"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

let dir: string | undefined
let ui: RunningUi | undefined
let writer: fs.promises.FileHandle | undefined

afterAll(async () => {
  await writer?.close()
  await ui?.stop()
  if (dir !== undefined) removeDir(dir)
})

describe("acx ui: the sessions list is built off the event loop", () => {
  it("answers the page while the listing waits, then the list", { timeout: TEST_TIMEOUT_MS }, async () => {
    dir = tempDir("ui-paging")
    const built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    const home = path.join(dir, "home")
    const projectsDir = path.join(built.configDir, "projects")
    const cacheFile = ProjectIndex.projectFileFor(
      ProjectIndex.indexDirFor(path.join(home, "cache"), projectsDir),
      fs.readdirSync(projectsDir).sort()[0]!
    )
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 })
    execFileSync("mkfifo", ["-m", "600", cacheFile])
    ui = await startUi(["--config-dir", built.configDir], { ACX_HOME: home })
    const headers = { cookie: `acx_ui_token=${ui.token}` }
    let settled = false
    const listed = fetch(`${ui.origin}/api/sessions?offset=0&limit=100`, { headers }).finally(() => {
      settled = true
    })
    // opening the FIFO to write returns once the listing has opened it to read: it is now
    // waiting on the index, and waits until the writer closes
    writer = await fs.promises.open(cacheFile, "w")
    const page = await fetch(`${ui.origin}/`, { headers })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("<script")
    expect((await fetch(`${ui.origin}/api/sessions/usage`, { headers })).status).toBe(200)
    expect(settled).toBe(false)
    await writer.close()
    writer = undefined
    const response = await listed
    expect(response.status).toBe(200)
    const body = (await response.json()) as UiApi.SessionsResponse
    expect(body.total).toBe(built.sessions.length)
    expect(body.sessions.length).toBe(built.sessions.length)
  })
})
