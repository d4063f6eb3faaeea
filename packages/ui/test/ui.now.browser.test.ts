/**
 * The costs page's "now" panel and quota chart in the machine's Chromium: the active 5-hour
 * window's cost, burn rate and projection are those `acx stats --by block --json` prints with the
 * same environment; the quota readings recorded in `$ACX_HOME/quota/readings.jsonl` are drawn as
 * one line per window and listed (damaged lines skipped, markup in the file never rendered);
 * nothing loads from another origin and no error reaches the console.
 */
import { acx, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import { assistantLine } from "@acx/fixtures/assistantLine"
import * as CostsView from "@acx/ui/CostsView"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, closeClean, launchBrowser, openPage, stopWithBrowser } from "./utils/browser.js"

const SESSION = "00000000-0000-4000-8000-0000000000aa"

const assistant = (i: number, ms: number, output: number) =>
  assistantLine({ sessionId: SESSION, cwd: "/work/now", i, ms, output })

describe.skipIf(!browserAvailable)("acx ui: the costs page's now panel", () => {
  let dir: string
  let configDir: string
  let env: Record<string, string>
  let ui: RunningUi
  let browser: Browser
  const now = Date.now()

  beforeAll(async () => {
    dir = tempDir("ui-now")
    configDir = path.join(dir, "claude")
    const project = path.join(configDir, "projects", "-work-now")
    fs.mkdirSync(project, { recursive: true })
    // two messages of the window now falls in (unless the hour just turned: then both are in it too)
    const start = Math.floor(now / 3_600_000) * 3_600_000
    fs.writeFileSync(
      path.join(project, `${SESSION}.jsonl`),
      [assistant(1, start + 1, 20_000), assistant(2, Math.max(start + 2, now - 1000), 40_000)].join("\n") + "\n"
    )
    const home = path.join(dir, "home")
    fs.mkdirSync(path.join(home, "quota"), { recursive: true })
    const resets = Math.floor(now / 1000) + 3600
    fs.writeFileSync(
      path.join(home, "quota", "readings.jsonl"),
      [
        JSON.stringify({ at: now - 3_000_000, window: "five_hour", usedPercentage: 12, resetsAt: resets }),
        JSON.stringify({ at: now - 3_000_000, window: "seven_day", usedPercentage: 3, resetsAt: resets + 86_400 }),
        "{\"at\":1,\"window\":\"<img src=x onerror=alert(1)>\",\"usedPercentage\":1,\"resetsAt\":1}",
        "<script>alert(1)</script>",
        JSON.stringify({ at: now - 60_000, window: "five_hour", usedPercentage: 47.5, resetsAt: resets })
      ].join("\n") + "\n"
    )
    env = { ACX_HOME: home, TZ: "UTC" }
    ;[ui, browser] = await Promise.all([startUi(["--config-dir", configDir], env), launchBrowser()])
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it(
    "shows the active window as acx stats --by block does, and the quota readings as a chart and a table",
    async () => {
      const result = await acx(["stats", "--by", "block", "--json", "--config-dir", configDir], { env })
      const active = parseJson<{ rows: ReadonlyArray<{ active: boolean; costUSD: number }> }>(result).rows.find((row) =>
        row.active
      )
      expect(active).toBeDefined()
      const opened = await openPage(browser, ui.origin)
      const { page } = opened
      await page.goto(ui.url)
      await page.goto(`${ui.origin}/#/costs`)
      await page.locator("[data-now=active]").waitFor()
      expect((await page.locator("[data-now-item=usd] dd").textContent())?.trim()).toBe(
        CostsView.dollars(active!.costUSD)
      )
      expect(await page.locator("[data-now-item=burn] dd").textContent()).toMatch(/^\$[\d,.]+\/h$|^-$/)
      expect(await page.locator("[data-now-item=reset] dd").textContent()).toMatch(/^(\d+h \d\dm|\d+m)$/)
      // one line per window, the table with the readings newest first, the damaged lines left out
      await page.locator(".quota-chart svg").waitFor()
      expect(await page.locator(".quota-chart polyline").count()).toBe(2)
      expect(await page.locator(".quota-chart svg").getAttribute("aria-label")).toMatch(/^Line chart: quota used/)
      const cells = await page.locator("table.quota-table tbody tr td:nth-child(3)").allTextContents()
      expect(cells).toEqual(["47.5%", "3%", "12%"])
      expect(await page.locator("main img").count()).toBe(0)
      expect(await page.locator("main").textContent()).not.toContain("onerror")
      await closeClean(opened)
    },
    TEST_TIMEOUT_MS
  )
})
