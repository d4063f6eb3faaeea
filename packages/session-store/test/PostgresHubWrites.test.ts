/**
 * What a hub's sync member may write, on an embedded Postgres of this file's own (roles are
 * cluster-wide), each attack run by a real member role connecting as itself:
 * - the clock changes only through `acx_clock_tick()` (forward, by what a write needs): a member's
 *   `UPDATE acx_clock SET last = 9223372036854775806` (which made every other machine's sync fail
 *   with `out of range for type bigint`), an INSERT, a DELETE and a `setval` of a sequence are
 *   refused; a viewer may not even tick it; `init` takes back the UPDATE an older acx granted;
 * - a member writes only into sessions it owns: member B's INSERT into member A's session is
 *   refused on every table a member may write (entries, keys, summaries, meta, usage, search text,
 *   origins), also as the group role itself (`SET ROLE acx_sync`), as is an UPDATE of its own row
 *   moved into A's session, and its store's append fails
 *   with reason `NotOwner` naming A and the command that hands A's sessions over, storing nothing;
 * - two members storing the first rows of one session at once: the owner table's primary key
 *   decides, the second waits for the first's commit and is then refused;
 * - the store's own writes (append, subagent, delete, derive, origins) keep working for a member.
 */
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@acx/fixtures/postgres"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import * as Pg from "@acx/session-store/PostgresSessionStore"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import pg from "pg"

let server: EmbeddedPostgres
let alpha: string
let beta: string
let viewer: string
let roles: PostgresHub.GroupRoles

const hub = <A, E>(f: (hub: PostgresHub.PostgresHub) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PostgresHub.make({ url: Redacted.make(server.url) }), f)))

/** The rows of `text` as the role `url` names, on a connection of its own. */
const query = async (url: string, text: string, params: ReadonlyArray<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, [...params])).rows as Array<Record<string, unknown>>
  } finally {
    await client.end()
  }
}

