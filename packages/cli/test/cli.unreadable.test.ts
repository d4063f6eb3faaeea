/**
 * A transcript or project folder the user may not read never stops a command (issue 32, point 1):
 * `import`, `sync`, `stats` and `sessions` skip it with a warning naming it and saying
 * `permission denied`, keep the rest and exit 0; the ledger does not mark it done, so once it is
 * readable the next run reads it. Spawned as an unprivileged user (`utils/unprivileged.ts`): root
 * reads a `chmod 000` file, and permissions are the process's.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, removeDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { userEntry } from "./utils/hostileDir.js"
import { type Unprivileged, unprivileged } from "./utils/unprivileged.js"

const drop = unprivileged("unreadable")
const ok = "user" in drop ? drop : undefined
afterAll(() => {
  if (ok !== undefined) removeDir(ok.dir)
})

// the unreadable file sorts first: it used to stop the import before anything was stored
const LOCKED = "00000000-0000-4000-8000-00000000000a"
const READABLE = ["00000000-0000-4000-8000-00000000000b", "00000000-0000-4000-8000-00000000000c"]
const IN_FOLDER = "00000000-0000-4000-8000-00000000000d"

const write = (dir: string, sessionId: string) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, `${sessionId}.jsonl`),
    JSON.stringify(userEntry(sessionId, 0, `prompt of ${sessionId}`)) + "\n"
  )
}

/** A config dir: `-tmp-p` with one locked transcript and two readable, `-tmp-a` a locked folder. */
const build = (setup: Unprivileged, name: string) => {
  const configDir = path.join(setup.dir, name, "claude")
  const project = path.join(configDir, "projects", "-tmp-p")
  const folder = path.join(configDir, "projects", "-tmp-a")
  for (const id of [LOCKED, ...READABLE]) write(project, id)
  write(folder, IN_FOLDER)
  setup.own(path.join(setup.dir, name))
  const locked = path.join(project, `${LOCKED}.jsonl`)
  const lock = () => {
    fs.chmodSync(locked, 0o000)
    fs.chmodSync(folder, 0o000)
  }
  const unlock = () => {
    fs.chmodSync(locked, 0o644)
    fs.chmodSync(folder, 0o755)
  }
  lock()
  return { configDir, home: path.join(setup.dir, name, "home"), locked, folder, unlock }
}

const skippedBoth = (result: AcxResult, dir: { locked: string; folder: string }, what: string) => {
  expect(result.code, `${what}: ${result.stderr}`).toBe(0)
  expect(result.stderr, what).toMatch(
    new RegExp(`acx: warning: skipped \\S*${LOCKED}\\.jsonl: permission denied`)
  )
  expect(result.stderr, what).toContain(`acx: warning: skipped ${dir.folder}: permission denied`)
  expect(result.stderr, what).not.toMatch(/I\/O error|EACCES/)
}

const storedSessions = async (db: string): Promise<Array<string>> => {
  const store = createSqliteSessionStore({ filename: db })
  try {
    const found: Array<string> = []
    for (const sessionId of [LOCKED, ...READABLE]) {
      const entries = await store.load({ projectKey: "-tmp-p", sessionId })
      if (entries !== null && entries.length > 0) found.push(sessionId)
    }
    const inFolder = await store.load({ projectKey: "-tmp-a", sessionId: IN_FOLDER })
    if (inFolder !== null && inFolder.length > 0) found.push(IN_FOLDER)
    return found.sort()
  } finally {
    await store.close?.()
  }
}

describe.skipIf(ok === undefined)(
  ok === undefined ? `unreadable files (skipped: ${"why" in drop ? drop.why : ""})` : "unreadable files",
  () => {
    const setup = ok!
    const as = (dir: { configDir: string; home: string }, extra: Record<string, string> = {}) => ({
      env: { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: dir.home, HOME: dir.home, ...extra },
      ...(setup.user === undefined ? {} : { user: setup.user })
    })

    it("import: skipped with a warning, the rest stored, exit 0; read once readable", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const dir = build(setup, "import")
      const db = path.join(setup.dir, "import", "s.db")
      const first = await acx(["import", "--to", `sqlite:${db}`, "--json"], as(dir))
      skippedBoth(first, dir, "import")
      expect(parseJson<{ entries: number }>(first).entries).toBe(READABLE.length)
      expect(await storedSessions(db)).toEqual(READABLE)
      // not marked done: warned again, and read once it may be
      skippedBoth(await acx(["import", "--to", `sqlite:${db}`], as(dir)), dir, "import (again)")
      dir.unlock()
      const last = await acx(["import", "--to", `sqlite:${db}`, "--json"], as(dir))
      expect(last.code, last.stderr).toBe(0)
      expect(last.stderr).not.toContain("permission denied")
      expect(parseJson<{ entries: number }>(last).entries).toBe(2)
      expect(await storedSessions(db)).toEqual([LOCKED, ...READABLE, IN_FOLDER].sort())
    })

    it("sync: skipped with a warning, exit 0, the next sync reads it once readable", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const dir = build(setup, "sync")
      skippedBoth(await acx(["sync"], as(dir)), dir, "sync")
      skippedBoth(await acx(["sync"], as(dir)), dir, "sync (again)")
      expect(await storedSessions(path.join(dir.home, "sessions.db"))).toEqual(READABLE)
      dir.unlock()
      const last = await acx(["sync"], as(dir))
      expect(last.code, last.stderr).toBe(0)
      expect(await storedSessions(path.join(dir.home, "sessions.db"))).toEqual(
        [LOCKED, ...READABLE, IN_FOLDER].sort()
      )
    })

    it("stats and sessions: skipped with a warning, the rest shown, exit 0", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const dir = build(setup, "read")
      const stats = await acx(["stats", "--json", "--by", "session"], as(dir))
      skippedBoth(stats, dir, "stats")
      expect(parseJson<{ rows: Array<{ sessionId: string }> }>(stats).rows.map((row) => row.sessionId).sort())
        .toEqual(READABLE)
      const sessions = await acx(["sessions", "--json"], as(dir))
      skippedBoth(sessions, dir, "sessions")
      const listed = parseJson<Array<{ sessionId: string; firstPrompt?: string }>>(sessions)
      expect(listed.map((s) => s.sessionId).sort()).toEqual([LOCKED, ...READABLE])
      // listed without metadata, and not cached so: read once readable
      dir.unlock()
      const after = parseJson<Array<{ sessionId: string; firstPrompt?: string }>>(
        await acx(["sessions", "--json"], as(dir))
      )
      expect(after.find((s) => s.sessionId === LOCKED)?.firstPrompt).toBe(`prompt of ${LOCKED}`)
      expect(after.map((s) => s.sessionId)).toContain(IN_FOLDER)
    })

    it("show: the readable sessions show; the locked one fails in one line saying why", {
      timeout: TEST_TIMEOUT_MS
    }, async () => {
      const dir = build(setup, "show")
      const shown = await acx(["show", READABLE[0]!], as(dir))
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toContain(`prompt of ${READABLE[0]}`)
      const locked = await acx(["show", LOCKED], as(dir))
      expect(locked.code).toBe(1)
      expect(locked.stderrLines.at(-1)).toBe(`acx: permission denied: ${dir.locked}`)
    })
  }
)
