/**
 * The memory page in the machine's Chromium, on a memory database seeded by the memory
 * package's own functions (the real hook, then `completeBatch` as the worker stores a batch)
 * for a fixture session: the search box finds an observation by a word in it, "From this turn"
 * opens the session page at that turn, forget and undo (one, and all matching) work, the context
 * shown equals what the spawned `acx memory context --project P` prints, and an observation
 * written while the page is open appears on it (SSE). Nothing loads from another origin.
 */
import * as Fixtures from "@acx/fixtures"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as MemorySeed from "@acx/memory/MemorySeed"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  openPage,
  screenshot,
  startWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

describe.skipIf(!browserAvailable)("acx ui: the memory page in a browser", () => {
  let dir: string
  let acxHome: string
  let turns: MemorySeed.SessionTurns
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-memory")
    acxHome = path.join(dir, "home")
    const built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    turns = MemorySeed.turnsOf(built.sessions.find((session) => session.source.endsWith("crud.jsonl"))!, {
      tool: "Write"
    })
    await MemorySeed.seedBatch(acxHome, turns, {
      events: ["prompt"],
      costUsd: 0.004,
      now: Date.now(),
      observations: [
        MemorySeed.observation({
          title: "A joke file was asked for",
          narrative: "The user wants a random joke in a file"
        })
      ]
    })
    await MemorySeed.seedBatch(acxHome, turns, {
      events: ["tool"],
      costUsd: 0.004,
      now: Date.now(),
      observations: [
        MemorySeed.observation({
          type: "change",
          title: "Wrote JOKE.md with an aardvark joke",
          narrative: "The file has a title and a short aardvark joke",
          facts: ["JOKE.md is markdown"],
          filesModified: [String(turns.tool.input.file_path)]
        })
      ]
    }) // no credentials anywhere: the page must not name a model that cannot observe
    ;({ browser, ui } = await startWithBrowser(["--config-dir", built.configDir], {
      ACX_HOME: acxHome,
      HOME: dir,
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
      CLAUDE_CODE_OAUTH_TOKEN: undefined
    }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("search, the turn link, the context, forget and undo, live observations", async () => {
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    page.on("dialog", (dialog) => void dialog.accept())
    await page.goto(ui.url)
    // as a user gets there: the header's link (the router listens once the page has rendered)
    await page.getByRole("link", { name: "Memory" }).click()
    const cards = page.locator("article.obs")
    await expect.poll(() => cards.count()).toBe(2)
    // an observation's id in words ("O2" reads like "02"), and the observer local without credentials
    expect(await cards.locator(".obs-id").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^observation #\d+$/)])
    )
    expect(await page.locator(".memory-status").textContent()).toContain(
      "observer: none, observations are recorded locally (no credentials"
    )
    const titles = () => cards.locator("h3").allTextContents()

    // the search box finds an observation by a word in it (FTS)
    await page.getByRole("searchbox").fill("aardvark")
    await page.getByRole("button", { name: "Search", exact: true }).click()
    await expect.poll(titles).toEqual(["Wrote JOKE.md with an aardvark joke"])
    await expect.poll(() => cards.locator("mark").first().textContent()).toBe("aardvark")

    // the context of the project equals `acx memory context --project P`, spawned
    await page.getByLabel("Project").selectOption(turns.cwd)
    const printed = await acx(["memory", "context", "--project", turns.cwd], { env: { ACX_HOME: acxHome } })
    expect(printed.code).toBe(0)
    expect(printed.stdout).toContain("Wrote JOKE.md with an aardvark joke")
    const shown = page.locator("pre.memory-context")
    await expect.poll(() => shown.textContent()).toBe(printed.stdout)
    await screenshot(page, "memory")

    // forget one, then undo
    await cards.first().getByRole("button", { name: "Forget", exact: true }).click()
    await expect.poll(() => cards.count()).toBe(0)
    await expect.poll(() => page.locator(".curation").textContent()).toContain("Forgot observation #2.")
    await expect.poll(() => shown.textContent()).not.toContain("aardvark")
    await page.getByRole("button", { name: "Undo" }).click()
    await expect.poll(titles).toEqual(["Wrote JOKE.md with an aardvark joke"])
    await expect.poll(() => page.locator(".curation").textContent()).toContain("Restored observation #2.")
    await expect.poll(() => shown.textContent()).toBe(printed.stdout)

    // forget all matching the filter (confirmed), then undo
    await page.getByRole("button", { name: "Forget all matching" }).click()
    await expect.poll(() => cards.count()).toBe(0)
    await page.getByRole("button", { name: "Undo" }).click()
    await expect.poll(() => cards.count()).toBe(1)

    // an observation written while the page is open appears on it
    await page.getByRole("searchbox").fill("")
    await page.getByRole("button", { name: "Search", exact: true }).click()
    await expect.poll(() => cards.count()).toBe(2)
    await MemorySeed.seedBatch(acxHome, turns, {
      events: [],
      costUsd: 0.004,
      now: Date.now(),
      observations: [MemorySeed.observation({ title: "Live okapi observation", narrative: "written just now" })]
    })
    await expect.poll(titles, { timeout: 15_000 }).toContain("Live okapi observation")

    // a session's summary opens beside the timeline
    await cards.first().getByRole("button", { name: "Session summary" }).click()
    await expect.poll(() => page.locator(".memory-session").textContent()).toContain(turns.sessionId.slice(0, 8))
    await expect.poll(() => page.locator(".memory-session").textContent()).toContain("No summary yet")

    // at phone width nothing overflows the window sideways (a string: no DOM library in tests)
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") as number)
      .toBeLessThanOrEqual(0)
    await page.setViewportSize({ width: 1280, height: 800 })

    // "From this turn" opens the session page at the tool call the observation came from
    const card = cards.filter({ hasText: "Wrote JOKE.md" })
    await card.getByRole("link", { name: /From this turn/ }).click()
    await expect.poll(() => new URL(page.url()).hash).toBe(
      `#/session/${turns.sessionId}?turn=${encodeURIComponent(turns.tool.id)}`
    )
    await expect.poll(() => page.locator("main h1").first().isVisible()).toBe(true)

    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it("says how to turn the memory on when there is no memory database, and creates none", async () => {
    const emptyHome = path.join(dir, "empty-home")
    const bare = await startUi(["--config-dir", path.join(dir, "claude")], { ACX_HOME: emptyHome })
    try {
      const { context, errors, page } = await openPage(browser, bare.origin)
      await page.goto(bare.url)
      await page.getByRole("link", { name: "Memory" }).click()
      await expect.poll(() => page.locator(".memory-absent").textContent()).toContain("acx memory install")
      // the context route says what the CLI says: nothing yet
      const project = path.join(dir, "shop")
      const printed = await acx(["memory", "context", "--project", project], { env: { ACX_HOME: emptyHome } })
      const served = await page.evaluate(
        `fetch("/api/memory/context?project=${encodeURIComponent(project)}").then((r) => r.text())`
      )
      expect(served).toBe(printed.stdout)
      expect(printed.stdout).toBe(`(nothing remembered for ${project} yet)\n`)
      expect(fs.existsSync(path.join(emptyHome, "memory.db"))).toBe(false)
      expect(errors).toEqual([])
      await context.close()
    } finally {
      await bare.stop()
    }
  }, TEST_TIMEOUT_MS)
})
