/**
 * `acx ui` as a process: the line it prints, the port it picks, the warning for a non-loopback
 * host, the token and Host checks over real HTTP, and exports byte-equal to `acx show`.
 */
import * as Fixtures from "@acx/fixtures"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

let dir: string
let built: Fixtures.BuiltConfigDir
let ui: RunningUi
const SECRET = "sk-ant-api03-" + "A".repeat(40)

beforeAll(async () => {
  dir = tempDir("ui")
  built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
  // a secret in one session: masked by default, as written with mask=0
  const session = built.sessions[0]!
  const lines = fs.readFileSync(session.file, "utf8").trimEnd().split("\n")
  const last = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>
  fs.appendFileSync(
    session.file,
    JSON.stringify({
      type: "user",
      uuid: "11111111-2222-4333-8444-555555555555",
      parentUuid: last["uuid"] ?? null,
      sessionId: session.sessionId,
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/tmp/secret-test",
      message: { role: "user", content: `my key is ${SECRET}` }
    }) + "\n"
  )
  ui = await startUi(["--config-dir", built.configDir], { ACX_HOME: path.join(dir, "home") })
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  await ui?.stop()
  removeDir(dir)
})

const get = (pathAndQuery: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port: ui.port,
        path: pathAndQuery,
        headers: { cookie: `acx_ui_token=${ui.token}`, ...headers }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on(
          "end",
          () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })
        )
      }
    )
    request.on("error", reject)
    request.end()
  })

describe("acx ui", () => {
  it("prints one line with the URL and its token, and says how to stop", () => {
    expect(ui.line).toMatch(/^acx ui: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43} — Ctrl-C stops it$/)
    expect(ui.stderr()).toBe("")
  })

  it("answers 401 without the token and 403 for a foreign Host", async () => {
    expect((await get("/api/sessions", { cookie: "" })).status).toBe(401)
    expect((await get("/", { cookie: "" })).status).toBe(401)
    expect((await get("/api/sessions", { host: `rebound.example:${ui.port}` })).status).toBe(403)
    expect((await get("/api/sessions", { host: `localhost:${ui.port}` })).status).toBe(200)
  })

  it("exports each session in each format byte for byte as acx show prints it (both masked by default)", async () => {
    for (const [i, session] of built.sessions.entries()) {
      for (const format of ["markdown", "anthropic", "jsonl"]) {
        // the first session through the binary; the others' reference in this process (`run` of
        // src/Cli.ts, what the binary runs for `show`), a process start saved each
        const show = i === 0 ? acx : acxInProcess
        const shown = await show(["show", session.sessionId, "-f", format, "--config-dir", built.configDir])
        expect(shown.code).toBe(0)
        const served = await get(`/api/session/${session.sessionId}/export?format=${format}`)
        expect(served.status).toBe(200)
        expect(served.headers["content-disposition"]).toContain(`filename="${session.sessionId}`)
        expect(served.body.equals(Buffer.from(shown.stdout, "utf8"))).toBe(true)
      }
    }
  }, TEST_TIMEOUT_MS)

  it("masks secrets in exports and acx show unless mask=0 / --no-mask, which give the same bytes", async () => {
    const id = built.sessions[0]!.sessionId
    for (const format of ["markdown", "anthropic", "jsonl"]) {
      const masked = (await get(`/api/session/${id}/export?format=${format}`)).body.toString("utf8")
      expect(masked).not.toContain(SECRET)
      expect(masked).toContain("[REDACTED:anthropic-key]")
      const shown = await acx(["show", id, "-f", format, "--config-dir", built.configDir])
      expect(shown.stdout).toBe(masked)
      const open = (await get(`/api/session/${id}/export?format=${format}&mask=0`)).body.toString("utf8")
      expect(open).toContain(SECRET)
      const raw = await acx(["show", id, "-f", format, "--no-mask", "--config-dir", built.configDir])
      expect(raw.code).toBe(0)
      expect(raw.stdout).toBe(open)
    }
  }, TEST_TIMEOUT_MS)

  it("finds sessions only by id: a path or an unknown id is 404, a bad format 400", async () => {
    for (const id of ["..%2F..%2Fetc%2Fpasswd", "../x", "00000000-0000-4000-8000-000000000000", "abc"]) {
      expect((await get(`/api/session/${id}/export?format=jsonl`)).status).toBe(404)
    }
    expect((await get(`/api/session/${built.sessions[0]!.sessionId}/export?format=html`)).status).toBe(400)
  })

  it("takes the next port when the asked one is taken, and says so", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const taken = (blocker.address() as net.AddressInfo).port
    const next = await startUi(["--config-dir", built.configDir, "--port", String(taken)], {
      ACX_HOME: path.join(dir, "home")
    })
    try {
      expect(next.port).toBeGreaterThan(taken)
      expect(next.line).toContain(`(port ${taken} was taken)`)
    } finally {
      await next.stop()
      blocker.close()
    }
  }, TEST_TIMEOUT_MS)

  it("warns on stderr when --host is not loopback", async () => {
    const open = await startUi(["--config-dir", built.configDir, "--host", "0.0.0.0"], {
      ACX_HOME: path.join(dir, "home")
    })
    try {
      expect(open.stderr()).toMatch(/^acx: warning: --host 0\.0\.0\.0: the page is reachable from other machines/)
    } finally {
      await open.stop()
    }
  }, TEST_TIMEOUT_MS)

  it("--open hands the URL to the platform's opener", async () => {
    const bin = path.join(dir, "bin")
    const opened = path.join(dir, "opened.txt")
    fs.mkdirSync(bin, { recursive: true })
    fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 })
    const withOpen = await startUi(["--config-dir", built.configDir, "--open"], {
      ACX_HOME: path.join(dir, "home"),
      PATH: `${bin}${path.delimiter}${process.env["PATH"]}`
    })
    try {
      await expect.poll(() => (fs.existsSync(opened) ? fs.readFileSync(opened, "utf8") : ""), { timeout: 10_000 })
        .toBe(withOpen.url)
    } finally {
      await withOpen.stop()
    }
  }, TEST_TIMEOUT_MS)

  it("--from a SQLite file that does not exist: one line, exit 1, nothing created", async () => {
    const missing = path.join(dir, "no-such-dir", "sessions.db")
    const sibling = path.join(dir, "missing.db")
    for (const spec of [missing, `sqlite:${sibling}`]) {
      const result = await acx(["ui", "--port", "0", "--from", spec], { env: { ACX_HOME: path.join(dir, "home") } })
      expect(result.code, spec).toBe(1)
      expect(result.stderrLines).toEqual([expect.stringMatching(/^acx: --from: no store at .*; nothing was created$/)])
      expect(result.stdout).toBe("")
    }
    expect(fs.existsSync(path.dirname(missing))).toBe(false)
    expect(fs.existsSync(sibling)).toBe(false)
    const both = await acx(["ui", "--port", "0", "--from", sibling, "--config-dir", built.configDir])
    expect(both.code).toBe(2)
    expect(both.stderrLines).toEqual([expect.stringContaining("--from and --config-dir: choose one")])
  })

  it("fails with one line when the config directory does not exist", async () => {
    const result = await acx(["ui", "--port", "0", "--config-dir", path.join(dir, "missing")])
    expect(result.code).toBe(1)
    expect(result.stderrLines).toEqual([expect.stringMatching(/^acx: Claude Code config directory not found/)])
  })
})
