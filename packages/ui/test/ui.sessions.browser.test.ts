/**
 * The sessions page in the machine's Chromium: the printed URL opens it, the fixture sessions are
 * listed with their usage, the filters narrow the list, nothing loads from another origin, and a
 * browser without the token is refused.
 */
import * as Fixtures from "@acx/fixtures"
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  horizontalOverflow,
  openPage,
  screenshot,
  startWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

describe.skipIf(!browserAvailable)("acx ui: the sessions page in a browser", () => {
  let dir: string
  let built: Fixtures.BuiltConfigDir
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-sessions")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    ;({ browser, ui } = await startWithBrowser(["--config-dir", built.configDir], { ACX_HOME: path.join(dir, "home") }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("lists the fixture sessions with their cost, filters them, and loads nothing from elsewhere", async () => {
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    // the token left the address bar for the cookie
    expect(page.url()).toBe(`${ui.origin}/`)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(built.sessions.length)
    // usage fills in: no row still waits for its cost
    await page.locator("td.num", { hasText: "…" }).first().waitFor({ state: "detached" })
    await expect.poll(() => page.locator("td.num", { hasText: "$" }).count()).toBe(built.sessions.length)
    await screenshot(page, "sessions")

    // text filter: a word of one title
    const first = (await rows.first().locator(".title-cell > a").textContent())!.trim()
    const word = first.split(/\s+/).find((w) => w.length > 4) ?? first
    await page.getByRole("searchbox").fill(word)
    await expect.poll(() => rows.count()).toBeLessThan(built.sessions.length)
    await page.getByRole("searchbox").fill("")

    // project filter: the project with the most sessions
    const counts = new Map<string, number>()
    for (const session of built.sessions) counts.set(session.projectKey, (counts.get(session.projectKey) ?? 0) + 1)
    const [projectKey, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!
    await page.getByLabel("Project").selectOption(projectKey)
    await expect.poll(() => rows.count()).toBe(n)

    // the system's dark scheme gives dark page and light text
    const colors = () =>
      page.evaluate("[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]")
    const luminance = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).map(Number).reduce((a, b) => a + b, 0) / 3
    await page.emulateMedia({ colorScheme: "dark" })
    const [darkBg, darkFg] = (await colors()) as [string, string]
    expect(luminance(darkBg)).toBeLessThan(64)
    expect(luminance(darkFg)).toBeGreaterThan(192)
    await page.emulateMedia({ colorScheme: "light" })
    const [lightBg, lightFg] = (await colors()) as [string, string]
    expect(luminance(lightBg)).toBeGreaterThan(192)
    expect(luminance(lightFg)).toBeLessThan(64)

    // at phone width nothing overflows the window sideways
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)

    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it("refuses a browser that has not the token", async () => {
    const { context, page } = await openPage(browser, ui.origin)
    const response = await page.goto(`${ui.origin}/`)
    expect(response?.status()).toBe(401)
    expect(await page.locator("body").textContent()).toContain("needs the token")
    await context.close()
  }, TEST_TIMEOUT_MS)
})
