/**
 * The sessions page at more than one page of sessions, in the machine's Chromium over `acx ui`:
 * the first 50 rows are shown before the usage request answers (the test holds it), scrolling
 * to the end of the list loads the next 50, and the filter's words are the server's
 * (`GET /api/sessions?q=`), with its count.
 */
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import type * as UiApi from "@acx/ui/UiApi"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, closeClean, openPage, startWithBrowser, stopWithBrowser } from "./utils/browser.js"

const SESSIONS = 260

describe.skipIf(!browserAvailable)("acx ui: the sessions page a page at a time", () => {
  let dir: string
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-paging-browser")
    const big = generateBigConfigDir({
      dir: path.join(dir, "claude"),
      sessions: SESSIONS,
      bytes: 2_000_000,
      projects: 3,
      subagentEvery: 8
    })
    ;({ browser, ui } = await startWithBrowser(["--config-dir", big.configDir], { ACX_HOME: path.join(dir, "home") }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("shows the first rows before usage, the next page on scroll, and filters on the server", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    const asked: Array<URL> = []
    page.on("request", (request) => {
      const url = new URL(request.url())
      if (url.pathname.startsWith("/api/sessions")) asked.push(url)
    })
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route("**/api/sessions/usage", async (route) => {
      await held
      await route.continue()
    })
    await page.goto(ui.url)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(50)
    await expect(page.locator("h1 .muted").textContent()).resolves.toBe(`${SESSIONS} of ${SESSIONS}`)
    // usage is asked for once the rows are there, and held: no cost is shown yet
    await expect.poll(() => asked.some((url) => url.pathname === "/api/sessions/usage")).toBe(true)
    expect(await page.locator("td.num", { hasText: "$" }).count()).toBe(0)
    release()
    await expect.poll(() => page.locator("td.num", { hasText: "$" }).count()).toBe(50)

    // scrolling to the end of the list reads the next page from the server
    await page.locator(".more-rows").scrollIntoViewIfNeeded()
    await expect.poll(() => rows.count()).toBe(100)
    expect(asked.some((url) => url.searchParams.get("offset") === "50")).toBe(true)

    // the filter's words go to the server, which counts the matches
    const title = (await rows.first().locator(".title-cell > a").textContent())!.trim()
    const word = title.split(/\s+/).find((w) => w.length > 4) ?? title
    await page.getByRole("searchbox").fill(word)
    await expect.poll(() => asked.some((url) => url.searchParams.get("q") === word)).toBe(true)
    const response = await page.request.get(`${ui.origin}/api/sessions?limit=1000&q=${encodeURIComponent(word)}`)
    const matched = ((await response.json()) as UiApi.SessionsResponse).matched
    expect(matched).toBeLessThan(SESSIONS)
    await expect.poll(() => rows.count()).toBe(Math.min(50, matched))
    await expect(page.locator("h1 .muted").textContent()).resolves.toBe(`${matched} of ${SESSIONS}`)
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)
})
