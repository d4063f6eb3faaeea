/**
 * The costs page in the machine's Chromium: for a date range, the totals and the per-day tables
 * (the charts' text alternatives) show exactly the figures `acx stats --by day --since … --until …
 * --json` prints with the same environment; the two charts are drawn; the quick ranges move the
 * range in the address; nothing loads from another origin and no error (a CSP violation among
 * them) reaches the console.
 */
import * as Fixtures from "@acx/fixtures"
import { acx, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as CostsView from "@acx/ui/CostsView"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  horizontalOverflow,
  launchBrowser,
  openPage,
  screenshot,
  stopWithBrowser
} from "./utils/browser.js"

// the fixtures' days (UTC): 2025-09-07, 2025-10-10, 2025-10-12, 2026-02-10, 2026-02-11; and a
// session planted on 2025-10-11 that used a model no table prices yet, with a secret in its prompt
const SINCE = "2025-10-01"
const UNTIL = "2026-02-11"
const NEW_MODEL = "claude-next-1"
const SECRET = `sk-ant-api03-${"x7Kq".repeat(20)}`

// a session of two lines as Claude Code writes them, in the project of `sibling` (same cwd)
const plantSession = (sibling: Fixtures.BuiltSession): string => {
  const cwd =
    (JSON.parse(fs.readFileSync(sibling.file, "utf8").split("\n").find((line) => line.includes("\"cwd\""))!) as {
      cwd: string
    }).cwd
  const sessionId = "0b5e4a9c-2f7d-4e1a-9c3b-5d6e7f8a9b0c"
  const common = { isSidechain: false, userType: "external", cwd, sessionId, version: "2.1.0", gitBranch: "main" }
  const lines = [
    {
      ...common,
      parentUuid: null,
      type: "user",
      message: { role: "user", content: `deploy it with ${SECRET} please` },
      uuid: "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      timestamp: "2025-10-11T12:00:00.000Z"
    },
    {
      ...common,
      parentUuid: "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      type: "assistant",
      message: {
        id: "msg_planted_next_model",
        type: "message",
        role: "assistant",
        model: NEW_MODEL,
        content: [{ type: "text", text: "Deployed." }],
        stop_reason: "end_turn",
        usage: { input_tokens: 1200, output_tokens: 340, cache_creation_input_tokens: 0, cache_read_input_tokens: 5000 }
      },
      requestId: "req_planted_next_model",
      uuid: "8e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
      timestamp: "2025-10-11T12:00:05.000Z"
    }
  ]
  fs.writeFileSync(
    path.join(path.dirname(sibling.file), `${sessionId}.jsonl`),
    lines.map((line) => JSON.stringify(line)).join("\n") + "\n"
  )
  return sessionId
}

type StatsDocument = CostsView.CostsResponse["day"]
type DayRow = StatsDocument["rows"][number]

const totalsOf = (doc: StatsDocument) => ({
  usd: CostsView.dollars(doc.total.costUSD) + (doc.total.unpriced.length > 0 ? " + unpriced" : ""),
  input: CostsView.tokenCount(doc.total.tokens.input),
  output: CostsView.tokenCount(doc.total.tokens.output),
  cacheWrite: CostsView.tokenCount(doc.total.tokens.cacheWrite),
  cacheRead: CostsView.tokenCount(doc.total.tokens.cacheRead),
  total: CostsView.tokenCount(doc.total.tokens.total),
  sessions: String(doc.total.sessions)
})

// a day table's rows as the page must write them: day, sessions, each model's figure, the total
const tableOf = (doc: StatsDocument, models: ReadonlyArray<string>, figure: "usd" | "tokens") =>
  doc.rows.map((row: DayRow) => [
    row.key,
    String(row.sessions),
    ...models.map((model) => {
      const usage = row.models[model]
      if (usage === undefined) return "-"
      if (figure === "tokens") return CostsView.tokenCount(usage.tokens.total)
      return usage.costUSD === null ? "no price" : CostsView.dollars(usage.costUSD)
    }),
    figure === "usd"
      ? CostsView.dollars(row.costUSD) + (row.unpriced.length > 0 ? "+?" : "")
      : CostsView.tokenCount(row.tokens.total)
  ])

