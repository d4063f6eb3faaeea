/**
 * `pnpm bench` for the session page's payload on a generated session of `ACX_BENCH_LINES` lines
 * (default 50 000: the fixture session with subagents repeated with fresh uuids and message
 * ids): `GET /api/session/:id` (secrets masked, as the page asks by default, and with `mask=0`),
 * time to first byte and to the complete payload, against a baseline measured in the same run:
 * reading and parsing the transcript alone (`ClaudeProjects.readSession`). Rounds alternate
 * the order; medians are printed with the ratios.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Fixtures from "@acx/fixtures"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as UiServer from "../src/UiServer.js"

const LINES = Number(process.env["ACX_BENCH_LINES"] ?? 50_000)
const ROUNDS = 5
const SESSION_ID = "0b5e0b5e-0000-4000-8000-000000050000"
const PROJECT = "-bench-session"

// The fixture session's lines again and again, each copy with its own uuids and message ids (so
// fragments and tool results pair up as in a real session).
const generate = (configDir: string): string => {
  const source = Fixtures.transcriptFiles().find((file) => file.includes("258c7280-ae70-4798-800f-63464d01a85d.jsonl"))!
  const lines = fs.readFileSync(source, "utf8").split("\n").filter((line) => line.trim() !== "")
  const dir = path.join(configDir, "projects", PROJECT)
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${SESSION_ID}.jsonl`)
  const out = fs.openSync(file, "w")
  let written = 0
  for (let copy = 0; written < LINES; copy++) {
    const suffix = copy.toString(16).padStart(6, "0")
    let text = ""
    for (const line of lines) {
      if (written >= LINES) break
      text += line.replace(/("(?:uuid|parentUuid|id|requestId|tool_use_id)":")([^"]+)"/g, `$1$2-${suffix}"`) + "\n"
      written++
    }
    fs.writeSync(out, text)
  }
  fs.closeSync(out)
  return file
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(1)} ms`

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-session-bench-"))
  const configDir = path.join(root, "claude")
  const file = generate(configDir)
  const size = fs.statSync(file).size
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    Scope.extend(UiServer.make({ configDir, acxHome: path.join(root, "home"), port: 0 }), scope)
  )
  const cookie = `acx_ui_token=${server.token}`
  const baseline = () =>
    Effect.runPromise(
      Effect.gen(function*() {
        const projects = yield* ClaudeProjects.make({ configDir })
        const read = yield* projects.readSession(PROJECT, SESSION_ID)
        return read.entries.length
      }).pipe(Effect.provide(NodeContext.layer))
    )
  const payload = async (mask: boolean) => {
    const start = performance.now()
    const response = await fetch(`http://127.0.0.1:${server.port}/api/session/${SESSION_ID}${mask ? "" : "?mask=0"}`, {
      headers: { cookie }
    })
    const reader = response.body!.getReader()
    let first: number | undefined
    let bytes = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      first ??= performance.now() - start
      bytes += value.length
    }
    return { first: first ?? 0, total: performance.now() - start, bytes }
  }
  try {
    await payload(true)
    const samples = {
      baseline: [] as Array<number>,
      first: [] as Array<number>,
      total: [] as Array<number>,
      firstOpen: [] as Array<number>,
      totalOpen: [] as Array<number>
    }
    let payloadBytes = 0
    for (let i = 0; i < ROUNDS; i++) {
      const steps: Array<() => Promise<void>> = [
        async () => {
          const start = performance.now()
          await baseline()
          samples.baseline.push(performance.now() - start)
        },
        async () => {
          const run = await payload(true)
          samples.first.push(run.first)
          samples.total.push(run.total)
          payloadBytes = run.bytes
        },
        async () => {
          const run = await payload(false)
          samples.firstOpen.push(run.first)
          samples.totalOpen.push(run.total)
        }
      ]
      for (const step of i % 2 === 0 ? steps : [...steps].reverse()) await step()
    }
    const base = median(samples.baseline)
    const ratio = (x: number) => `(${(x / base).toFixed(2)}× baseline)`
    console.log(
      `session payload (${LINES} lines, ${(size / 1e6).toFixed(1)} MB transcript, ${
        (payloadBytes / 1e6).toFixed(1)
      } MB payload), ${ROUNDS} rounds, medians:`
    )
    console.log(`  baseline (readSession: read + parse)          ${ms(base)}`)
    console.log(
      `  GET /api/session/:id first byte              ${ms(median(samples.first))}  ${ratio(median(samples.first))}`
    )
    console.log(
      `  GET /api/session/:id complete (masked)       ${ms(median(samples.total))}  ${ratio(median(samples.total))}`
    )
    console.log(
      `  GET /api/session/:id?mask=0 first byte       ${ms(median(samples.firstOpen))}  ${
        ratio(median(samples.firstOpen))
      }`
    )
    console.log(
      `  GET /api/session/:id?mask=0 complete         ${ms(median(samples.totalOpen))}  ${
        ratio(median(samples.totalOpen))
      }`
    )
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
