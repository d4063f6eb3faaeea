/**
 * `acx push` (the BUILT binary) while the Acontext emulator stores each message and then drops
 * the connection or answers 502 — at a random rate, or on every request: no duplicate, exit 0
 * with the right count, and a re-push completes with nothing new. A session another writer
 * filled is Diverged, with a message that says what to do; `--new-session` does it.
 */
import { plural } from "@acx/convert/Plural"
import * as Fixtures from "@acx/fixtures"
import { type AcontextEmulatorHandle, type AcontextFault, startAcontextEmulator } from "@acx/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  expect(result.stderr, "stderr").toBe("")
  return result
}

interface PushJson {
  readonly sessionId: string
  readonly acontextSessionId: string
  readonly total: number
  readonly stored: number
  readonly alreadyPresent: number
  readonly recovered: number
}

describe("acx push under store-then-fail faults", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir
  let env: Record<string, string> = {}
  let emulator: AcontextEmulatorHandle
  // The session with the most messages (the one the issue saw duplicated) and what `show` prints.
  let sessionId = ""
  let expected: Array<unknown> = []

  beforeAll(async () => {
    root = tempDir("push-faults")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    emulator = await startAcontextEmulator()
    env = { CLAUDE_CONFIG_DIR: built.configDir, ACONTEXT_API_KEY: emulator.apiKey }
    const largest = [...built.sessions].sort((a, b) => fs.statSync(b.file).size - fs.statSync(a.file).size)[0]!
    sessionId = largest.sessionId
    expected = parseJson<Array<unknown>>(
      ok(await acx(["show", sessionId, "--format", "anthropic", "--no-thinking"], { env }))
    )
  }, TEST_TIMEOUT_MS)
  afterAll(async () => {
    await emulator?.close()
    removeDir(root)
  })

  it(
    "stored, then the connection dropped (rate 0.1): no duplicate, exit 0 with the right count; a re-push stores nothing",
    {
      timeout: TEST_TIMEOUT_MS
    },
    async () => {
      await emulator.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, rate: 0.1 }])
      const first = ok(await acx(["push", sessionId, "--base-url", emulator.url], { env }))
      await emulator.clearFaults()
      expect(first.stdout.trim()).toBe(
        `pushed ${sessionId} to ${emulator.url}: ${
          plural(expected.length, "message")
        } stored, 0 already there (${expected.length} in the session)`
      )
      const hit = (await emulator.requests()).filter((r) => r.route === "storeMessage" && r.faulted).length
      expect(hit).toBeGreaterThan(0)
      const stored = await emulator.messages(sessionId)
      expect(stored.map((m) => m.role)).toEqual(expected.map((m) => (m as { role: string }).role))

      const again = ok(await acx(["push", sessionId, "--base-url", emulator.url], { env }))
      expect(again.stdout.trim()).toBe(
        `pushed ${sessionId} to ${emulator.url}: 0 messages stored, ${expected.length} already there (${expected.length} in the session)`
      )
      expect((await emulator.messages(sessionId)).length).toBe(expected.length)
    }
  )

  const cases: ReadonlyArray<{ readonly name: string; readonly faults: ReadonlyArray<AcontextFault> }> = [
    {
      name: "stored, then 502 (rate 0.5)",
      faults: [{ route: "storeMessage", status: 502, afterEffect: true, rate: 0.5, seed: 9 }]
    },
    {
      name: "stored, then the connection dropped, every request",
      faults: [{ route: "storeMessage", drop: true, afterEffect: true }]
    }
  ]

  for (const { faults, name } of cases) {
    it(`${name}: no duplicate, exit 0, every message counted (--new-session --json)`, {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      // Each case pushes into a fresh Acontext session of its own.
      await emulator.clearRequests()
      await emulator.setFaults(faults)
      const pushed = parseJson<PushJson>(
        ok(await acx(["push", sessionId, "--base-url", emulator.url, "--new-session", "--json"], { env }))
      )
      await emulator.clearFaults()
      const hit = (await emulator.requests()).filter((r) => r.route === "storeMessage" && r.faulted).length
      expect(hit).toBeGreaterThan(0)
      expect(pushed).toMatchObject({
        sessionId,
        total: expected.length,
        stored: expected.length,
        alreadyPresent: 0,
        recovered: hit
      })
      expect(pushed.acontextSessionId).not.toBe(sessionId)
      const stored = await emulator.messages(pushed.acontextSessionId)
      expect(stored.map((m) => m.role)).toEqual(expected.map((m) => (m as { role: string }).role))
    })
  }

  it("acx push --help documents --new-session", { timeout: TEST_TIMEOUT_MS }, async () => {
    const help = ok(await acx(["push", "--help"])).stdout
    expect(help).toContain("--new-session")
    expect(help.replace(/\s+/g, " ")).toContain("Push into a fresh Acontext session id")
  })

  it(
    "a session another writer filled: exit 1, one line saying to use --new-session; --new-session pushes it and prints the new id",
    {
      timeout: TEST_TIMEOUT_MS
    },
    async () => {
      const session = [...built.sessions].reverse().find((s) => s.sessionId !== sessionId)!
      // Another writer stored a message of its own in the Acontext session first.
      const headers = { Authorization: `Bearer ${emulator.apiKey}`, "Content-Type": "application/json" }
      await fetch(`${emulator.url}/session`, {
        method: "POST",
        headers,
        body: JSON.stringify({ use_uuid: session.sessionId })
      })
      await fetch(`${emulator.url}/session/${session.sessionId}/messages`, {
        method: "POST",
        headers,
        body: JSON.stringify({ format: "anthropic", blob: { role: "user", content: "not from this transcript" } })
      })
      const diverged = await acx(["push", session.sessionId, "--base-url", emulator.url], { env })
      expect(diverged.code).toBe(1)
      expect(diverged.stdout).toBe("")
      expect(diverged.stderrLines).toHaveLength(1)
      expect(diverged.stderrLines[0]).toMatch(/^acx: cannot push session \S+: /)
      expect(diverged.stderrLines[0]).toContain(`acx push ${session.sessionId} --new-session`)
      expect((await emulator.messages(session.sessionId)).length).toBe(1)

      const fresh = ok(await acx(["push", session.sessionId, "--base-url", emulator.url, "--new-session"], { env }))
      const match =
        /^pushed (\S+) to (\S+) as new session (\S+): (\d+) messages? stored, 0 already there \((\d+) in the session\)$/
          .exec(fresh.stdout.trim())
      expect(match, fresh.stdout).not.toBeNull()
      const [, claudeId, , newId, storedCount, total] = match!
      expect(claudeId).toBe(session.sessionId)
      expect(newId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(storedCount).toBe(total)
      expect((await emulator.messages(newId!)).length).toBe(Number(total))
      expect((await emulator.messages(session.sessionId)).length).toBe(1)
    }
  )
})
