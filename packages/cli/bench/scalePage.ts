/**
 * `scale.bench.ts`'s page row: `acx ui` started on the config dir as a user starts it (the built
 * binary; `@acx/fixtures/acxUi` does the same for tests but imports vitest), the machine's Chromium (`CHROME_PATH`, else `/usr/bin/chromium`)
 * driven by playwright-core, and the time from a reload to the first session row shown; the
 * page's first load comes first; the peak RSS is `acx ui`'s (VmHWM) after the reloads.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { chromium } from "playwright-core"
import { median } from "./rounds.js"

const chromiumPath = (): string | undefined =>
  [process.env["CHROME_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
    (candidate): candidate is string => candidate !== undefined && candidate !== "" && fs.existsSync(candidate)
  )

/** `acx ui --port 0 --config-dir D` and the URL it printed. */
const startUi = (bin: string, configDir: string, acxHome: string) =>
  new Promise<{ readonly url: string; readonly child: ChildProcess }>((resolve, reject) => {
    const { CLAUDE_CONFIG_DIR: _dir, NODE_OPTIONS: _loader, ...env } = process.env
    const child = spawn(process.execPath, [bin, "ui", "--port", "0", "--config-dir", configDir], {
      env: { ...env, ACX_HOME: acxHome },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const match = /(http:\/\/\S+\/\?token=[A-Za-z0-9_-]+)/.exec(out)
      if (match !== null) resolve({ url: match[1]!, child })
    })
    child.on("exit", (code) => reject(new Error(`acx ui exited (${code}) before printing its URL: ${out}`)))
  })

/** The median time (ms) of `rounds` reloads to the first session row, and acx ui's RSS after them. */
export const pageFirstRow = async (
  bin: string,
  configDir: string,
  acxHome: string,
  rounds: number
): Promise<{ readonly ms: number; readonly rssMB: number; readonly note?: string }> => {
  const executablePath = chromiumPath()
  if (executablePath === undefined) return { ms: Number.NaN, rssMB: Number.NaN, note: "no Chromium" }
  const ui = await startUi(bin, configDir, acxHome)
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-dev-shm-usage"
    ]
  })
  try {
    const page = await browser.newPage()
    const firstRow = page.locator("table.sessions-table tbody tr").first()
    await page.goto(ui.url)
    await firstRow.waitFor({ timeout: 600_000 })
    const samples: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const started = performance.now()
      await page.reload({ waitUntil: "commit" })
      await firstRow.waitFor({ timeout: 600_000 })
      samples.push(performance.now() - started)
    }
    const status = fs.readFileSync(`/proc/${ui.child.pid}/status`, "utf8")
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024
    return { ms: median(samples), rssMB: hwm }
  } finally {
    await browser.close()
    ui.child.kill("SIGINT")
  }
}
