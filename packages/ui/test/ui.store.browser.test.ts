/**
 * `acx ui --from` in the machine's Chromium, over a SQLite store `acx sync` filled from the
 * fixture config directory (plus a session whose text is hostile markup): the list with its
 * costs, the session with a tool call and its nested subagent, the costs page; the search box
 * finds a word inside the conversations and its hit opens the session at that turn, highlighted;
 * a hostile snippet shows as text and runs nothing; entries appended to the store appear on the
 * open session page and in the open list.
 */
import * as Fixtures from "@acx/fixtures"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  horizontalOverflow,
  openPage,
  startWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

const TASK_TOOL = "toolu_01VmaERAwhb19LGUwu9GenaK"
const HOSTILE_ID = "77777777-7777-4777-8777-777777777777"
const HOSTILE = `<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script> wombat`

const prompt = (sessionId: string, uuid: string, text: string, timestamp = "2026-03-01T10:00:00.000Z") => ({
  type: "user",
  uuid,
  sessionId,
  timestamp,
  cwd: "/home/dev/stored",
  message: { role: "user", content: text }
})

/** Appends to the store from this process, as another writer (`acx sync`, an app's agents) would. */
const appendToStore = (file: string, projectKey: string, sessionId: string, entries: ReadonlyArray<object>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    SqliteSessionStore.make({ filename: file }),
    (store) => store.append({ projectKey, sessionId }, entries as ReadonlyArray<{ type: string }>)
  )))

describe.skipIf(!browserAvailable)("acx ui --from: a SQLite store in a browser", () => {
  let dir: string
  let db: string
  let built: Fixtures.BuiltConfigDir
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-store")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    const project = path.join(built.configDir, "projects", built.sessions[0]!.projectKey)
    fs.writeFileSync(
      path.join(project, `${HOSTILE_ID}.jsonl`),
      JSON.stringify(prompt(HOSTILE_ID, "h1", HOSTILE)) + "\n"
    )
    db = path.join(dir, "store.db")
    const home = path.join(dir, "home")
    const synced = await acx(["sync", "--config-dir", built.configDir, "--to", `sqlite:${db}`], {
      env: { ACX_HOME: home }
    })
    expect(synced.code, synced.stderr).toBe(0)
    ;({ browser, ui } = await startWithBrowser(["--from", `sqlite:${db}`], { ACX_HOME: home }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("lists the stored sessions with their costs, and opens one with a tool call and its nested subagent", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(built.sessions.length + 1)
    await page.locator("td.num", { hasText: "…" }).first().waitFor({ state: "detached" })
    await expect.poll(() => page.locator("td.num", { hasText: "$" }).count()).toBe(built.sessions.length + 1)
    // the list's own filter still narrows the rows
    await page.getByRole("searchbox").fill("spotter")
    await expect.poll(() => rows.count()).toBeLessThan(built.sessions.length + 1)
    await page.getByRole("searchbox").fill("")

    const session = built.sessions.find((s) => s.subagents.length > 0)!
    await page.goto(`${ui.origin}/#/session/${session.sessionId}?turn=${TASK_TOOL}`)
    const tool = page.locator(`#tool-${TASK_TOOL}`)
    await tool.locator(".tool-body").getByText("Result", { exact: true }).waitFor()
    expect(await tool.getAttribute("class")).toContain("highlight")
    const subagent = tool.locator("details.subagent", { hasText: "a881341" })
    await subagent.locator("summary").click()
    await subagent.getByText("What is the output contract for Claude Code hooks").first().waitFor()
    // the header's figure, from the store's fold
    await expect.poll(() => page.locator(".session-head .figure").getAttribute("data-cost")).not.toBeNull()
    expect(Number(await page.locator(".session-head .figure").getAttribute("data-cost"))).toBeGreaterThan(1)

    await page.goto(`${ui.origin}/#/costs?range=all`)
    await page.getByText("Sessions that cost most").waitFor()
    await expect.poll(() => page.locator("a[href^='#/session/']").count()).toBeGreaterThan(0)
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)

  it("searches inside the conversations: a hit opens its session at the turn, highlighted", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    const box = page.getByLabel("Search conversations")
    await box.fill("beads")
    const hits = page.locator(".search-hit")
    await expect.poll(() => hits.count(), { timeout: 15_000 }).toBeGreaterThan(0)
    await expect.poll(() => hits.first().locator(".search-snippet mark").first().textContent()).toMatch(/^beads$/i)
    const link = hits.first().locator("a")
    const target = (await link.getAttribute("href"))!
    const turn = new URLSearchParams(target.slice(target.indexOf("?") + 1)).get("turn")!
    expect(turn).toMatch(/^[0-9a-f-]{36}$/)
    await link.click()
    const highlighted = page.locator(".highlight").first()
    await highlighted.waitFor()
    expect(await page.locator(`#turn-${turn}`).count()).toBe(1)
    expect(
      await page.evaluate(`document.getElementById("turn-${turn}").closest(".highlight") !== null ||
      document.getElementById("turn-${turn}").classList.contains("highlight")`)
    ).toBe(true)
    expect(
      await page.evaluate(`(() => {
      const box = document.getElementById("turn-${turn}").getBoundingClientRect()
      return box.bottom > 0 && box.top < window.innerHeight
    })()`)
    ).toBe(true)

    // a query the engine cannot search: the problem, said on the page
    await page.goto(ui.url)
    await page.getByLabel("Search conversations").fill("-beads")
    await page.locator(".search-error").getByText("only excludes words").waitFor()
    // the browser logs the 400 itself: that one is the answer asked for, not an error of the page
    const logged = opened.errors.splice(0)
    expect(logged).toEqual([expect.stringContaining("status of 400")])
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)

  it("shows a hostile snippet as text: no element from it, nothing run", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    await page.getByLabel("Search conversations").fill("wombat")
    const snippet = page.locator(".search-hit .search-snippet").first()
    await snippet.waitFor()
    expect(await snippet.textContent()).toBe(`${HOSTILE.slice(0, HOSTILE.indexOf("wombat"))}wombat`)
    expect(await snippet.locator("mark").textContent()).toBe("wombat")
    expect(await page.locator(".search-results img, .search-results script").count()).toBe(0)
    expect(await page.evaluate("window.__pwned")).toBeUndefined()
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)

  it("shows entries appended to the store: on the open session page, and in the open list", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    const session = built.sessions[0]!
    await page.goto(`${ui.url}`)
    await page.goto(`${ui.origin}/#/session/${session.sessionId}`)
    await page.locator(".badge.live").waitFor()
    await appendToStore(db, session.projectKey, session.sessionId, [
      prompt(session.sessionId, "a0000000-0000-4000-8000-000000000001", "appended to the store while the page was open")
    ])
    await page.getByText("appended to the store while the page was open").waitFor({ timeout: 15_000 })

    await page.goto(`${ui.origin}/#/sessions`)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(built.sessions.length + 1)
    const fresh = "a0000000-0000-4000-8000-00000000beef"
    await appendToStore(db, session.projectKey, fresh, [
      prompt(fresh, "a0000000-0000-4000-8000-000000000002", "a session that arrived later", "2030-01-01T00:00:00.000Z")
    ])
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(built.sessions.length + 2)
    await page.getByText("a session that arrived later").first().waitFor()
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)
})
