/**
 * `acx ui` with 200 live connections to one session: the page's other requests are still
 * answered while they are open, and the transcript is read once for all of them, not once each
 * (counted in the bytes the process read, from `/proc/<pid>/io`, not timed). Then a line appended
 * reaches every connection.
 */
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PlantedSession, plantSecrets, request } from "./utils/uiFixture.js"

const CONNECTIONS = 200
const ENTRIES = 1200

let dir: string
let planted: PlantedSession
let ui: RunningUi

const entry = (i: number, parent: string | null) => ({
  type: i % 2 === 0 ? "user" : "assistant",
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  parentUuid: parent,
  sessionId: "",
  timestamp: new Date(Date.UTC(2026, 0, 2, 10, 0, i)).toISOString(),
  cwd: "/home/dev/live",
  message: i % 2 === 0
    ? { role: "user", content: `question ${i}: ${"words ".repeat(150)}` }
    : {
      id: `msg_${i}`,
      role: "assistant",
      model: "claude-sonnet-4-5",
      type: "message",
      content: [{ type: "text", text: `answer ${i}: ${"more words ".repeat(100)}` }],
      usage: { input_tokens: 10, output_tokens: 20 }
    }
})

beforeAll(async () => {
  dir = tempDir("ui-live")
  planted = plantSecrets(dir)
  // a transcript of about 1.6 MB: read once per stream it would be 320 MB
  const lines: Array<string> = []
  let parent: string | null = null
  for (let i = 0; i < ENTRIES; i++) {
    const next: ReturnType<typeof entry> = { ...entry(i, parent), sessionId: planted.sessionId }
    parent = next.uuid
    lines.push(JSON.stringify(next))
  }
  fs.appendFileSync(planted.file, lines.join("\n") + "\n")
  ui = await startUi(["--config-dir", planted.configDir], { ACX_HOME: path.join(dir, "home") })
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  await ui?.stop()
  removeDir(dir)
})

/** The bytes the process has read so far (files and sockets: `rchar` of `/proc/<pid>/io`). */
const bytesRead = (pid: number): number =>
  Number(/^rchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, "utf8"))![1])

interface Live {
  body: string
  /** How many `end` events arrived (each closes a batch of items). */
  ends: number
  ended: boolean
  readonly close: () => void
}

const END = `"type":"end"`

const openLive = (pathAndQuery: string): Promise<Live> =>
  new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: "127.0.0.1",
      port: ui.port,
      path: pathAndQuery,
      headers: { cookie: `acx_ui_token=${ui.token}` },
      agent: false
    }, (response) => {
      const live: Live = { body: "", ends: 0, ended: false, close: () => response.destroy() }
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        // counted in the new text (and the few characters before it an event can straddle)
        const seen = live.body.slice(-END.length + 1) + chunk
        live.ends += seen.split(END).length - 1
        live.body += chunk
      })
      response.on("close", () => (live.ended = true))
      expect(response.statusCode).toBe(200)
      resolve(live)
    })
    outgoing.on("error", reject)
    outgoing.end()
  })

describe.runIf(fs.existsSync("/proc/self/io"))("acx ui: live connections", () => {
  it(
    `${CONNECTIONS} event streams of one session share one reader, and the page stays answered`,
    async () => {
      const size = fs.statSync(planted.file).size
      expect(size).toBeGreaterThan(1_000_000)
      const before = bytesRead(ui.process.pid!)
      const streams = await Promise.all(
        Array.from({ length: CONNECTIONS }, () => openLive(`/api/session/${planted.sessionId}/events?from=0`))
      )
      // another request while all of them are open
      const sessions = await request(ui.port, "/api/sessions", { headers: { cookie: `acx_ui_token=${ui.token}` } })
      expect(sessions.status).toBe(200)
      expect(JSON.parse(sessions.body).sessions.length).toBeGreaterThan(1)
      expect(streams.filter((live) => live.ended)).toEqual([])
      // every stream gets the whole transcript's items (an `end` event closes the batch)
      await expect.poll(() => streams.filter((live) => live.ends >= 1).length, { timeout: 60_000 }).toBe(
        CONNECTIONS
      )
      const first = streams[0]!.body
      for (const live of streams) expect(live.body.replace(/: ping\n\n/g, "")).toBe(first.replace(/: ping\n\n/g, ""))
      expect(first).toContain(`"key":"00000000-0000-4000-8000-000000001198"`)
      // the transcript was read a few times at most, not once per stream
      const read = bytesRead(ui.process.pid!) - before
      console.log(`[acx] ${CONNECTIONS} streams of a ${size}-byte transcript: the server read ${read} bytes`)
      expect(read).toBeLessThan(5 * size)

      // a line appended reaches every stream, read once
      const appendedBefore = bytesRead(ui.process.pid!)
      fs.appendFileSync(
        planted.file,
        JSON.stringify({
          ...entry(ENTRIES, null),
          sessionId: planted.sessionId,
          message: { role: "user", content: "appended" }
        })
          + "\n"
      )
      await expect.poll(() => streams.filter((live) => live.ends >= 2).length, { timeout: 60_000 }).toBe(
        CONNECTIONS
      )
      for (const live of streams) expect(live.body).toContain(`"key":"00000000-0000-4000-8000-000000001200"`)
      expect(bytesRead(ui.process.pid!) - appendedBefore).toBeLessThan(size)
      for (const live of streams) live.close()
    },
    TEST_TIMEOUT_MS
  )
})
