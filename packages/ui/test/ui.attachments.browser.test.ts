/**
 * The session page on a transcript the real Claude Code writes (three prompts against the model
 * double): the attachments it records beside each prompt (`environment`, `skill_listing`,
 * `deferred_tools_delta`, …) fold into one quiet line that names them and opens on demand, never
 * a card each; the page counts turns (prompts and answers), not entries. The page is served by
 * its server in this process, on the config directory the real Claude Code wrote.
 */
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  openPage,
  type ServedPage,
  serveWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const PROMPTS = ["Say hello", "And again", "One more"]

describe.skipIf(!browserAvailable || !claude.available)("acx ui: a real Claude Code transcript", () => {
  let dir: string
  let sessionId: string
  let configDir: string
  let attachments: number
  let double: ModelDouble.ModelDoubleHandle
  let ui: ServedPage
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-attachments")
    double = await ModelDouble.startModelDouble({
      script: [{ when: () => true, reply: { content: "Done." }, times: Infinity }]
    })
    const home = path.join(dir, "home")
    const cwd = path.join(dir, "project")
    fs.mkdirSync(home)
    fs.mkdirSync(cwd)
    const cli = await realClaude({ baseUrl: double.url })
    let resume: string | undefined
    for (const prompt of PROMPTS) {
      const run = await cli.run({ prompt, cwd, home, ...(resume === undefined ? {} : { resume }) })
      expect(run.exitCode, run.stderr).toBe(0)
      resume = run.sessionId!
      configDir = run.configDir
    }
    sessionId = resume!
    const transcript = fs.readdirSync(path.join(configDir, "projects"), { recursive: true, withFileTypes: true })
      .find((entry) => entry.isFile() && entry.name === `${sessionId}.jsonl`)!
    const lines = fs.readFileSync(path.join(transcript.parentPath, transcript.name), "utf8").split("\n")
      .filter((line) => line !== "").map((line) => JSON.parse(line) as { type?: string })
    // what today's Claude Code writes: attachments outnumber the prompts
    attachments = lines.filter((line) => line.type === "attachment").length
    expect(attachments).toBeGreaterThan(PROMPTS.length)
    ;({ browser, ui } = await serveWithBrowser(configDir, path.join(dir, "acx-home")))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    await double?.close()
    removeDir(dir)
  })

  it("folds the attachments into quiet lines and counts the turns", async () => {
    const opened = await openPage(browser, ui.origin)
    const { page } = opened
    await page.goto(`${ui.url}#/session/${sessionId}`)
    // three prompts, three answers
    await expect.poll(() => page.locator(".keys").textContent()).toMatch(/^6 turns ·/)
    expect(await page.locator(".turn.prompt").count()).toBe(PROMPTS.length)
    expect(await page.locator(".turn.assistant").count()).toBe(PROMPTS.length)
    // no attachment is a card of its own
    expect(await page.locator(".turn.meta", { hasText: "attachment" }).count()).toBe(0)
    const lines = page.locator("details.attachments")
    expect(await lines.count()).toBeGreaterThan(0)
    expect(await lines.count()).toBeLessThanOrEqual(2 * PROMPTS.length)
    // every attachment is in a line, named there, and opens on demand
    expect(await page.locator("details.attachments .attachment").count()).toBe(attachments)
    const first = lines.first()
    expect(await first.locator("> summary").textContent()).toMatch(/^\d+ attachments?: .*environment/)
    expect(await first.locator(".attachment").first().isVisible()).toBe(false)
    await first.locator("> summary").click()
    expect(await first.locator(".attachment").first().isVisible()).toBe(true)
    // the list counts the same conversation: three prompts and three answers, no attachment
    await page.goto(ui.url)
    const row = page.locator("tr", { has: page.locator(`a[href="#/session/${sessionId}"]`) })
    await expect.poll(() => row.locator(".col-messages").textContent()).toBe("6")
    await closeClean(opened)
  }, TEST_TIMEOUT_MS)
})
