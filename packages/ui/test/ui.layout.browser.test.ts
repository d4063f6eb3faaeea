/**
 * Nothing overflows sideways or is clipped, on every page of `acx ui`, in the machine's Chromium
 * at a phone's width (390 px) and a laptop's (1280 px): the sessions list, every fixture
 * session's page, the costs page (its default range and every day), the memory page (with a
 * seeded database, so its spend table is drawn). Each element is checked: the document must not
 * scroll sideways, no element may reach past the window, and no element's content may be cut
 * off or spill out of it (scrolling boxes and text ending in an ellipsis excepted).
 */
import * as Fixtures from "@acx/fixtures"
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import * as MemorySeed from "@acx/memory/MemorySeed"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  layoutProblems,
  openPage,
  startWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

const WIDTHS = [390, 1280] as const

describe.skipIf(!browserAvailable)("acx ui: no page overflows or clips, at 390 px and 1280 px", () => {
  let dir: string
  let built: Fixtures.BuiltConfigDir
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-layout")
    const acxHome = path.join(dir, "home")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    const turns = MemorySeed.turnsOf(built.sessions.find((session) => session.source.endsWith("crud.jsonl"))!, {
      tool: "Write"
    })
    await MemorySeed.seedBatch(acxHome, turns, {
      events: ["prompt", "tool"],
      costUsd: 0.004,
      now: Date.now(),
      observations: [
        MemorySeed.observation({
          type: "change",
          title: "Wrote JOKE.md with an aardvark joke and a rather long title that has to wrap on a phone",
          narrative: "The file has a title and a short aardvark joke",
          facts: ["JOKE.md is markdown"],
          filesModified: [String(turns.tool.input.file_path)]
        })
      ]
    })
    ;({ browser, ui } = await startWithBrowser(["--config-dir", built.configDir], { ACX_HOME: acxHome, TZ: "UTC" }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  // every page, with what must be on it before it is measured
  const pages = (): ReadonlyArray<{ readonly hash: string; readonly ready: string }> => [
    { hash: "#/sessions", ready: "table tbody tr" },
    ...built.sessions.map((session) => ({ hash: `#/session/${session.sessionId}`, ready: ".turns > [data-turn]" })),
    { hash: "#/costs", ready: ".totals" },
    { hash: "#/costs?range=all", ready: "table.top-sessions" },
    { hash: "#/memory", ready: "article.obs" }
  ]

  const measure = async (page: Page, hash: string, ready: string) => {
    await page.goto(`${ui.origin}/${hash}`)
    await page.locator(ready).first().waitFor()
    // the sessions list fills in its usage after the list; the memory page its spend
    await page.waitForLoadState("networkidle")
    // the charts' tables too, opened as a reader opens them
    for (const summary of await page.getByText("Show as table").all()) await summary.click()
    return layoutProblems(page)
  }

  for (const width of WIDTHS) {
    it(`${width} px: no sideways overflow, nothing clipped, on any page`, async () => {
      const opened = await openPage(browser, ui.origin)
      const { page } = opened
      await page.setViewportSize({ width, height: 900 })
      await page.goto(ui.url)
      const found: Record<string, unknown> = {}
      for (const { hash, ready } of pages()) {
        const problems = await measure(page, hash, ready)
        if (problems.length > 0) found[hash] = problems
      }
      expect(found).toEqual({})
      await closeClean(opened)
    }, TEST_TIMEOUT_MS)
  }
})