const shownTotals = async (page: Page) => {
  const shown: Record<string, string> = {}
  for (const item of await page.locator(".totals > div").all()) {
    shown[(await item.getAttribute("data-total"))!] = (await item.locator("dd").textContent())!.trim()
  }
  return shown
}

const shownTable = async (page: Page, figure: "usd" | "tokens") => {
  const table = page.locator(`table.day-table[data-figure="${figure}"]`)
  const models = (await table.locator("thead th").allTextContents()).slice(2, -1)
  const rows: Array<Array<string>> = []
  for (const row of await table.locator("tbody tr").all()) {
    rows.push((await row.locator("th, td").allTextContents()).map((text) => text.trim()))
  }
  return { models, rows }
}

describe.skipIf(!browserAvailable)("acx ui: the costs page in a browser", () => {
  let dir: string
  let built: Fixtures.BuiltConfigDir
  let planted: string
  let env: Record<string, string>
  let ui: RunningUi
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-costs")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    planted = plantSession(built.sessions[0]!)
    // the page's server and the CLI see the same home (pricing, cache) and the same local days
    env = { ACX_HOME: path.join(dir, "home"), TZ: "UTC" }
    ;[ui, browser] = await Promise.all([startUi(["--config-dir", built.configDir], env), launchBrowser()])
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  const stats = async (...range: Array<string>): Promise<StatsDocument> => {
    const result = await acx(["stats", "--by", "day", ...range, "--json", "--config-dir", built.configDir], { env })
    expect(result.code).toBe(0)
    return parseJson<StatsDocument>(result)
  }

  it("shows acx stats' totals and day rows for the range, and draws both charts", async () => {
    const doc = await stats("--since", SINCE, "--until", UNTIL)
    expect(doc.rows.length).toBeGreaterThan(2)
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    await page.goto(`${ui.origin}/#/costs?since=${SINCE}&until=${UNTIL}`)
    await page.locator(".totals").waitFor()
    expect(await page.getByLabel("From", { exact: true }).inputValue()).toBe(SINCE)
    expect(await page.getByLabel("To", { exact: true }).inputValue()).toBe(UNTIL)

    expect(await shownTotals(page)).toEqual(totalsOf(doc))
    // the model without a price: named, its tokens counted, its dollars not
    expect(doc.total.unpriced).toEqual([NEW_MODEL])
    expect(await page.locator(".warn-box").textContent()).toContain(`${NEW_MODEL}: their tokens are counted`)
    expect(await page.locator(".warn-box").textContent()).toContain("add it to $ACX_HOME/pricing.json")

    // the charts' text alternatives, opened as a keyboard user opens them
    for (const summary of await page.getByText("Show as table").all()) {
      await summary.focus()
      await page.keyboard.press("Enter")
    }
    for (const figure of ["usd", "tokens"] as const) {
      const table = await shownTable(page, figure)
      expect([...table.models].sort()).toEqual(Object.keys(doc.total.models).sort())
      expect(table.rows).toEqual(tableOf(doc, table.models, figure))
    }

    // two charts drawn on canvases of some size, each with its text for screen readers
    const charts = page.locator(".chart[role=img]")
    expect(await charts.count()).toBe(2)
    for (const chart of await charts.all()) {
      expect(await chart.getAttribute("aria-label")).toMatch(/^Bar chart: /)
      const box = await chart.locator("canvas").first().boundingBox()
      expect(box?.width ?? 0).toBeGreaterThan(100)
      expect(box?.height ?? 0).toBeGreaterThan(100)
    }
    // each model in the legend, with a figure beside it before the cursor is on a day (its
    // figure over the days shown)
    for (const model of Object.keys(doc.total.models)) {
      await expect.poll(() => page.locator(".u-legend", { hasText: model }).count()).toBe(2)
    }
    const legendValues = await page.locator(".chart .u-legend .u-series .u-value").allTextContents()
    expect(legendValues.length).toBeGreaterThan(0)
    expect(legendValues.filter((value) => value.trim() === "")).toEqual([])
    // the top sessions link to their pages
    const links = page.locator("table.top-sessions tbody a")
    expect(await links.count()).toBe(doc.total.sessions)
    expect(await links.first().getAttribute("href")).toMatch(/^#\/session\/[0-9a-f-]{36}$/)
    // the planted session's prompt is its title, its secret masked
    const plantedLink = page.locator(`table.top-sessions a[href="#/session/${planted}"]`)
    expect(await plantedLink.textContent()).toBe("deploy it with [REDACTED:anthropic-key] please")
    expect(await page.locator("main").textContent()).not.toContain(SECRET)

    // the charts follow the system's scheme: drawn again in its colors (the first model's
    // legend marker has the color of the project bars, --chart-0, in light and in dark)
    const colors = async () =>
      (await page.evaluate(
        `[".chart .u-legend .u-series:nth-child(2) .u-marker", ".projects-table .bar"]
          .map((selector) => getComputedStyle(document.querySelector(selector)).backgroundColor)`
      )) as [string, string]
    const [lightMarker, lightBar] = await colors()
    expect(lightMarker).toBe(lightBar)
    await page.emulateMedia({ colorScheme: "dark" })
    await expect.poll(async () => (await colors())[0]).not.toBe(lightMarker)
    const [darkMarker, darkBar] = await colors()
    expect(darkMarker).toBe(darkBar)
    await page.emulateMedia({ colorScheme: "light" })
    await expect.poll(async () => (await colors())[0]).toBe(lightMarker)

    // close the tables again for the picture
    for (const summary of await page.getByText("Show as table").all()) await summary.click()
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshot(page, "costs")

    // the charts follow the window: at phone width they shrink and nothing overflows sideways
    await page.setViewportSize({ width: 390, height: 844 })
    await expect.poll(async () => (await charts.first().locator("canvas").boundingBox())?.width ?? 0)
      .toBeLessThanOrEqual(390)
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)

    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it("opens on the last 30 days, moves the range with the quick ranges and shows every day for All", async () => {
    const all = await stats()
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    // the page's own link: the last 30 local days up to today, not every day since the first
    await page.getByRole("link", { name: "Costs" }).click()
    await page.locator(".totals").waitFor()
    const month = {
      since: await page.getByLabel("From", { exact: true }).inputValue(),
      until: await page.getByLabel("To", { exact: true }).inputValue()
    }
    expect((Date.parse(month.until) - Date.parse(month.since)) / 86_400_000).toBe(29)
    expect(await page.getByRole("button", { name: "Last 30 days" }).getAttribute("aria-pressed")).toBe("true")
    await expect.poll(() => shownTotals(page)).toEqual(
      totalsOf(await stats("--since", month.since, "--until", month.until))
    )

    await page.goto(`${ui.origin}/#/costs?since=${SINCE}&until=${UNTIL}`)
    await page.locator(".totals").waitFor()
    await page.getByRole("button", { name: "All" }).click()
    await expect.poll(() => page.url()).toBe(`${ui.origin}/#/costs?range=all`)
    await expect.poll(() => shownTotals(page)).toEqual(totalsOf(all))
    expect(await page.getByRole("button", { name: "All" }).getAttribute("aria-pressed")).toBe("true")

    // the last 7 days up to today (the browser's local days: UTC here, as the CLI's)
    await page.getByRole("button", { name: "Last 7 days" }).click()
    await expect.poll(() => page.url()).toMatch(/#\/costs\?since=\d{4}-\d{2}-\d{2}&until=\d{4}-\d{2}-\d{2}$/)
    const week = new URL(page.url().replace("#/costs", "costs")).searchParams
    const [since, until] = [week.get("since")!, week.get("until")!]
    expect((Date.parse(until) - Date.parse(since)) / 86_400_000).toBe(6)
    const recent = await stats("--since", since, "--until", until)
    await expect.poll(() => shownTotals(page)).toEqual(totalsOf(recent))
    if (recent.rows.length === 0) await page.getByText("No usage in this range.").waitFor()

    // a range typed backwards: the server's one line
    await page.goto(`${ui.origin}/#/costs?since=${UNTIL}&until=${SINCE}`)
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(`since ${UNTIL} is after until ${SINCE}`)

    expect(errors.filter((error) => !error.includes("400"))).toEqual([])
    expect(foreign).toEqual([])
    await context.close()
  }, TEST_TIMEOUT_MS)
})
