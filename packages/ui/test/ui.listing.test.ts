/**
 * One listing: on the fixture config dir, the rows of a running `acx ui`'s `GET /api/sessions`
 * are the rows `acx sessions --json` prints (the spawned CLI, same config dir and home): the same
 * order (last activity, newest first), the same fields, absent ones left out (the page used to
 * send `null`s, drop `file` and `lastPrompt`, and sort by last activity while the CLI sorted by
 * mtime). A session whose file was touched after a newer session was last active stays below it
 * in both.
 */
import * as Fixtures from "@acx/fixtures"
import { acx, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import type * as UiApi from "@acx/ui/UiApi"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let dir: string
let built: Fixtures.BuiltConfigDir
let ui: RunningUi
let env: Record<string, string>

beforeAll(async () => {
  dir = tempDir("ui-listing")
  built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
  // the file last written is not the session last used: touch the oldest session's transcript
  const sessions = built.sessions.map((session) => ({ session, lastTime: lastTimeOf(session.file) }))
  const oldest = sessions.sort((a, b) => a.lastTime - b.lastTime)[0]!.session
  const now = new Date()
  fs.utimesSync(oldest.file, now, now)
  env = { ACX_HOME: path.join(dir, "home") }
  ui = await startUi(["--config-dir", built.configDir], env)
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  await ui?.stop()
  removeDir(dir)
})

const lastTimeOf = (file: string): number => {
  const times = fs.readFileSync(file, "utf8").split("\n").flatMap((line) => {
    const match = /"timestamp":"([^"]+)"/.exec(line)
    return match === null ? [] : [Date.parse(match[1]!)]
  })
  return Math.max(...times)
}

describe("acx ui and acx sessions: one listing", () => {
  it("the page's rows are acx sessions --json's rows, in the same order", { timeout: TEST_TIMEOUT_MS }, async () => {
    const response = await fetch(`${ui.origin}/api/sessions`, { headers: { cookie: `acx_ui_token=${ui.token}` } })
    expect(response.status).toBe(200)
    const page = (await response.json()) as UiApi.SessionsResponse
    const cli = parseJson<Array<Record<string, unknown>>>(
      await acx(["sessions", "--json", "--config-dir", built.configDir], { env })
    )
    expect(cli.length).toBe(built.sessions.length)
    expect(page.sessions).toEqual(cli)
    // the same keys in the same order, and no null anywhere
    expect(page.sessions.map((row) => Object.keys(row))).toEqual(cli.map((row) => Object.keys(row)))
    expect(JSON.stringify(page.sessions)).not.toContain("null")
    // last active first: the touched transcript is not first
    const active = cli.map((row) => typeof row["lastTime"] === "string" ? Date.parse(row["lastTime"]) : row["mtime"])
    expect(active).toEqual([...active].sort((a, b) => Number(b) - Number(a)))
    const mtimes = cli.map((row) => row["mtime"] as number)
    expect(mtimes).not.toEqual([...mtimes].sort((a, b) => b - a))
  })
})
