/**
 * The page over a team's store in the machine's Chromium: two laptops' config dirs (each with a
 * clone of one repository at its own path, the remote spelt differently, and a scratch directory)
 * synced with `--machine`/`--user` into one SQLite store, then `acx ui --from` it:
 * - the sessions list shows each session's machine, and its user (there are two); it filters by
 *   machine and by user;
 * - the costs page has a row per machine, per user, and per project across machines (the two
 *   clones are one project, `github.com/org/app`), and that row opens the sessions list filtered
 *   to the project's sessions on both machines.
 */
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi } from "@acx/fixtures/acxUi"
import { laptop } from "@acx/fixtures/team"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, closeClean, openPage, startWithBrowser, stopWithBrowser } from "./utils/browser.js"

describe.skipIf(!browserAvailable)("acx ui --from a team's store: machines, users, projects across machines", () => {
  let dir: string
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-origins")
    const home = path.join(dir, "home")
    const db = path.join(dir, "team.db")
    const laptops = [
      { who: "ana", machine: "ana-laptop", clone: "src/app", remote: "git@github.com:org/app.git", first: 1 },
      { who: "bo", machine: "bo-desktop", clone: "work/app", remote: "https://github.com/org/app", first: 11 }
    ]
    for (const { clone, first, machine, remote, who } of laptops) {
      const { configDir } = laptop(dir, who, clone, remote, first)
      const synced = await acx(
        ["sync", "--config-dir", configDir, "--to", `sqlite:${db}`, "--machine", machine, "--user", who],
        { env: { ACX_HOME: home } }
      )
      expect(synced.code, synced.stderr).toBe(0)
    }
    ;({ browser, ui } = await startWithBrowser(["--from", `sqlite:${db}`], { ACX_HOME: home }))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("lists each session's machine and user, and filters by them", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(4)
    const machines = await page.locator("table.sessions-table td.machine").allTextContents()
    expect(machines.sort()).toEqual(["ana-laptop", "ana-laptop", "bo-desktop", "bo-desktop"])
    expect((await page.locator("table.sessions-table td.user").allTextContents()).sort()).toEqual([
      "ana",
      "ana",
      "bo",
      "bo"
    ])
    await page.getByLabel("Machine").selectOption("bo-desktop")
    await expect.poll(() => rows.count()).toBe(2)
    expect(await page.locator("table.sessions-table td.machine").allTextContents()).toEqual([
      "bo-desktop",
      "bo-desktop"
    ])
    await page.getByLabel("Machine").selectOption("")
    await page.getByLabel("User").selectOption("ana")
    await expect.poll(() => rows.count()).toBe(2)
    await page.getByText("ana works in app").waitFor()
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)

  it("shows costs per machine, per user and per project across machines; a project opens its sessions", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(ui.url)
    await page.goto(`${ui.origin}/#/costs?range=all`)
    const machineRows = page.locator("table.machines-table tbody tr")
    await expect.poll(() => machineRows.count()).toBe(2)
    expect((await page.locator("table.machines-table tbody td:first-child").allTextContents()).sort()).toEqual([
      "ana-laptop",
      "bo-desktop"
    ])
    expect((await page.locator("table.users-table tbody td:first-child").allTextContents()).sort()).toEqual([
      "ana",
      "bo"
    ])
    // each laptop's two sessions cost the same: their rows show the same dollars
    const costs = await page.locator("table.machines-table tbody td:nth-child(4)").allTextContents()
    expect(costs[0]).toBe(costs[1])
    const app = page.locator("table.projects-table tbody tr", { hasText: "github.com/org/app" })
    expect(await app.locator("td:nth-child(2)").textContent()).toBe("2")
    // the two scratch dirs are two projects (paths), the clones one
    expect(await page.locator("table.projects-table tbody tr").count()).toBe(3)
    await app.locator("a").click()
    await page.locator(".chip.project-id").waitFor()
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(2)
    expect((await page.locator("table.sessions-table td.machine").allTextContents()).sort()).toEqual([
      "ana-laptop",
      "bo-desktop"
    ])
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)
})
