/**
 * One figure per session: for EVERY fixture session, the session page's header figure (the
 * `usage` line of a running `acx ui`'s session payload), the sessions list's usage and `acx stats --json` (the spawned CLI, same
 * home) give the same tokens, dollars and unpriced models, subagents included. The page used to
 * add up its own top-level turns: 258c7280 showed $11.85 / 15.2 M (its subagents left out) and
 * 5c0375b4 $0.1851 / 218 K (its inline sidechain turns left out) where everything else said
 * $12.23 / 15.4 M and $0.33 / 376 K.
 */
import * as Fixtures from "@acx/fixtures"
import { acx, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import { type RunningUi, startUi } from "@acx/fixtures/acxUi"
import type * as SessionView from "@acx/ui/SessionView"
import type * as UiApi from "@acx/ui/UiApi"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let dir: string
let built: Fixtures.BuiltConfigDir
let ui: RunningUi
let env: Record<string, string>

beforeAll(async () => {
  dir = tempDir("ui-figures")
  built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
  env = { ACX_HOME: path.join(dir, "home"), TZ: "UTC" }
  ui = await startUi(["--config-dir", built.configDir], env)
}, TEST_TIMEOUT_MS)

afterAll(async () => {
  await ui?.stop()
  removeDir(dir)
})

const get = (pathAndQuery: string) =>
  fetch(`${ui.origin}${pathAndQuery}`, { headers: { cookie: `acx_ui_token=${ui.token}` } })

// The page's figure for a session: the header comes first (without waiting for a fold), the
// figure in one `usage` line of the same payload.
const figureOf = async (sessionId: string): Promise<UiApi.SessionFigure> => {
  const response = await get(`/api/session/${sessionId}`)
  expect(response.status).toBe(200)
  const lines = (await response.text()).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as SessionView.SessionLine
  )
  expect(lines[0]?.type).toBe("header")
  expect(lines.at(-1)?.type).toBe("end")
  const usage = lines.flatMap((line) => line.type === "usage" ? [line.usage] : [])
  expect(usage).toHaveLength(1)
  return usage[0]!
}

interface StatsRow {
  readonly sessionId: string
  readonly costUSD: number
  readonly tokens: { readonly total: number }
  readonly unpriced: ReadonlyArray<string>
  readonly messages: { readonly user: number; readonly assistant: number }
}

describe("acx ui: one figure per session", () => {
  it("the page's header, the list and acx stats agree on every fixture session, subagents included", async () => {
    const stats = await acx(["stats", "--json", "--config-dir", built.configDir], { env })
    expect(stats.code).toBe(0)
    const rows = new Map(parseJson<{ rows: Array<StatsRow> }>(stats).rows.map((row) => [row.sessionId, row]))
    const listed = await get("/api/sessions/usage")
    expect(listed.status).toBe(200)
    const usage = new Map(((await listed.json()) as UiApi.UsageResponse).sessions.map((row) => [row.sessionId, row]))
    expect(built.sessions.length).toBeGreaterThan(4)
    expect(built.sessions.some((session) => session.subagents.length > 0)).toBe(true)
    for (const session of built.sessions) {
      const row = rows.get(session.sessionId)!
      const expected: UiApi.SessionFigure = {
        messages: row.messages.user + row.messages.assistant,
        tokens: row.tokens.total,
        costUSD: row.costUSD,
        unpriced: row.unpriced
      }
      const shown = await figureOf(session.sessionId)
      expect({ session: session.sessionId, ...shown }).toEqual({ session: session.sessionId, ...expected })
      const { outlier: _outlier, sessionId: _id, ...figure } = usage.get(session.sessionId)!
      expect(figure).toEqual(expected)
    }
    // the two sessions the pages disagreed on
    const big = rows.get("258c7280-ae70-4798-800f-63464d01a85d")!
    expect(big.costUSD.toFixed(2)).toBe("12.23")
    expect((await figureOf("258c7280")).costUSD).toBe(big.costUSD)
    expect((await figureOf("5c0375b4")).tokens).toBe(
      rows.get("5c0375b4-57a5-4f26-b12d-d022ee4e51b7")!.tokens.total
    )
  }, TEST_TIMEOUT_MS)
})
