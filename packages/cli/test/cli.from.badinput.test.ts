/**
 * `--from TARGET` given something it cannot read, through the BUILT `acx` binary: one `acx: …`
 * line, the exit code of its kind, nothing created, no password printed.
 * - a SQLite store that does not exist (as `sqlite:FILE` and as a bare `FILE.db`), for every
 *   command that takes `--from`: exit 1 and the directory stays empty (reading never creates a
 *   store); a directory, and a file that is no SQLite database (left as it was): exit 1;
 * - a Postgres server that does not answer: exit 1, host and port, never the password;
 * - a spec that names no database: exit 2 (a usage error, as for `--to`), the password hidden;
 * - a Postgres URL without the password the server asks for (the run's own role, its password left out): exit 1
 *   at once, for `--from`, `acx sync --to` and `acx import --to` (it used to hang until the
 *   server's authentication timeout, a minute, closed the socket the driver left open);
 * - a session id the store does not hold, an ambiguous prefix, a project it has no session of;
 * - a store written by an acx before the derived tables (the catalog): migrated in place on the
 *   first `--from`, then read like any other.
 *
 * Each kind of bad input goes through the BUILT binary once; the same input given to the other
 * commands runs `run` of `src/Cli.ts` in this process (`acxInProcess`), a process start each
 * saved. The password cases all run the binary: a driver's open socket hung the process.
 */
import * as Fixtures from "@acx/fixtures"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, expectOneLine, listTree, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { closedPort } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const PG_URL = process.env["ACX_PG_URL"]

const root = tempDir("from-bad")
const built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
const env = { ACX_HOME: path.join(root, "home") }
const store = path.join(root, "store.db")
afterAll(() => removeTreeWhenIdle(root), 70_000)

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

const session = built.sessions[0]!
// every command that reads --from, with what it needs besides
const commands: ReadonlyArray<ReadonlyArray<string>> = [
  ["sessions"],
  ["show", session.sessionId],
  ["stats"],
  ["fork", session.sessionId, "--config-dir", built.configDir],
  ["memory", "backfill", "--dry-run"]
]

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

const withPg = async <A>(url: string, f: (client: PgClient) => Promise<A>): Promise<A> => {
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: url })
  // a refused connection is ended too: pg leaves its socket open otherwise
  await client.connect().catch((error: unknown) => client.end().catch(() => {}).then(() => Promise.reject(error)))
  return f(client).finally(() => client.end())
}

