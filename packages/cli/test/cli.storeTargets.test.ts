/**
 * Import targets the user cannot write to, through the BUILT `acx` binary: one `acx: …` line
 * that says what is wrong, exit 1, and nothing lost.
 * - a Postgres URL to a closed port: the line names host, port and the reason, never the password;
 * - a read-only SQLite file, and a SQLite file in a read-only directory (where SQLite cannot
 *   create its -wal/-shm files): "database is read-only: FILE". The tests run as root in CI,
 *   where chmod stops nothing: `ReadOnlyPath` then sets the immutable attribute (`chattr +i`);
 *   on a filesystem without it these two are skipped, with the reason in their titles (the
 *   adapter's own test checks the mapping on SQLite's real SQLITE_READONLY in any case).
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { makeReadOnly, probeReadOnly } from "@acx/testing/ReadOnlyPath"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { closedPort } from "./utils/postgres.js"

const PROJECT = "-home-dev-targets"
const SESSION = "55555555-5555-4555-8555-555555555555"
const ENTRY = {
  type: "user",
  uuid: "00000000-0000-4000-8000-000000000001",
  parentUuid: null,
  sessionId: SESSION,
  timestamp: "2026-01-01T00:00:00Z",
  message: { role: "user", content: "hello targets" }
}

const expectOneError = (result: AcxResult, text: string) => {
  expect(result.code, result.stderr).toBe(1)
  expect(result.stderrLines).toHaveLength(1)
  expect(result.stderrLines[0]).toMatch(/^acx: /)
  expect(result.stderrLines[0]).toContain(text)
}

// Whether this machine can make a path read-only for this process (as root: chattr +i).
const root = tempDir("targets")
const probe = probeReadOnly(root)

describe("acx import into targets it cannot write", () => {
  let configDir = ""

  beforeAll(() => {
    configDir = path.join(root, "claude")
    const projectDir = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(projectDir, { recursive: true })
    fs.writeFileSync(path.join(projectDir, `${SESSION}.jsonl`), `${JSON.stringify(ENTRY)}\n`)
  })

  afterAll(() => removeDir(root))

  /** A SQLite file holding the session, imported by acx itself. */
  const imported = async (file: string) => {
    const result = await acx(["import", "--from", configDir, "--to", `sqlite:${file}`])
    expect(result.code, result.stderr).toBe(0)
  }

  const stored = async (file: string) => {
    const store = createSqliteSessionStore({ filename: file })
    try {
      return await store.load({ projectKey: PROJECT, sessionId: SESSION })
    } finally {
      await store.close()
    }
  }

  it("a Postgres URL to a closed port names host, port and the reason, not the password", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const port = await closedPort()
    const result = await acx([
      "import",
      "--from",
      configDir,
      "--to",
      `postgres://acx:hunter2-secret@127.0.0.1:${port}/acx`
    ])
    expectOneError(result, `cannot connect to Postgres at 127.0.0.1:${port}: connection refused`)
    expect(result.stderr).not.toContain("hunter2-secret")
    expect(result.stderr).not.toContain("Failed to connect")
  })

  it.skipIf(!probe.ok)(`a read-only SQLite file: "database is read-only: FILE" (${probe.why})`, {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const file = path.join(root, "readonly.sqlite")
    await imported(file)
    const readOnly = makeReadOnly(file)
    try {
      expect(readOnly.ok).toBe(true)
      const result = await acx(["import", "--from", configDir, "--to", `sqlite:${file}`])
      expectOneError(result, `database is read-only: ${file}`)
      expect(result.stderr).not.toContain("Failed to execute statement")
    } finally {
      readOnly.restore()
    }
    expect(await stored(file)).toEqual([ENTRY])
  })

  it.skipIf(!probe.ok)(`a SQLite file in a read-only directory: "database is read-only: FILE" (${probe.why})`, {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const dir = path.join(root, "readonly-dir")
    fs.mkdirSync(dir)
    const file = path.join(dir, "store.sqlite")
    await imported(file)
    const readOnly = makeReadOnly(dir)
    try {
      expect(readOnly.ok).toBe(true)
      const result = await acx(["import", "--from", configDir, "--to", `sqlite:${file}`])
      expectOneError(result, `database is read-only: ${file}`)
      // A new file there cannot be created either, and the line says why.
      const fresh = await acx(["import", "--from", configDir, "--to", `sqlite:${path.join(dir, "new.sqlite")}`])
      expectOneError(
        fresh,
        `cannot create database ${path.join(dir, "new.sqlite")}: the directory ${dir} is not writable`
      )
    } finally {
      readOnly.restore()
    }
    expect(await stored(file)).toEqual([ENTRY])
  })
})
