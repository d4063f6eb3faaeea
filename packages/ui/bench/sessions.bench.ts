/**
 * `pnpm bench` for the web page's sessions list on a generated big config dir
 * (`@acx/testing/BigConfigDir`: `ACX_BENCH_SESSIONS` sessions, default 200, `ACX_BENCH_BYTES`
 * bytes, default 552 MB; kept in the OS temp dir and reused), once its metadata is cached:
 * - `GET /api/sessions` answered in full, against a baseline measured in the same run over the
 *   same files (the directory walk and one `stat` per transcript, the least any listing does);
 * - the first paint of the sessions page in the machine's Chromium (navigation until the table
 *   has its rows), when Chromium is installed (goal: ≤ 300 ms).
 * Rounds alternate the order; medians are printed with the ratios.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import * as UiServer from "../src/UiServer.js"

const SESSIONS = Number(process.env["ACX_BENCH_SESSIONS"] ?? 200)
const BYTES = Number(process.env["ACX_BENCH_BYTES"] ?? 552_000_000)
const ROUNDS = 9

const big = generateBigConfigDir({
  dir: path.join(os.tmpdir(), `acx-bench-big-config-${SESSIONS}-${BYTES}`),
  sessions: SESSIONS,
  bytes: BYTES
})
const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-bench-"))

const baseline = () =>
  Effect.runPromise(
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const projects = yield* ClaudeProjects.make({ configDir: big.configDir })
      const files = yield* projects.listSessionFiles()
      yield* Effect.forEach(files, (file) => fs.stat(file.file), { concurrency: 16 })
      return files.length
    }).pipe(Effect.provide(NodeContext.layer))
  )

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(1)} ms`
const time = async (f: () => Promise<unknown>) => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

const chromiumPath = [process.env["CHROME_PATH"], "/usr/bin/chromium"].find((candidate) =>
  candidate !== undefined && candidate !== "" && fs.existsSync(candidate)
)

const main = async () => {
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    Scope.extend(UiServer.make({ configDir: big.configDir, acxHome: home, port: 0 }), scope)
  )
  const origin = `http://127.0.0.1:${server.port}`
  const cookie = `acx_ui_token=${server.token}`
  const list = async () => {
    const response = await fetch(`${origin}/api/sessions`, { headers: { cookie } })
    const body = (await response.json()) as { sessions: ReadonlyArray<unknown> }
    return body.sessions.length
  }
  try {
    // the cache's first fill (cold) and the usage folds the page asks for next
    const coldMs = await time(list)
    const usageColdMs = await time(() => fetch(`${origin}/api/sessions/usage`, { headers: { cookie } }))
    const [listed, walked] = [await list(), await baseline()]
    if (listed !== walked) throw new Error(`the list has ${listed} sessions, the walk ${walked}`)

    const samples = { baseline: [] as Array<number>, list: [] as Array<number>, paint: [] as Array<number> }
    const browser = chromiumPath === undefined ? undefined : await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
    const page = browser === undefined ? undefined : await (await browser.newContext()).newPage()
    if (page !== undefined) {
      await page.goto(server.url)
      await page.waitForSelector("table.sessions-table tbody tr")
    }
    for (let i = 0; i < ROUNDS; i++) {
      const steps: Array<[keyof typeof samples, () => Promise<unknown>]> = [
        ["baseline", baseline],
        ["list", list],
        ...(page === undefined ? [] : [[
          "paint",
          async () => {
            await page.goto(`${origin}/#/sessions?round=${i}`, { waitUntil: "commit" })
            await page.reload({ waitUntil: "commit" })
            await page.waitForSelector("table.sessions-table tbody tr")
          }
        ] as [keyof typeof samples, () => Promise<unknown>]])
      ]
      for (const [name, step] of i % 2 === 0 ? steps : [...steps].reverse()) samples[name].push(await time(step))
    }
    await browser?.close()

    const base = median(samples.baseline)
    console.log(`sessions list (${listed} sessions, ${(big.bytes / 1e6).toFixed(0)} MB), ${ROUNDS} rounds, medians:`)
    console.log(`  baseline (walk + stat per transcript)   ${ms(base)}`)
    console.log(
      `  GET /api/sessions, cache warm           ${ms(median(samples.list))}  (${
        (median(samples.list) / base).toFixed(2)
      }× baseline)`
    )
    console.log(`  GET /api/sessions, first (cache cold)   ${ms(coldMs)}`)
    console.log(`  GET /api/sessions/usage, first (cold)   ${ms(usageColdMs)}`)
    if (samples.paint.length > 0) {
      const paint = median(samples.paint)
      console.log(
        `  sessions page first paint (Chromium)    ${ms(paint)}  (${
          (paint / base).toFixed(2)
        }× baseline; goal ≤ 300 ms)`
      )
    } else console.log("  sessions page first paint: skipped (no Chromium: CHROME_PATH or /usr/bin/chromium)")
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(home, { recursive: true, force: true })
  }
}

await main()