describe("acx … --from a store it cannot read", () => {
  beforeAll(async () => {
    ok(await acx(["sync", "--to", store, "--config-dir", built.configDir], { env }))
  }, TEST_TIMEOUT_MS)

  it("a SQLite store that does not exist: exit 1 for every command, nothing created", {
    timeout: TEST_TIMEOUT_MS * 2
  }, async () => {
    const empty = path.join(root, "empty")
    fs.mkdirSync(empty)
    for (const [i, spec] of [`sqlite:${empty}/none.db`, path.join(empty, "none.sqlite")].entries()) {
      for (const [j, command] of commands.entries()) {
        // `acx sessions --from sqlite:…` through the binary
        const result = await (i === 0 && j === 0 ? acx : acxInProcess)([...command, "--from", spec], { env })
        expectOneLine(result, 1, `--from: no store at ${spec.replace(/^sqlite:/, "")}`)
        expect(result.stderr).toContain("nothing was created")
        expect(listTree(empty)).toEqual([])
      }
    }
  })

  it("a directory, and a file that is no database (left as it was): exit 1", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expectOneLine(await acx(["sessions", "--from", `sqlite:${root}`], { env }), 1, `${root} is not a file`)
    const garbage = path.join(root, "garbage.db")
    fs.writeFileSync(garbage, "this is not a SQLite database, just text long enough to look like a header\n")
    const before = fs.readFileSync(garbage)
    const result = await acxInProcess(["sessions", "--from", garbage], { env })
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderrLines).toHaveLength(1)
    expect(result.stderrLines[0]).toMatch(/^acx: .*not a SQLite database/)
    expect(fs.readFileSync(garbage)).toEqual(before)
  })

  it("a Postgres server that does not answer: host, port and reason, never the password", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const port = await closedPort()
    for (const [i, command] of [["sessions"], ["stats"], ["show", session.sessionId]].entries()) {
      const result = await (i === 0 ? acx : acxInProcess)(
        [...command, "--from", `postgres://acx:s3cret-Pw@127.0.0.1:${port}/acx`],
        { env }
      )
      expectOneLine(result, 1, `cannot connect to Postgres at 127.0.0.1:${port}`)
      expect(result.stderr).not.toContain("s3cret-Pw")
    }
  })

  it("a spec that names no database: a usage error (exit 2), the password hidden", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    for (const [i, command] of commands.entries()) {
      const result = await (i === 0 ? acx : acxInProcess)([...command, "--from", "postgress://acx:s3cret-Pw@host/db"], {
        env,
        cwd: root
      })
      expectOneLine(result, 2, "--from: expected sqlite:FILE")
      expect(result.stderr).not.toContain("s3cret-Pw")
    }
    // and no file named after it
    expect(fs.readdirSync(root).filter((name) => name.startsWith("postgres"))).toEqual([])
  })

  it("a session the store does not hold, an ambiguous prefix, a project it has no session of", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const missing = "00000000-0000-4000-8000-000000000000"
    expectOneLine(await acx(["show", missing, "--from", store], { env }), 1, `no session ${missing} in sqlite:${store}`)
    expectOneLine(await acxInProcess(["fork", missing, "--from", store], { env }), 1, `no session ${missing}`)
    expectOneLine(
      await acxInProcess(["sessions", "--project", "-no-such-project", "--from", store], { env }),
      1,
      `no sessions for project -no-such-project in sqlite:${store}`
    )
    // two sessions whose ids share their first 8 characters
    const twins = path.join(root, "twins")
    const twinIds = ["abcd1234-0000-4000-8000-000000000001", "abcd1234-0000-4000-8000-000000000002"]
    fs.mkdirSync(path.join(twins, "projects", "-p"), { recursive: true })
    for (const id of twinIds) {
      const entry = { type: "user", uuid: randomUUID(), sessionId: id, message: { role: "user", content: "hi" } }
      fs.writeFileSync(path.join(twins, "projects", "-p", `${id}.jsonl`), `${JSON.stringify(entry)}\n`)
    }
    const twinStore = path.join(root, "twins.db")
    ok(await acx(["sync", "--to", twinStore, "--config-dir", twins], { env }))
    expectOneLine(
      await acxInProcess(["show", "abcd1234", "--from", twinStore], { env }),
      1,
      "abcd1234 matches 2 sessions"
    )
    // the whole id finds it
    expect(ok(await acxInProcess(["show", twinIds[1]!, "--from", twinStore], { env })).stdout).toContain("hi")
  })

  it("a store an older acx wrote (no catalog tables): migrated in place, then read like the dir", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    // the synced store, copied (nothing holds it open now)
    const old = path.join(root, "old.db")
    for (const name of fs.readdirSync(root).filter((name) => name.startsWith("store.db"))) {
      fs.copyFileSync(path.join(root, name), path.join(root, name.replace("store.db", "old.db")))
    }
    // as written before migration 3 (the derived tables and the keys' watermark; the origins after them)
    const db = new Database(old)
    try {
      for (
        const table of [
          "acx_session_meta",
          "acx_session_usage",
          "acx_session_text",
          "acx_session_text_fts",
          "acx_session_origin"
        ]
      ) {
        db.exec(`DROP TABLE ${table}`)
      }
      db.exec("DROP INDEX acx_session_keys_behind")
      for (const column of ["derived_mtime", "derived_id"]) {
        db.exec(`ALTER TABLE acx_session_keys DROP COLUMN ${column}`)
      }
      db.exec("DELETE FROM acx_session_store_migrations WHERE migration_id >= 3")
    } finally {
      db.close()
    }
    // the origins came after migration 3: an older store's sessions have none (no project, no
    // machine), the rest of each row is the directory's
    const strip = (rows: Array<Record<string, unknown>>) =>
      rows.map(({ file: _f, machine: _mc, mtime: _m, project: _p, size: _s, ...rest }) => rest)
    const fromDir = parseJson(ok(await acxInProcess(["sessions", "--json", "--config-dir", built.configDir], { env })))
    const fromOld = parseJson(ok(await acx(["sessions", "--json", "--from", old], { env })))
    expect(strip(fromOld)).toEqual(strip(fromDir))
    expect(fromOld.every((row: Record<string, unknown>) => row["machine"] === undefined)).toBe(true)
    const check = new Database(old, { readonly: true })
    try {
      const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<
        { name: string }
      >
      expect(tables.map((table) => table.name)).toContain("acx_session_meta")
    } finally {
      check.close()
    }
  })

  describe.skipIf(PG_URL === undefined)("a Postgres URL without the password the server asks for", () => {
    // the test run's own role, its password left out: no role is created (CI's role may not
    // create roles), and a server that trusts local connections asks for none (then skipped)
    const role = new URL(PG_URL ?? "postgres://x@127.0.0.1/x").username
    let asks = true
    beforeAll(async () => {
      const url = new URL(PG_URL!)
      url.password = ""
      asks = await withPg(url.href, async () => false).catch(() => true)
    })

    it("exit 1 at once for --from, sync --to and import --to, saying what is missing", {
      timeout: TEST_TIMEOUT_MS * 2
    }, async ({ skip }) => {
      if (!asks) return skip("the server does not ask this role for a password")
      const url = new URL(PG_URL!)
      url.username = role
      url.password = ""
      url.searchParams.set("schema", "acx_nopw")
      const server = `${url.hostname}:${url.port}`
      // a hang is killed before the server's own authentication timeout (a minute) ends it; the
      // bound leaves a loaded machine time to start acx (20 s was within reach of CI's load)
      const quick = { env: { ...env, PGPASSWORD: undefined }, timeoutMs: 45_000 }
      for (
        const args of [
          ["sessions", "--from", url.href],
          ["stats", "--from", url.href],
          ["sync", "--to", url.href, "--config-dir", built.configDir],
          ["import", "--from", built.configDir, "--to", url.href]
        ]
      ) {
        const result = await acx(args, quick)
        expect(result.signal, `${args[0]} hung`).toBeNull()
        expectOneLine(
          result,
          1,
          `cannot connect to Postgres at ${server}: the server asks for a password and none was given`
        )
      }
    })
  })
})
