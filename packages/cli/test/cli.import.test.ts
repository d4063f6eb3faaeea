/**
 * End-to-end tests of `acx import` (SQLite, and Postgres when ACX_PG_URL is set) and `acx push`
 * (to an in-process Acontext emulator) on the real Claude Code fixtures, run through the BUILT
 * binary. What was written is read back through the stores' Promise APIs and the emulator.
 *
 * Each promise goes through the binary once; its further command lines (another bad value, the
 * second session, the run that finds nothing new) run `run` of `src/Cli.ts` in this process
 * (`acxInProcess`), a process start each saved.
 */
import * as Fixtures from "@acx/fixtures"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { expectedCounts, expectImported } from "./utils/imported.js"
import { acxInProcess } from "./utils/inProcess.js"
import { dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]
const SCHEMA = `acx_cli_test_${process.pid}_${randomUUID().slice(0, 8)}`

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  expect(result.stderr, "stderr").toBe("")
  return result
}

interface ImportJson {
  readonly filesRead: number
  readonly sessions: number
  readonly subagents: number
  readonly entries: number
  readonly target: string
  readonly seconds: number
}

describe(
  "acx import / push",
  () => {
    let root = ""
    let built: Fixtures.BuiltConfigDir
    let env: Record<string, string> = {}

    beforeAll(() => {
      root = tempDir("import")
      built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
      env = { CLAUDE_CONFIG_DIR: built.configDir }
    })
    afterAll(() => removeDir(root))

    describe("import into SQLite", () => {
      it("imports every session and subagent; load() returns the transcripts; a second run adds nothing", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const file = path.join(root, "sessions.sqlite")
        const first = parseJson<ImportJson>(ok(await acx(["import", "--to", `sqlite:${file}`, "--json"], { env })))
        expect(first).toMatchObject({ ...expectedCounts(built), target: `sqlite:${file}` })
        expect(first.entries).toBeGreaterThan(1000)

        const store = createSqliteSessionStore({ filename: file })
        try {
          await expectImported(store, built)
          const projects = [...new Set(built.sessions.map((s) => s.projectKey))]
          for (const projectKey of projects) {
            const listed = (await store.listSessions(projectKey)).map((s) => s.sessionId).sort()
            expect(listed).toEqual(
              built.sessions.filter((s) => s.projectKey === projectKey).map((s) => s.sessionId).sort()
            )
          }
        } finally {
          await store.close()
        }

        // again, from --from instead of CLAUDE_CONFIG_DIR, with a tiny batch size: nothing new
        const second = await acxInProcess([
          "import",
          "--from",
          built.configDir,
          "--to",
          `sqlite:${file}`,
          "--batch-size",
          "7"
        ])
        expect(ok(second).stdout).toMatch(
          new RegExp(
            `^imported ${built.sessions.length} sessions?, .* 0 new entries into sqlite:${file} in [\\d.]+s \\(0 files? read, 0 B; \\d+ unchanged\\)\\n$`
          )
        )
        const again = createSqliteSessionStore({ filename: file })
        try {
          await expectImported(again, built)
        } finally {
          await again.close()
        }
      })

      it("two imports of the same source at the same time store every entry once", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const file = path.join(root, "race.sqlite")
        const args = ["import", "--to", `sqlite:${file}`, "--batch-size", "7", "--json"]
        const [a, b] = await Promise.all([acx(args, { env }), acx(args, { env })])
        const results = [parseJson<ImportJson>(ok(a)), parseJson<ImportJson>(ok(b))]
        // each entry read by one import or the other, never stored twice
        expect(results[0]!.entries + results[1]!.entries).toBeGreaterThanOrEqual(expectedCounts(built).entries)
        const store = createSqliteSessionStore({ filename: file })
        try {
          await expectImported(store, built)
        } finally {
          await store.close()
        }
      })

      it("names the files with malformed or non-UTF-8 lines; a re-import reads only what was appended", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        const dir = path.join(root, "warned")
        const sessionId = "3f0c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
        const transcript = path.join(dir, "projects", "-w", `${sessionId}.jsonl`)
        fs.mkdirSync(path.dirname(transcript), { recursive: true })
        const line = (n: number) =>
          JSON.stringify({ type: "user", uuid: `u${n}`, message: { content: `p${n}` } }) + "\n"
        fs.writeFileSync(
          transcript,
          Buffer.concat([
            Buffer.from(line(1) + "{not json\n"),
            Buffer.from("{\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"content\":\"caf"),
            Buffer.from([0xe9]),
            Buffer.from("\"}}\n")
          ])
        )
        const file = path.join(root, "warned.sqlite")
        const first = await acx(["import", "--from", dir, "--to", `sqlite:${file}`])
        expect(first.code).toBe(0)
        expect(first.stdout).toMatch(/^imported 1 session, 0 subagent transcripts, 2 new entries /)
        expect(first.stderrLines).toEqual([
          `acx: warning: 1 malformed line skipped (not entries) in -w/${sessionId}.jsonl (1, first at byte ${
            Buffer.byteLength(line(1))
          })`,
          `acx: warning: 1 line not valid UTF-8, stored with U+FFFD in place of the bad bytes, in -w/${sessionId}.jsonl (1)`
        ])
        fs.appendFileSync(transcript, line(3))
        const later = new Date(fs.statSync(transcript).mtimeMs + 5_000)
        fs.utimesSync(transcript, later, later)
        const second = ok(await acxInProcess(["import", "--from", dir, "--to", `sqlite:${file}`]))
        expect(second.stdout).toMatch(
          new RegExp(
            `1 new entry into sqlite:.* \\(1 file read, ${Buffer.byteLength(line(3))} B; 0 unchanged\\)`
          )
        )
        const store = createSqliteSessionStore({ filename: file })
        try {
          const loaded = await store.load({ projectKey: "-w", sessionId })
          expect(loaded?.map((e) => e.uuid)).toEqual(["u1", "u2", "u3"])
          expect(loaded?.[1]).toMatchObject({ message: { content: "caf\uFFFD" } })
        } finally {
          await store.close()
        }
      })

      it("--project imports only that project", { timeout: TEST_TIMEOUT_MS }, async () => {
        const file = path.join(root, "one-project.sqlite")
        const projectKey = built.sessions[0]!.projectKey
        const result = parseJson<ImportJson>(
          ok(await acxInProcess(["import", "--to", `sqlite:${file}`, "--project", projectKey, "--json"], { env }))
        )
        const inProject = built.sessions.filter((s) => s.projectKey === projectKey)
        expect(result.sessions).toBe(inProject.length)
        const store = createSqliteSessionStore({ filename: file })
        try {
          const others = [...new Set(built.sessions.map((s) => s.projectKey))].filter((p) => p !== projectKey)
          expect(others.length).toBeGreaterThan(0)
          for (const other of others) expect(await store.listSessions(other)).toEqual([])
          expect((await store.listSessions(projectKey)).length).toBe(inProject.length)
        } finally {
          await store.close()
        }
      })

      it.each([
        [
          "bogus",
          /^acx: --to: expected sqlite:FILE, a FILE\.db \/ FILE\.sqlite path, or postgres:\/\/URL.*, got "bogus"$/
        ],
        ["sqlite:", /^acx: --to: sqlite: needs a file/],
        ["postgres://[::1", /^acx: --to: not a valid postgres:\/\/ URL$/]
      ])("--to %s is an invalid argument (exit 2, one line)", { timeout: TEST_TIMEOUT_MS }, async (to, message) => {
        // the first through the binary
        const result = await (to === "bogus" ? acx : acxInProcess)(["import", "--to", to], { env })
        expect(result.code).toBe(2)
        expect(result.stdout).toBe("")
        expect(result.stderrLines).toHaveLength(1)
        expect(result.stderrLines[0]).toMatch(message)
      })

      it("--batch-size 0 is an invalid argument (exit 2)", { timeout: TEST_TIMEOUT_MS }, async () => {
        const result = await acxInProcess(
          ["import", "--to", `sqlite:${path.join(root, "never.sqlite")}`, "--batch-size", "0"],
          { env }
        )
        expect(result.code).toBe(2)
        expect(result.stderrLines).toEqual(["acx: --batch-size must be at least 1"])
      })
    })

    describe.skipIf(PG_URL === undefined)(
      PG_URL === undefined ? "import into Postgres (skipped: ACX_PG_URL not set)" : `import into Postgres (${SCHEMA})`,
      () => {
        afterAll(() => dropSchema(PG_URL!, SCHEMA))

        it("imports every session; load() returns the transcripts; a second run adds nothing", {
          timeout: TEST_TIMEOUT_MS
        }, async () => {
          const to = `${PG_URL}${PG_URL!.includes("?") ? "&" : "?"}schema=${SCHEMA}`
          const first = parseJson<ImportJson>(ok(await acx(["import", "--to", to, "--json"], { env })))
          expect(first).toMatchObject(expectedCounts(built))
          expect(first.target).toContain(`(schema ${SCHEMA})`)
          const url = new URL(PG_URL!)
          if (url.password !== "") {
            expect(first.target).toContain(`:***@${url.host}`)
            expect(first.target).not.toContain(`:${url.password}@`)
          }
          const second = parseJson<ImportJson>(ok(await acxInProcess(["import", "--to", to, "--json"], { env })))
          expect(second).toMatchObject({ ...expectedCounts(built), entries: 0, filesRead: 0 })
          const store = createPostgresSessionStore({ url: PG_URL!, schema: SCHEMA })
          try {
            await expectImported(store, built)
          } finally {
            await store.close()
          }
        })

        it("two imports of the same source at the same time store every entry once", {
          timeout: TEST_TIMEOUT_MS
        }, async () => {
          const schema = `${SCHEMA}_race`
          const to = `${PG_URL}${PG_URL!.includes("?") ? "&" : "?"}schema=${schema}`
          const args = ["import", "--to", to, "--batch-size", "9", "--json"]
          try {
            const [a, b] = await Promise.all([acx(args, { env }), acx(args, { env })])
            ok(a)
            ok(b)
            const store = createPostgresSessionStore({ url: PG_URL!, schema })
            try {
              await expectImported(store, built)
            } finally {
              await store.close()
            }
          } finally {
            await dropSchema(PG_URL!, schema)
          }
        })
      }
    )

    describe("push to Acontext (emulator)", () => {
      let emulator: AcontextEmulatorHandle
      let pushEnv: Record<string, string> = {}
      beforeAll(async () => {
        emulator = await startAcontextEmulator()
        pushEnv = { ...env, ACONTEXT_API_KEY: emulator.apiKey }
      })
      afterAll(() => emulator?.close())

      it("stores the messages `show --format anthropic` prints; a second push stores 0", {
        timeout: TEST_TIMEOUT_MS
      }, async () => {
        // the small sessions, plus one with subagents
        const picked = built.sessions.filter((s) => s.subagents.length === 0).slice(0, 2)
        for (const [index, session] of picked.entries()) {
          // the first push through the binary, the second in process
          const [pushed, shown] = await Promise.all([
            (index === 0 ? acx : acxInProcess)(["push", session.sessionId, "--base-url", emulator.url, "--json"], {
              env: pushEnv
            }),
            // push leaves thinking out by default, like --no-thinking
            acxInProcess(["show", session.sessionId, "--format", "anthropic", "--no-thinking"], { env })
          ])
          const result = parseJson<{ sessionId: string; stored: number; alreadyPresent: number; total: number }>(
            ok(pushed)
          )
          const messages = parseJson<Array<{ role: string }>>(ok(shown))
          expect(result).toMatchObject({
            sessionId: session.sessionId,
            stored: messages.length,
            alreadyPresent: 0,
            total: messages.length
          })
          const stored = await emulator.messages(session.sessionId)
          expect(stored.length, session.source).toBe(messages.length)
          expect(stored.map((m) => (m as { role?: string }).role ?? "")).toEqual(messages.map((m) => m.role))
        }

        const session = picked[0]!
        const before = (await emulator.messages(session.sessionId)).length
        const again = await acxInProcess(["push", session.sessionId.slice(0, 8), "--base-url", emulator.url], {
          env: pushEnv
        })
        expect(ok(again).stdout.trim()).toBe(
          `pushed ${session.sessionId} to ${emulator.url}: 0 messages stored, ${before} already there (${before} in the session)`
        )
        expect((await emulator.messages(session.sessionId)).length).toBe(before)
      })

      it("ACONTEXT_BASE_URL is used when --base-url is absent", { timeout: TEST_TIMEOUT_MS }, async () => {
        const session = built.sessions.find((s) => s.subagents.length > 0)!
        const result = parseJson<{ stored: number; total: number }>(
          ok(
            await acxInProcess(["push", session.sessionId, "--json"], {
              env: { ...pushEnv, ACONTEXT_BASE_URL: emulator.url }
            })
          )
        )
        expect(result.stored).toBe(result.total)
        expect((await emulator.messages(session.sessionId)).length).toBe(result.total)
      })

      it("without ACONTEXT_API_KEY: exit 2, one line, nothing sent", { timeout: TEST_TIMEOUT_MS }, async () => {
        await emulator.clearRequests()
        const session = built.sessions[0]!
        for (const key of [undefined, "   "]) {
          const result = await (key === undefined ? acx : acxInProcess)(
            ["push", session.sessionId, "--base-url", emulator.url],
            { env: { ...env, ACONTEXT_API_KEY: key } }
          )
          expect(result.code).toBe(2)
          expect(result.stdout).toBe("")
          expect(result.stderrLines).toEqual(["acx: ACONTEXT_API_KEY is not set (the Acontext API key to push with)"])
        }
        expect(await emulator.requests()).toEqual([])
      })

      it("a wrong API key fails with one line (exit 1)", { timeout: TEST_TIMEOUT_MS }, async () => {
        const session = built.sessions[0]!
        const result = await acxInProcess(["push", session.sessionId, "--base-url", emulator.url], {
          env: { ...env, ACONTEXT_API_KEY: "sk-ac-wrong" }
        })
        expect(result.code).toBe(1)
        expect(result.stdout).toBe("")
        expect(result.stderrLines).toHaveLength(1)
        expect(result.stderrLines[0]).toMatch(/^acx: /)
      })

      it("a --base-url that is not http(s) is an invalid argument (exit 2)", { timeout: TEST_TIMEOUT_MS }, async () => {
        const result = await acxInProcess(["push", built.sessions[0]!.sessionId, "--base-url", "ftp://x"], {
          env: pushEnv
        })
        expect(result.code).toBe(2)
        expect(result.stderrLines).toEqual(["acx: --base-url must be http(s)://…, got ftp://x"])
      })
    })
  }
)
