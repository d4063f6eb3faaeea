/**
 * Import targets the user cannot write to, through `acx`'s command line (in process: nothing here
 * is about the process): one `acx: …` line that says what is wrong, exit 1, and nothing lost.
 * - a Postgres URL to a closed port: the line names host, port and the reason, never the password
 *   (as typed or percent-encoded);
 * - a read-only SQLite file, and a SQLite file in a read-only directory (where SQLite cannot
 *   create its -wal/-shm files): "database is read-only: FILE". The tests run as root in CI,
 *   where chmod stops nothing: `ReadOnlyPath` then sets the immutable attribute (`chattr +i`);
 *   on a filesystem without it these two are skipped, with the reason in their titles (the
 *   adapter's own test checks the mapping on SQLite's real SQLITE_READONLY in any case).
 *
 * And `--to` takes the one `DatabaseSpec` grammar: a bare `FILE.db` / `FILE.sqlite` path is a
 * SQLite file relative to the working directory; anything that names no database is one line
 * (exit 2) echoing the spec with its credentials hidden (a typo in the scheme no longer prints
 * the password it carries); on Postgres `?schema=` picks the schema and a `password=` parameter
 * is hidden in the target acx reports.
 */
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { makeReadOnly, probeReadOnly } from "@acx/testing/ReadOnlyPath"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AcxResult, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { closedPort, dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]

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

describe("acx import into targets it cannot write, and the --to grammar", () => {
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
    const result = await acxInProcess(["import", "--from", configDir, "--to", `sqlite:${file}`])
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

  it.each([
    ["a password", (port: number) => `postgres://acx:hunter2-secret@127.0.0.1:${port}/acx`, /hunter2-secret/],
    [
      "a percent-encoded password and a schema",
      (port: number) => `postgres://u:p%40ssZ%2F@127.0.0.1:${port}/acx?schema=x`,
      /p%40ssZ|p@ssZ/
    ]
  ])("a Postgres URL with %s to a closed port names host, port and the reason, not the password", {
    timeout: TEST_TIMEOUT_MS
  }, async (_, url, password) => {
    const port = await closedPort()
    const result = await acxInProcess(["import", "--from", configDir, "--to", url(port)])
    expectOneError(result, `cannot connect to Postgres at 127.0.0.1:${port}: connection refused`)
    expect(result.stdout + result.stderr).not.toMatch(password)
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
      const result = await acxInProcess(["import", "--from", configDir, "--to", `sqlite:${file}`])
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
      const result = await acxInProcess(["import", "--from", configDir, "--to", `sqlite:${file}`])
      expectOneError(result, `database is read-only: ${file}`)
      // A new file there cannot be created either, and the line says why.
      const fresh = await acxInProcess([
        "import",
        "--from",
        configDir,
        "--to",
        `sqlite:${path.join(dir, "new.sqlite")}`
      ])
      expectOneError(
        fresh,
        `cannot create database ${path.join(dir, "new.sqlite")}: the directory ${dir} is not writable`
      )
    } finally {
      readOnly.restore()
    }
    expect(await stored(file)).toEqual([ENTRY])
  })

  it(
    "a bare foo.db (and store.sqlite) is a SQLite file in the working directory",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const cwd = path.join(root, "work")
      fs.mkdirSync(cwd, { recursive: true })
      for (const name of ["foo.db", "store.sqlite"]) {
        const result = await acxInProcess(["import", "--from", configDir, "--to", name, "--json"], { cwd })
        expect(result.code, result.stderr).toBe(0)
        const file = path.join(cwd, name)
        expect(parseJson<{ target: string }>(result).target).toBe(`sqlite:${file}`)
        const store = createSqliteSessionStore({ filename: file })
        try {
          expect(await store.load({ projectKey: PROJECT, sessionId: SESSION })).toEqual([ENTRY])
        } finally {
          await store.close()
        }
      }
    }
  )

  it.each([
    ["postgress://acx:Hunter2Z/x@127.0.0.1/acx", `"postgress://acx:***@127.0.0.1/acx"`],
    ["mysql://db/app?password=Hunter2Z&user=x", `"mysql://db/app?password=***"`],
    ["sessions", `"sessions"`]
  ])(
    "--to %s names no database: one line, exit 2, the credentials hidden",
    { timeout: TEST_TIMEOUT_MS },
    async (to, echoed) => {
      const result = await acxInProcess(["import", "--from", configDir, "--to", to])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderrLines).toEqual([
        `acx: --to: expected sqlite:FILE, a FILE.db / FILE.sqlite path, or postgres://URL[?schema=NAME], got ${echoed}`
      ])
      expect(result.stderr).not.toContain("Hunter2Z")
    }
  )

  it.skipIf(PG_URL === undefined)(
    "postgres://…?password=…&schema=S: imports into S, the password parameter hidden in the target",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const schema = `acx_cli_spec_${randomBytes(4).toString("hex")}`
      const url = new URL(PG_URL!)
      const password = decodeURIComponent(url.password)
      url.password = ""
      url.searchParams.set("password", password)
      url.searchParams.set("schema", schema)
      try {
        const result = await acxInProcess(["import", "--from", configDir, "--to", url.href, "--json"])
        expect(result.code, result.stderr).toBe(0)
        const target = parseJson<{ target: string }>(result).target
        expect(target).toContain("password=***")
        expect(target).not.toMatch(/password=(?!\*\*\*)/)
        expect(target).toContain(`(schema ${schema})`)
        const store = createPostgresSessionStore({ url: PG_URL!, schema })
        try {
          expect(await store.load({ projectKey: PROJECT, sessionId: SESSION })).toEqual([ENTRY])
        } finally {
          await store.close()
        }
      } finally {
        await dropSchema(PG_URL!, schema)
      }
    }
  )
})
