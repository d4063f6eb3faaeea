/**
 * The web page's browser kit: the machine's Chromium driven by playwright-core (no browser
 * download: `CHROME_PATH`, else `/usr/bin/chromium`; where neither exists the browser tests are
 * skipped with the reason printed), a page that records its errors and requests to other
 * origins, screenshots and layout checks. `acx ui` itself is started by `@acx/fixtures/acxUi`.
 */
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"
import { expect } from "vitest"
import { serveConfigDir } from "./server.js"

/** Chromium's path, or why there is none. */
export const chromiumPath = (): { readonly path: string } | { readonly reason: string } => {
  const candidates = [process.env["CHROME_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]
    .filter((candidate): candidate is string => candidate !== undefined && candidate !== "")
  const found = candidates.find((candidate) => fs.existsSync(candidate))
  return found !== undefined
    ? { path: found }
    : { reason: `no Chromium (looked for CHROME_PATH, ${candidates.join(", ")}): apt-get install -y chromium` }
}

const found = chromiumPath()

/** Whether the browser tests can run here; when not, the reason is printed once. */
export const browserAvailable: boolean = "path" in found
if (!("path" in found)) console.warn(`[acx] browser tests skipped: ${found.reason}`)

/**
 * Launches the machine's Chromium headless, as root-safe and offline as CI needs it: no sandbox
 * (CI runs as root), no GPU, none of the background connections the closed network refuses.
 */
export const launchBrowser = (): Promise<Browser> => {
  if (!("path" in found)) throw new Error(found.reason)
  return chromium.launch({
    executablePath: found.path,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage"
    ]
  })
}

/** Where the pages' screenshots go (docs/images, shown by docs/ui.md and the README). */
export const SCREENSHOT_DIR = fileURLToPath(new URL("../../../../docs/images/", import.meta.url))

/** A 1280×800 screenshot of `page` as docs/images/ui-<name>.png. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `ui-${name}.png`) })
}

/**
 * A page of `browser` with every console error and page error collected (a test asserts there
 * were none) and every request to another origin recorded (a test asserts none left 127.0.0.1).
 */
export const openPage = async (browser: Browser, origin: string) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  const errors: Array<string> = []
  const foreign: Array<string> = []
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`)
  })
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith(origin) && !url.startsWith("data:")) foreign.push(url)
  })
  return { context, page, errors, foreign }
}

/** `acx ui …args` and the browser, started together. */
export const startWithBrowser = async (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>> = {}
): Promise<{ readonly ui: RunningUi; readonly browser: Browser }> => {
  const [ui, browser] = await Promise.all([startUi(args, env), launchBrowser()])
  return { ui, browser }
}

/** A page being served: by `acx ui` (a {@link RunningUi}), or by the server started in this process. */
export type ServedPage = Pick<RunningUi, "url" | "origin" | "token" | "stop">

/**
 * The page's server started in this process on `configDir` (see `serveConfigDir`) and the
 * browser, together: for a test of what the page shows, where the `acx ui` process adds nothing.
 */
export const serveWithBrowser = async (
  configDir: string,
  acxHome: string
): Promise<{ readonly ui: ServedPage; readonly browser: Browser }> => {
  const [ui, browser] = await Promise.all([serveConfigDir(configDir, acxHome), launchBrowser()])
  return { ui, browser }
}

/** Closes the browser and stops the page's server (either may be missing when the set-up failed). */
export const stopWithBrowser = async (ui: ServedPage | undefined, browser: Browser | undefined): Promise<void> => {
  await browser?.close()
  await ui?.stop()
}

/** How far the page is wider than the window (> 0: it scrolls sideways). */
export const horizontalOverflow = async (page: Page): Promise<number> =>
  // (a string: the test files are type-checked without the DOM library)
  (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number

/** Asserts the page logged no error and asked no other origin for anything, then closes it. */
export const closeClean = async (opened: Awaited<ReturnType<typeof openPage>>): Promise<void> => {
  expect(opened.errors).toEqual([])
  expect(opened.foreign).toEqual([])
  await opened.context.close()
}

/** An element that sticks out sideways or whose content is cut or spills out of it. */
export interface LayoutProblem {
  /** The element as `tag.class…` with the start of its text. */
  readonly element: string
  /** `document`: the page scrolls sideways; `outside`: the element reaches past the window's
   * right edge; `clipped`: its content is cut off (overflow hidden, no ellipsis); `scrolls`: its
   * content is out of sight until scrolled sideways (overflow auto); `spills`: its content runs
   * out of its box (overflow visible). */
  readonly kind: "document" | "outside" | "clipped" | "scrolls" | "spills"
  /** By how many CSS pixels. */
  readonly by: number
}

// Run in the page (a string: the test files are type-checked without the DOM library). A box
// whose content is out of sight until scrolled sideways counts (a table cut at its right edge
// looks clipped); text cut with an ellipsis says it was cut; a 1-pixel box is a visually hidden
// label; canvases draw what they draw; the inside of a closed <details> is not shown.
const LAYOUT_SCRIPT = `(() => {
  const problems = []
  const root = document.documentElement
  const width = root.clientWidth
  if (root.scrollWidth > width) problems.push({ element: "document", kind: "document", by: root.scrollWidth - width })
  const name = (el) => {
    const classes = typeof el.className === "string" && el.className.trim() !== ""
      ? "." + el.className.trim().split(/\\s+/).join(".")
      : ""
    return el.tagName.toLowerCase() + classes + " " + JSON.stringify((el.textContent || "").trim().slice(0, 40))
  }
  const scrolls = (style) => style.overflowX === "auto" || style.overflowX === "scroll"
  const contained = (el) => {
    for (let node = el.parentElement; node !== null && node !== document.body; node = node.parentElement) {
      const style = getComputedStyle(node)
      if (style.overflowX !== "visible") return true
    }
    return false
  }
  for (const el of document.body.querySelectorAll("*")) {
    const style = getComputedStyle(el)
    if (style.display === "none" || style.visibility === "hidden" || style.position === "fixed") continue
    // what a closed <details> holds is not on screen (its summary is)
    const closed = el.closest("details:not([open])")
    if (closed !== null && el.closest("summary")?.parentElement !== closed) continue
    const box = el.getBoundingClientRect()
    if (box.width <= 1 || box.height <= 1) continue
    if (box.right > width + 1 && !contained(el)) {
      problems.push({ element: name(el), kind: "outside", by: Math.round(box.right - width) })
    }
    if (el.clientWidth === 0 || el instanceof HTMLCanvasElement) continue
    const over = el.scrollWidth - el.clientWidth
    if (over <= 1) continue
    if (style.overflowX === "visible") problems.push({ element: name(el), kind: "spills", by: over })
    else if (scrolls(style)) problems.push({ element: name(el), kind: "scrolls", by: over })
    else if (style.textOverflow !== "ellipsis") problems.push({ element: name(el), kind: "clipped", by: over })
  }
  return problems
})()`

/** Every sideways overflow and clipping on the page as it is now (none: `[]`). */
export const layoutProblems = async (page: Page): Promise<Array<LayoutProblem>> =>
  (await page.evaluate(LAYOUT_SCRIPT)) as Array<LayoutProblem>
