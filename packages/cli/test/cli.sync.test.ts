/**
 * `acx sync` through the BUILT binary on the real Claude Code fixtures: the first sync stores
 * every session, subagent and entry (into `sqlite:$ACX_HOME/sessions.db` when no `--to` is
 * given); a re-sync of the unchanged dir reads no file and stores nothing (its time is printed,
 * not asserted); a transcript Claude Code deleted keeps its session in the store; a Postgres
 * target (a schema of the run's database) is synced the same; a bad target is one line before
 * anything is created, its password never printed; a TTY shows progress (files, entries, MB/s, time left),
 * a pipe only the summary.
 */
import { plural } from "@acx/convert/Plural"
import * as Fixtures from "@acx/fixtures"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, BIN, expectOneLine, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { expectedCounts, expectImported, expectImportedThenClose } from "./utils/imported.js"
import { closedPort, dropSchema } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"
import { onTerminal } from "./utils/terminal.js"

const PG_URL = process.env["ACX_PG_URL"]

interface SyncJson {
  readonly sessions: number
  readonly subagents: number
  readonly entries: number
  readonly filesRead: number
  readonly filesUnchanged: number
  readonly bytesRead: number
  readonly passes: number
  readonly target: string
  readonly seconds: number
}

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  expect(result.stderr, "stderr").toBe("")
  return result
}

const fileCount = (built: Fixtures.BuiltConfigDir) => built.sessions.reduce((n, s) => n + 1 + s.subagents.length * 2, 0)