/** The SQLSTATE and message a statement fails with as `url`'s role (`undefined`: it succeeded). */
const refusal = (url: string, text: string, params: ReadonlyArray<unknown> = []) =>
  query(url, text, params).then(
    () => undefined,
    (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`
  )

const entry = (text: string) => ({
  type: "user",
  uuid: randomUUID(),
  sessionId: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { role: "user", content: text }
})

const asStore = (url: string) => Pg.make({ url: Redacted.make(url), maxConnections: 2 })

/** A session stored by `url`'s member through its store, with a subagent; its key. */
const storeSession = (url: string, text: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const store = yield* asStore(url)
    const key = { projectKey: "-home-dev-app", sessionId: randomUUID() }
    yield* store.append(key, [entry(text)])
    yield* store.append({ ...key, subpath: "subagents/agent-a1" }, [entry(`${text} (subagent)`)])
    yield* SessionOrigins.originsOf(store)!.recordOrigins([{
      ...key,
      machine: "m",
      user: "u",
      project: "github.com/org/app"
    }])
    yield* StoreCatalog.catalogOf(store)!.refresh()
    return key
  })))

beforeAll(async () => {
  server = await startEmbeddedPostgres()
  await hub((h) => h.init())
  roles = await hub((h) => Effect.succeed(h.roles))
  const add = (name: string, role: PostgresHub.MemberRole) =>
    hub((h) => h.addUser(name, role)).then(({ url }) => Redacted.value(url))
  alpha = await add("alpha", "sync")
  beta = await add("beta", "sync")
  viewer = await add("vera", "viewer")
}, 120_000)
afterAll(() => server?.stop(), 60_000)

describe("a hub's shared clock", () => {
  it("a sync member may not set the clock, insert or delete its row, or set a sequence", async () => {
    await storeSession(alpha, "first")
    for (
      const statement of [
        "UPDATE acx_clock SET last = 9223372036854775806",
        "INSERT INTO acx_clock (id, last) VALUES (TRUE, 1) ON CONFLICT (id) DO UPDATE SET last = 1",
        "DELETE FROM acx_clock",
        "TRUNCATE acx_clock",
        "SELECT setval('claude_session_entries_id_seq', 9223372036854775806)",
        "INSERT INTO acx_session_owner (project_key, session_id, db_user) VALUES ('p', 's', 'beta')"
      ]
    ) {
      expect(await refusal(beta, statement), statement).toMatch(/^42501/)
    }
    // every other machine still writes
    await storeSession(alpha, "after the attack")
  }, 60_000)

  it("the clock moves only forward, by what a write needs, through acx_clock_tick()", async () => {
    const [before] = await query(server.url, "SELECT last FROM acx_clock")
    const [ticked] = await query(beta, "SELECT acx_clock_tick() AS last")
    const now = Date.now()
    expect(Number(ticked!["last"])).toBeGreaterThan(Number(before!["last"]))
    // now (the server's clock, this machine's) or one past the last value: never ahead of both
    expect(Number(ticked!["last"])).toBeLessThanOrEqual(Math.max(now + 1, Number(before!["last"]) + 1))
    // the function takes no value, and no other signature exists
    expect(await refusal(beta, "SELECT acx_clock_tick(9223372036854775806)")).toMatch(/^42883/)
  }, 60_000)

  it("a viewer may run none of the write functions", async () => {
    for (
      const statement of ["SELECT acx_clock_tick()", "SELECT acx_clock_lock()", "SELECT acx_claim_session('p', 's')"]
    ) {
      expect(await refusal(viewer, statement), statement).toMatch(/^42501/)
    }
  }, 60_000)

  it("the write functions run as the admin group with a pinned search path", async () => {
    const rows = await query(
      server.url,
      `SELECT p.proname, pg_get_userbyid(p.proowner) AS owner, p.prosecdef, p.proconfig
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proname IN ('acx_clock_tick', 'acx_clock_lock', 'acx_claim_session')
        ORDER BY 1`
    )
    expect(rows).toEqual(["acx_claim_session", "acx_clock_lock", "acx_clock_tick"].map((proname) => ({
      proname,
      owner: roles.admin,
      prosecdef: true,
      proconfig: ["search_path=pg_catalog, pg_temp"]
    })))
  }, 60_000)

  it(
    "a hub set up by an older acx: init gives each stored session its keys' writer as owner, and members write on",
    async () => {
      const key = await storeSession(alpha, "before the upgrade")
      // the store as an older acx left it: no owners, no write functions, migration 8 not run
      await query(
        server.url,
        `DROP TABLE acx_session_owner CASCADE;
       DROP FUNCTION acx_clock_tick(), acx_clock_lock(), acx_claim_session(text, text);
       DELETE FROM acx_session_store_migrations WHERE migration_id >= 8;
       GRANT UPDATE ON acx_clock TO ${roles.sync}`
      )
      expect((await hub((h) => h.init())).changed).toBe(true)
      expect(
        await query(server.url, "SELECT db_user FROM acx_session_owner WHERE session_id = $1", [key.sessionId])
      ).toEqual([{ db_user: "alpha" }])
      await Effect.runPromise(
        Effect.scoped(Effect.flatMap(asStore(alpha), (store) => store.append(key, [entry("after")])))
      )
      expect(await refusal(beta, "UPDATE acx_clock SET last = last")).toMatch(/^42501/)
    },
    60_000
  )

  it("init takes back the UPDATE on the clock a hub set up by an older acx granted", async () => {
    await query(server.url, `GRANT INSERT, UPDATE, DELETE ON acx_clock TO ${roles.sync}`)
    expect(await refusal(beta, "UPDATE acx_clock SET last = last")).toBeUndefined()
    const { changed } = await hub((h) => h.init())
    expect(changed).toBe(true)
    expect(await refusal(beta, "UPDATE acx_clock SET last = last")).toMatch(/^42501/)
    expect((await hub((h) => h.init())).changed).toBe(false)
  }, 60_000)
})

describe("the import ledger: each writer's records are its own", () => {
  it(
    "migration 9 keys the ledger by writer on a store migration 8 left, records from before going to the tables' owner",
    async () => {
      const source = `/planted/${randomUUID()}`
      // the ledger as migration 8 left it, with a record from before owners were kept
      await query(
        server.url,
        `ALTER TABLE acx_import_ledger DROP CONSTRAINT acx_import_ledger_pkey;
       ALTER TABLE acx_import_ledger ALTER COLUMN db_user DROP NOT NULL;
       ALTER TABLE acx_import_ledger ADD PRIMARY KEY (source, file);
       INSERT INTO acx_import_ledger (source, file, size, mtime_ms, "offset", fingerprint, db_user)
         VALUES ('${source}', 'a.jsonl', 1, 1, 1, 'old', NULL), ('${source}', 'b.jsonl', 1, 1, 1, 'alpha', 'alpha');
       DELETE FROM acx_session_store_migrations WHERE migration_id = 9`
      )
      expect((await hub((h) => h.init())).changed).toBe(true)
      const key = await query(
        server.url,
        `SELECT array_agg(a.attname::text ORDER BY k.ord) AS columns FROM pg_index i
        CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = 'acx_import_ledger'::regclass AND i.indisprimary`
      )
      expect(key).toEqual([{ columns: ["db_user", "source", "file"] }])
      const rows = await query(
        server.url,
        `SELECT l.file, l.db_user = t.tableowner AS by_owner, l.db_user FROM acx_import_ledger l, pg_tables t
        WHERE t.schemaname = 'public' AND t.tablename = 'acx_import_ledger' AND l.source = $1 ORDER BY 1`,
        [source]
      )
      expect(rows.map((row) => [row["file"], row["by_owner"] || row["db_user"]])).toEqual([
        ["a.jsonl", true],
        ["b.jsonl", "alpha"]
      ])
      // beta's record of alpha's file is beta's own; alpha's stays as it was
      await query(
        beta,
        `INSERT INTO acx_import_ledger (source, file, size, mtime_ms, "offset", fingerprint) VALUES ($1, 'b.jsonl', 2, 2, 2, 'beta')`,
        [source]
      )
      expect(await query(alpha, `SELECT fingerprint FROM acx_import_ledger WHERE source = $1`, [source])).toEqual([{
        fingerprint: "alpha"
      }])
    },
    60_000
  )
})

describe("a session belongs to the member that started it", () => {
  // one INSERT per table a member may write, each naming alpha's session
  const intoSession = (projectKey: string, sessionId: string): ReadonlyArray<readonly [string, string]> =>
    [
      [
        "claude_session_entries",
        `INSERT INTO claude_session_entries (project_key, session_id, subpath, uuid, entry)
        VALUES ($1, $2, '', 'injected', '{"type":"user","message":{"role":"user","content":"from beta"}}')`
      ],
      [
        "claude_session_entries",
        `INSERT INTO claude_session_entries (project_key, session_id, subpath, entry)
        VALUES ($1, $2, 'subagents/agent-x', '{"type":"user"}')`
      ],
      [
        "acx_session_keys",
        "INSERT INTO acx_session_keys (project_key, session_id, subpath, mtime) VALUES ($1, $2, 'subagents/agent-y', 1)"
      ],
      [
        "acx_session_summaries",
        "INSERT INTO acx_session_summaries (project_key, session_id, mtime, data) VALUES ($1, $2, 1, '{}')"
      ],
      [
        "acx_session_meta",
        `INSERT INTO acx_session_meta (project_key, session_id, state, entries, user_messages, assistant_messages,
        tool_calls, subagents, mtime) VALUES ($1, $2, 'idle', 1, 1, 0, 0, 0, 1)`
      ],
      [
        "acx_session_usage",
        "INSERT INTO acx_session_usage (project_key, session_id, subpath, message_key) VALUES ($1, $2, '', 'k')"
      ],
      [
        "acx_session_text",
        `INSERT INTO acx_session_text (project_key, session_id, subpath, role, body, words)
        VALUES ($1, $2, '', 'user', 'from beta', to_tsvector('simple', 'from beta'))`
      ],
      [
        "acx_session_origin",
        `INSERT INTO acx_session_origin (project_key, session_id, machine, os_user, project, recorded_ms)
        VALUES ($1, $2, 'beta', 'b', 'github.com/org/app', 1)`
      ]
    ].map(([table, text]) => [table!, text!.replaceAll("$1", `'${projectKey}'`).replaceAll("$2", `'${sessionId}'`)])

  it("member B's INSERT into member A's session is refused on every table B may write", async () => {
    const key = await storeSession(alpha, "alpha's own words")
    // B claims nothing by asking: the session is alpha's
    expect((await query(beta, "SELECT acx_claim_session($1, $2) AS owner", [key.projectKey, key.sessionId]))[0])
      .toEqual({ owner: "alpha" })
    for (const [table, statement] of intoSession(key.projectKey, key.sessionId)) {
      expect(await refusal(beta, statement), statement).toMatch(
        new RegExp(`^42501: new row violates row-level security policy for table "${table}"`)
      )
    }
    // as the group itself (a member may SET ROLE to it): no owner is ever the group
    for (const [table, statement] of intoSession(key.projectKey, key.sessionId)) {
      expect(await refusal(beta, `SET ROLE ${roles.sync}; ${statement}`), statement).toMatch(
        new RegExp(`^42501: new row violates row-level security policy for table "${table}"`)
      )
    }
    // what a viewer reads of alpha's session holds nothing of beta's
    const rows = await query(
      viewer,
      "SELECT count(*)::int AS n FROM claude_session_entries WHERE session_id = $1 AND db_user <> 'alpha'",
      [key.sessionId]
    )
    expect(rows[0]).toEqual({ n: 0 })
  }, 60_000)

  it("member B may not move a row of its own into member A's session", async () => {
    const mine = await storeSession(beta, "beta's own")
    const theirs = await storeSession(alpha, "alpha's")
    // the tables with an UPDATE a member holds and rows of this session (no usage without assistant messages)
    for (const table of ["acx_session_keys", "acx_session_summaries", "acx_session_meta"]) {
      expect(
        await refusal(
          beta,
          `UPDATE ${table} SET session_id = $1 WHERE session_id = $2`,
          [theirs.sessionId, mine.sessionId]
        ),
        table
      ).toMatch(/^42501: new row violates row-level security policy/)
    }
  }, 60_000)

  it(
    "member B's store refuses to append to member A's session with NotOwner, naming the hand-over, and stores nothing",
    async () => {
      const key = await storeSession(alpha, "alpha's session")
      const error = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const store = yield* asStore(beta)
        return yield* Effect.flip(store.append(key, [entry("beta's text")]))
      })))
      expect(error.reason).toBe("NotOwner")
      expect(error.description).toContain("belongs to the hub member alpha, not to beta")
      expect(error.description).toContain("acx hub user rotate alpha beta")
      const [row] = await query(
        server.url,
        "SELECT count(*)::int AS n FROM claude_session_entries WHERE session_id = $1 AND db_user = 'beta'",
        [key.sessionId]
      )
      expect(row).toEqual({ n: 0 })
    },
    60_000
  )

  it(
    "two members storing a session's first rows at once: the first to claim it owns it, the other is refused",
    async () => {
      const projectKey = "-home-dev-race"
      const sessionId = randomUUID()
      const first = new pg.Client({ connectionString: alpha })
      const second = new pg.Client({ connectionString: beta })
      await first.connect()
      await second.connect()
      try {
        await first.query("BEGIN")
        expect((await first.query("SELECT acx_claim_session($1, $2) AS owner", [projectKey, sessionId])).rows)
          .toEqual([{ owner: "alpha" }])
        const [{ pid }] = (await second.query("SELECT pg_backend_pid() AS pid")).rows as Array<{ pid: number }>
        // beta's claim waits on alpha's uncommitted one (the primary key)
        const claimed = second.query("SELECT acx_claim_session($1, $2) AS owner", [projectKey, sessionId])
        await expect.poll(
          async () =>
            (await query(server.url, "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]))[0]?.[
              "wait_event_type"
            ],
          { timeout: 30_000 }
        ).toBe("Lock")
        await first.query(
          `INSERT INTO claude_session_entries (project_key, session_id, entry) VALUES ($1, $2, '{"type":"user"}')`,
          [projectKey, sessionId]
        )
        await first.query("COMMIT")
        expect((await claimed).rows).toEqual([{ owner: "alpha" }])
        await expect(
          second.query(
            `INSERT INTO claude_session_entries (project_key, session_id, entry) VALUES ($1, $2, '{"type":"user"}')`,
            [projectKey, sessionId]
          )
        ).rejects.toThrow(/row-level security policy/)
      } finally {
        await first.end()
        await second.end()
      }
    },
    60_000
  )

  it("member B may not choose a row's id: the number it took ahead of the sequence would stop A's writes", async () => {
    const mine = await storeSession(beta, "beta's own")
    const ahead = (sequence: string) => `(SELECT last_value + 1 FROM ${sequence})`
    const [p, s] = [`'${mine.projectKey}'`, `'${mine.sessionId}'`]
    for (
      const statement of [
        `INSERT INTO claude_session_entries (id, project_key, session_id, subpath, entry)
          VALUES (${ahead("claude_session_entries_id_seq")}, ${p}, ${s}, '', '{"type":"user"}')`,
        `INSERT INTO acx_session_usage (id, project_key, session_id, subpath, message_key)
          VALUES (${ahead("acx_session_usage_id_seq")}, ${p}, ${s}, '', 'planted')`,
        `INSERT INTO acx_session_text (id, project_key, session_id, subpath, role, body, words)
          VALUES (${ahead("acx_session_text_id_seq")}, ${p}, ${s}, '', 'user', 'b', to_tsvector('simple', 'b'))`,
        `UPDATE acx_session_usage SET id = id + 1 WHERE session_id = ${s}`
      ]
    ) {
      expect(await refusal(beta, statement), statement).toMatch(/^42501: permission denied/)
    }
    // every other machine still writes, derives and indexes
    await storeSession(alpha, "after the attack")
    // and B's own rows still take their numbers from the sequence
    await storeSession(beta, "beta writes on")
  }, 60_000)

  it("a member's store writes, derives, records origins and reads its own sessions as before", async () => {
    const key = await storeSession(beta, "beta writes")
    const sessions = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = yield* asStore(beta)
      yield* store.append(key, [entry("more")])
      return yield* StoreCatalog.catalogOf(store)!.listSessions()
    })))
    const mine = sessions.find((session) => session.sessionId === key.sessionId)
    expect(mine?.entries).toBe(3)
  }, 60_000)
})
