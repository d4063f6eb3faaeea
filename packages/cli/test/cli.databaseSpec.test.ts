/**
 * `acx import --to` takes the one `DatabaseSpec` grammar, through the BUILT `acx` binary:
 * - a bare `FILE.db` / `FILE.sqlite` path is a SQLite file, relative to the working directory;
 * - anything else is one line (exit 2) that echoes the spec with its credentials hidden: a typo
 *   in the scheme no longer prints the password it carries;
 * - a percent-encoded password never shows, also when the database cannot be reached;
 * - on Postgres, `?schema=` picks the schema, and a `password=` parameter is hidden in the target
 *   acx reports.
 */
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { closedPort, dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]
const PROJECT = "-home-dev-specs"
const SESSION = "66666666-6666-4666-8666-666666666666"
const ENTRY = {
  type: "user",
  uuid: "00000000-0000-4000-8000-000000000002",
  parentUuid: null,
  sessionId: SESSION,
  timestamp: "2026-01-01T00:00:00Z",
  message: { role: "user", content: "hello specs" }
}

const root = tempDir("specs")
const configDir = path.join(root, "claude")

describe("acx import --to: one grammar for database specs", () => {
  beforeAll(() => {
    const projectDir = path.join(configDir, "projects", PROJECT)
    fs.mkdirSync(projectDir, { recursive: true })
    fs.writeFileSync(path.join(projectDir, `${SESSION}.jsonl`), `${JSON.stringify(ENTRY)}\n`)
  })
  afterAll(() => removeDir(root))

  it(
    "a bare foo.db (and store.sqlite) is a SQLite file in the working directory",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const cwd = path.join(root, "work")
      fs.mkdirSync(cwd, { recursive: true })
      for (const name of ["foo.db", "store.sqlite"]) {
        const result = await acx(["import", "--from", configDir, "--to", name, "--json"], { cwd })
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
      const result = await acx(["import", "--from", configDir, "--to", to])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderrLines).toEqual([
        `acx: --to: expected sqlite:FILE, a FILE.db / FILE.sqlite path, or postgres://URL[?schema=NAME], got ${echoed}`
      ])
      expect(result.stderr).not.toContain("Hunter2Z")
    }
  )

  it(
    "an encoded password at a closed port: one line, the password in no spelling",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const port = await closedPort()
      const result = await acx([
        "import",
        "--from",
        configDir,
        "--to",
        `postgres://u:p%40ssZ%2F@127.0.0.1:${port}/acx?schema=x`
      ])
      expect(result.code).toBe(1)
      expect(result.stderrLines).toEqual([
        `acx: cannot connect to Postgres at 127.0.0.1:${port}: connection refused (is the server running and listening there?)`
      ])
      expect(result.stdout + result.stderr).not.toMatch(/p%40ssZ|p@ssZ/)
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
        const result = await acx(["import", "--from", configDir, "--to", url.href, "--json"])
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
