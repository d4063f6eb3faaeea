/**
 * `acx ui --from postgres://…` in the machine's Chromium, live through `LISTEN/NOTIFY`, on a
 * Postgres of this file's own (an embedded server it stops and starts again on the same data and
 * port, as a restart looks to its clients):
 * - a session another process appends shows up in the open list well before the page's
 *   safety-net poll (30 s) could have found it: the notification did;
 * - the server going away: the list's event stream says `reconnecting` and the page says so,
 *   nothing crashes (no page error, the `acx ui` process alive);
 * - the server back: the page says it is live again without being reloaded, and a session
 *   appended after the restart shows up the same way.
 */
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import { startEmbeddedPostgres } from "@acx/fixtures/postgres"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, closeClean, openPage, startWithBrowser, stopWithBrowser } from "./utils/browser.js"

// Well under the page's safety-net poll (storeClock's LISTENED_POLL, 30 s): what arrives within
// it was announced, not polled for.
const NOTIFIED_WITHIN = 12_000
const SCHEMA = "acx_live"

const prompt = (sessionId: string, text: string) => ({
  type: "user",
  uuid: `${sessionId.slice(0, 8)}-0000-4000-8000-000000000001`,
  sessionId,
  timestamp: "2026-03-01T10:00:00.000Z",
  cwd: "/home/dev/live",
  message: { role: "user", content: text }
})

describe.skipIf(!browserAvailable)("acx ui --from postgres: live through LISTEN/NOTIFY, across a restart", () => {
  let server: Awaited<ReturnType<typeof startEmbeddedPostgres>>
  let spec: string
  let dir: string
  let ui: RunningUi
  let browser: Browser

  // another process's writer: a store of its own (its own pool), opened for each append
  const append = (n: number, text: string) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(
      PostgresSessionStore.make({ url: Redacted.make(server.url), schema: SCHEMA }),
      (store) => {
        const sessionId = `0000000${n}-0000-4000-8000-000000000000`
        return store.append({ projectKey: "-home-dev-live", sessionId }, [prompt(sessionId, text)])
      }
    )))

  beforeAll(async () => {
    dir = tempDir("ui-live-pg")
    // beside the run's private TMPDIR, which the server's user (as root: nobody) cannot reach
    server = await startEmbeddedPostgres()
    const url = new URL(server.url)
    url.searchParams.set("schema", SCHEMA)
    spec = url.href
    await append(1, "the first session")
    ;({ browser, ui } = await startWithBrowser(["--from", spec], { ACX_HOME: path.join(dir, "home") }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    await server?.stop()
    removeDir(dir)
  }, 60_000)

  // the list's events as the page's own EventSource sees them
  const recordEvents = (page: Page) =>
    page.evaluate(`(() => {
      window.__events = []
      const events = new EventSource("/api/sessions/events")
      events.onmessage = (message) => window.__events.push(JSON.parse(message.data).type)
    })()`)
  const events = (page: Page) => page.evaluate("window.__events") as Promise<Array<string>>

  it("shows appends as they are notified, says it is reconnecting while Postgres restarts, and goes on", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(1)
    await recordEvents(page)

    await append(2, "a session appended by another process")
    await page.getByText("a session appended by another process").waitFor({ timeout: NOTIFIED_WITHIN })
    expect(await rows.count()).toBe(2)

    await server.stopServer()
    await expect.poll(() => events(page), { timeout: NOTIFIED_WITHIN }).toContain("reconnecting")
    await page.locator(".reconnecting").waitFor({ timeout: NOTIFIED_WITHIN })
    expect(ui.process.exitCode).toBeNull()

    await server.startServer()
    // back: the listener reconnected on its own (backoff ≤ 2 s) and the page is live again
    await page.locator(".reconnecting").waitFor({ state: "detached", timeout: NOTIFIED_WITHIN })
    await append(3, "a session appended after the restart")
    await page.getByText("a session appended after the restart").waitFor({ timeout: NOTIFIED_WITHIN })
    expect(await rows.count()).toBe(3)
    const seen = await events(page)
    expect(seen.indexOf("reconnecting")).toBeLessThan(seen.lastIndexOf("changed"))
    expect(ui.process.exitCode).toBeNull()
    expect(ui.stderr()).not.toContain(new URL(server.url).password)
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)
})
