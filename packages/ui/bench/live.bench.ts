/**
 * `pnpm bench` for the session page's live updates under many open pages, as the page opens
 * them (`GET /api/session/:id/events?from=<where its payload ended>`): `ACX_BENCH_STREAMS`
 * (default 200) streams of one generated session of `ACX_BENCH_LINES` prompts (default 4 000,
 * about 4.6 MB), against a baseline measured in the same run, one stream alone:
 * - opening them (each answered with its first bytes: the server has rebuilt the view state);
 * - a line appended, until every stream has its item;
 * - `GET /api/sessions` answered while they are open, against the same request with none open.
 * Rounds alternate the order; medians are printed with the ratios (a reader per stream makes the
 * first two grow with the number of streams).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import * as UiServer from "../src/UiServer.js"

const STREAMS = Number(process.env["ACX_BENCH_STREAMS"] ?? 200)
const LINES = Number(process.env["ACX_BENCH_LINES"] ?? 4_000)
const ROUNDS = 3
const SESSION_ID = "11001100-0000-4000-8000-000000000200"

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(1)} ms`

const generate = (configDir: string): string => {
  const dir = path.join(configDir, "projects", "-bench-live")
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${SESSION_ID}.jsonl`)
  const lines = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({
      type: "user",
      uuid: `prompt-${i}`,
      sessionId: SESSION_ID,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      cwd: "/bench/live",
      message: { role: "user", content: `prompt ${i}: ${"words ".repeat(160)}` }
    }))
  fs.writeFileSync(file, lines.join("\n") + "\n")
  return file
}

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-live-bench-"))
  const file = generate(path.join(root, "claude"))
  const size = fs.statSync(file).size
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    Scope.extend(
      UiServer.make({ configDir: path.join(root, "claude"), acxHome: path.join(root, "home"), port: 0 }),
      scope
    )
  )
  const headers = { cookie: `acx_ui_token=${server.token}` }
  const get = (pathAndQuery: string) =>
    new Promise<void>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port: server.port, path: pathAndQuery, headers, agent: false }, (response) => {
        response.resume()
        response.on("end", () => resolve())
      }).on("error", reject)
    })
  // `n` streams opened together at the end of the file; resolves once each has its first bytes
  const streams = (n: number, from: number) =>
    new Promise<{ readonly seen: (text: string) => number; readonly close: () => void }>((resolve, reject) => {
      const bodies: Array<{ text: string; readonly response: http.IncomingMessage }> = []
      for (let i = 0; i < n; i++) {
        http.get({
          host: "127.0.0.1",
          port: server.port,
          path: `/api/session/${SESSION_ID}/events?from=${from}`,
          headers,
          agent: false
        }, (response) => {
          const body = { text: "", response }
          response.setEncoding("utf8")
          response.once("data", () => {
            bodies.push(body)
            if (bodies.length === n) {
              resolve({
                seen: (text) => bodies.filter((b) => b.text.includes(text)).length,
                close: () => bodies.forEach((b) => b.response.destroy())
              })
            }
          })
          response.on("data", (chunk: string) => (body.text += chunk))
        }).on("error", reject)
      }
    })
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      const poll = () => (check() ? resolve() : setTimeout(poll, 1))
      poll()
    })
  let appended = 0
  // opens `n` streams, then appends a line and waits until every stream has its item
  const round = async (n: number) => {
    const from = fs.statSync(file).size
    const opening = timed(() => streams(n, from))
    const busy = n > 1 ? await timed(() => get("/api/sessions")) : undefined
    const open = await opening
    const key = `"appended-${appended++}"`
    const start = performance.now()
    fs.appendFileSync(
      file,
      JSON.stringify({ type: "user", uuid: key.slice(1, -1), message: { role: "user", content: "new" } }) + "\n"
    )
    await until(() => open.value.seen(key) === n)
    const live = performance.now() - start
    open.value.close()
    return { open: open.time, live, busy: busy?.time }
  }
  const timed = async <A>(run: () => Promise<A>) => {
    const start = performance.now()
    const value = await run()
    return { value, time: performance.now() - start }
  }
  try {
    const samples = {
      openOne: [] as Array<number>,
      openMany: [] as Array<number>,
      liveOne: [] as Array<number>,
      liveMany: [] as Array<number>,
      alone: [] as Array<number>,
      busy: [] as Array<number>
    }
    for (let i = 0; i < ROUNDS; i++) {
      const steps: Array<() => Promise<void>> = [
        async () => {
          const one = await round(1)
          samples.openOne.push(one.open)
          samples.liveOne.push(one.live)
          samples.alone.push((await timed(() => get("/api/sessions"))).time)
        },
        async () => {
          const many = await round(STREAMS)
          samples.openMany.push(many.open)
          samples.liveMany.push(many.live)
          samples.busy.push(many.busy!)
        }
      ]
      for (const step of i % 2 === 0 ? steps : [...steps].reverse()) await step()
    }
    const line = (label: string, xs: ReadonlyArray<number>, base?: ReadonlyArray<number>, unit = "baseline") =>
      console.log(
        `  ${label.padEnd(44)} ${ms(median(xs)).padStart(10)}${
          base === undefined ? "" : `  (${(median(xs) / median(base)).toFixed(1)}× ${unit})`
        }`
      )
    console.log(`live updates (${LINES} lines, ${(size / 1e6).toFixed(1)} MB transcript), ${ROUNDS} rounds, medians:`)
    line("baseline: 1 stream opened", samples.openOne)
    line(`${STREAMS} streams opened`, samples.openMany, samples.openOne)
    line("baseline: a line appended, 1 stream has it", samples.liveOne)
    line(`a line appended, ${STREAMS} streams have it`, samples.liveMany, samples.liveOne)
    line("GET /api/sessions, no stream open", samples.alone)
    line(`GET /api/sessions, ${STREAMS} streams opening`, samples.busy, samples.alone, "alone")
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root, { recursive: true, force: true })
  }
}

void main()