describe("acx sync", () => {
  let root = ""
  let built: Fixtures.BuiltConfigDir

  beforeAll(() => {
    root = tempDir("sync")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
  })
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it("syncs every session into $ACX_HOME/sessions.db; a re-sync of the unchanged dir stores nothing", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const home = path.join(root, "home-default")
    const env = { ACX_HOME: home, CLAUDE_CONFIG_DIR: built.configDir }
    const file = path.join(home, "sessions.db")
    const first = parseJson<SyncJson>(ok(await acx(["sync", "--json"], { env })))
    expect(first).toMatchObject({ ...expectedCounts(built), target: `sqlite:${file}`, passes: 1, filesUnchanged: 0 })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    await expectImportedThenClose(createSqliteSessionStore({ filename: file }), built)

    const again = parseJson<SyncJson>(ok(await acx(["sync", "--json", "--config-dir", built.configDir], { env })))
    expect(again).toMatchObject({ entries: 0, filesRead: 0, bytesRead: 0, filesUnchanged: fileCount(built) })
    console.log(`[acx] re-sync of the unchanged fixtures dir (${fileCount(built)} files): ${again.seconds} s`)
    await expectImportedThenClose(createSqliteSessionStore({ filename: file }), built)
    // without --json: one summary line on stdout, nothing on stderr (no terminal, no progress)
    const text = ok(await acx(["sync"], { env }))
    expect(text.stdout).toMatch(
      new RegExp(`^synced ${built.sessions.length} sessions?, .* 0 new entries into sqlite:${file} in [\\d.]+s`)
    )
  })

  it("keeps a session whose transcript Claude Code deleted, and stores what was appended meanwhile", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const dir = path.join(root, "deleting")
    const copy = Fixtures.buildClaudeConfigDir(dir)
    const file = path.join(root, "deleting.db")
    ok(await acx(["sync", "--to", `sqlite:${file}`, "--config-dir", copy.configDir]))
    const [gone, grown] = copy.sessions.filter((s) => s.subagents.length === 0)
    fs.rmSync(gone!.file)
    const appended = {
      type: "user",
      uuid: randomUUID(),
      sessionId: grown!.sessionId,
      message: { role: "user", content: "one more line" }
    }
    fs.appendFileSync(grown!.file, `${JSON.stringify(appended)}\n`)
    const second = parseJson<SyncJson>(
      ok(await acx(["sync", "--to", `sqlite:${file}`, "--config-dir", copy.configDir, "--json"]))
    )
    expect(second.entries).toBe(1)
    expect(second.sessions).toBe(copy.sessions.length - 1)
    const store = createSqliteSessionStore({ filename: file })
    try {
      // everything as it was, the deleted session included; the grown one with its new line
      await expectImported(store, { ...copy, sessions: copy.sessions.filter((s) => s !== gone) })
      expect((await store.load({ projectKey: gone!.projectKey, sessionId: gone!.sessionId }))?.length)
        .toBeGreaterThan(0)
      const listed = (await store.listSessions(gone!.projectKey)).map((s) => s.sessionId)
      expect(listed).toContain(gone!.sessionId)
      expect((await store.load({ projectKey: grown!.projectKey, sessionId: grown!.sessionId }))?.at(-1))
        .toEqual(appended)
    } finally {
      await store.close()
    }
  })

  it.skipIf(PG_URL === undefined)("syncs into Postgres (a schema of its own); a re-sync stores nothing", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const schema = `acx_sync_test_${process.pid}_${randomUUID().slice(0, 8)}`
    const url = new URL(PG_URL!)
    url.searchParams.set("schema", schema)
    try {
      const args = ["sync", "--to", url.href, "--config-dir", built.configDir, "--json"]
      const first = parseJson<SyncJson>(ok(await acx(args)))
      expect(first).toMatchObject(expectedCounts(built))
      // the password hidden in what is reported
      if (url.password !== "") expect(first.target).toContain(":***@")
      const again = parseJson<SyncJson>(ok(await acx(args)))
      expect(again).toMatchObject({ entries: 0, filesRead: 0, filesUnchanged: fileCount(built) })
      console.log(`[acx] re-sync into Postgres of the unchanged fixtures dir: ${again.seconds} s`)
      await expectImportedThenClose(createPostgresSessionStore({ url: PG_URL!, schema }), built)
    } finally {
      await dropSchema(PG_URL!, schema)
    }
  })

  describe("a bad target: one line, nothing created", () => {
    it("a SQLite file in a directory that does not exist", { timeout: TEST_TIMEOUT_MS }, async () => {
      const home = path.join(root, "bad-home-missing")
      const missing = path.join(root, "no", "such", "dir")
      const result = await acx(["sync", "--to", `sqlite:${missing}/s.db`, "--config-dir", built.configDir], {
        env: { ACX_HOME: home }
      })
      expectOneLine(result, 1, `the directory ${missing} does not exist`)
      expect(fs.existsSync(path.join(root, "no"))).toBe(false)
      expect(fs.existsSync(home)).toBe(false)
    })

    it("an unreachable Postgres: host and reason, never the password", { timeout: TEST_TIMEOUT_MS }, async () => {
      const home = path.join(root, "bad-home-pg")
      const port = await closedPort()
      const result = await acx(
        ["sync", "--to", `postgres://acx:s3cret-Pw@127.0.0.1:${port}/acx`, "--config-dir", built.configDir],
        { env: { ACX_HOME: home } }
      )
      expectOneLine(result, 1, `cannot connect to Postgres at 127.0.0.1:${port}`)
      expect(result.stderr).not.toContain("s3cret-Pw")
      expect(fs.existsSync(home)).toBe(false)
    })

    it("a spec that names no database (a usage error, exit 2), the password hidden", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const home = path.join(root, "bad-home-spec")
      const result = await acx(["sync", "--to", "postgress://acx:s3cret-Pw@host/db", "--config-dir", built.configDir], {
        env: { ACX_HOME: home }
      })
      expectOneLine(result, 2, "--to: expected sqlite:FILE")
      expect(result.stderr).not.toContain("s3cret-Pw")
      expect(fs.existsSync(home)).toBe(false)
    })

    it("a config dir that does not exist", { timeout: TEST_TIMEOUT_MS }, async () => {
      const home = path.join(root, "bad-home-config")
      const result = await acx(["sync", "--config-dir", path.join(root, "nowhere")], { env: { ACX_HOME: home } })
      expectOneLine(result, 1, "Claude Code config directory not found")
      expect(fs.existsSync(home)).toBe(false)
    })
  })

  it("shows its progress on a terminal: sessions, entries, MB/s, time left", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = path.join(root, "home-tty")
    const terminal = onTerminal([process.execPath, BIN, "sync", "--config-dir", built.configDir], {
      cwd: root,
      env: { ...process.env, ACX_HOME: home, NO_COLOR: "1" }
    })
    expect(await terminal.exited).toBe(0)
    const output = terminal.output()
    expect(output).toMatch(
      new RegExp(`syncing .* \\d+/${built.sessions.length} sessions · \\d+ entries · [\\d.]+ MB/s · [\\dhms ]+ left`)
    )
    expect(output).toContain(`synced ${plural(built.sessions.length, "session")}`)
  })
})
