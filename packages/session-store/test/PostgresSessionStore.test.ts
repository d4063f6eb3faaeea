/**
 * `PostgresSessionStore` against a real PostgreSQL (`ACX_PG_URL`). Every test file run gets its
 * own Postgres schema (dropped afterwards) and every test its own projectKey, so tests run
 * concurrently with each other and with other files.
 */
import * as Fixtures from "@acx/fixtures"
import { bundleWorker } from "@acx/fixtures/workerBundle"
import * as Pg from "@acx/session-store/PostgresSessionStore"
import {
  type SdkSessionStore,
  type SessionKey,
  SessionStore,
  type SessionStoreEntry,
  SessionStoreError
} from "@acx/session-store/SessionStore"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import {
  foldSessionSummary,
  getSessionMessages,
  importSessionToStore,
  InMemorySessionStore
} from "@anthropic-ai/claude-agent-sdk"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const PG_URL = process.env.ACX_PG_URL
const SCHEMA = `acx_pg_test_${process.pid}_${randomUUID().slice(0, 8)}`
const options = { url: Redacted.make(PG_URL ?? ""), schema: SCHEMA }
const newProject = () => `project-${randomUUID()}`

const dropSchema = async () => {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`)
  } finally {
    await client.end()
  }
}

const oddEntry: SessionStoreEntry = {
  type: "user",
  uuid: "odd-1",
  unicode: "🎉",
  cjk: "中文日本語한국어",
  mixed: "tab\t quote\" backslash\\ newline\n é",
  nested: [[1, [2, [3, []]]], { a: [{ b: null }] }, [], {}],
  big: 12345678901234567890,
  huge: 1e300,
  tiny: 5e-324,
  negative: -0.30000000000000004,
  int: 9007199254740991,
  bool: [true, false, null],
  zKey: 1,
  aKey: { yy: 2, bb: 3, "": 4 }
}

/** Runs `f` with a fresh Promise-API store, closing it afterwards. */
const withStore = async <A>(f: (store: SdkSessionStore) => Promise<A>): Promise<A> => {
  const store = Pg.createPostgresSessionStore({ url: PG_URL!, schema: SCHEMA })
  try {
    return await f(store)
  } finally {
    await store.close()
  }
}

const failureOf = <A>(effect: Effect.Effect<A, SessionStoreError>) => Effect.flip(effect)

describe.skipIf(!PG_URL)(
  PG_URL ? "PostgresSessionStore" : "PostgresSessionStore (skipped: ACX_PG_URL not set)",
  () => {
    afterAll(dropSchema, 30_000)

    it.layer(Pg.layer(options), { timeout: "30 seconds" })("Effect API", (it) => {
      it.effect("round-trips entries in call order across appends", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const key = { projectKey: newProject(), sessionId: "s1" }
          const first = [{ type: "user", uuid: "u1", n: 1 }, { type: "assistant", uuid: "u2", n: 2 }]
          const second = [{ type: "custom-title", customTitle: "T" }, { type: "user", uuid: "u3", n: 3 }]
          yield* store.append(key, first)
          yield* store.append(key, second)
          expect(yield* store.load(key)).toEqual([...first, ...second])
        }))

      it.effect("empty append is a no-op; unknown keys load null", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const key = { projectKey: newProject(), sessionId: "s1" }
          yield* store.append(key, [])
          expect(yield* store.load(key)).toBeNull()
          expect(yield* store.listSessions(key.projectKey)).toEqual([])
          expect(yield* store.listSessionSummaries(key.projectKey)).toEqual([])
          expect(yield* store.load({ ...key, subpath: "subagents/agent-x" })).toBeNull()
        }))

      it.effect("subpaths are independent; listSessions lists mains only; listSubkeys lists subpaths only", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          const main = { projectKey, sessionId: "s1" }
          const sub = { ...main, subpath: "subagents/agent-a" }
          const deep = { ...main, subpath: "subagents/workflows/w1/agent-b" }
          yield* store.append(sub, [{ type: "user", uuid: "same" }])
          expect(yield* store.load(main)).toBeNull()
          expect(yield* store.listSessions(projectKey)).toEqual([])
          yield* store.append(main, [{ type: "user", uuid: "same", main: true }])
          yield* store.append(deep, [{ type: "agent_metadata", agentType: "Explore" }])
          expect(yield* store.load(main)).toEqual([{ type: "user", uuid: "same", main: true }])
          expect(yield* store.load(sub)).toEqual([{ type: "user", uuid: "same" }])
          expect((yield* store.listSessions(projectKey)).map((s) => s.sessionId)).toEqual(["s1"])
          expect([...(yield* store.listSubkeys(main))].sort()).toEqual([deep.subpath, sub.subpath].sort())
          expect((yield* store.listSessionSummaries(projectKey)).map((s) => s.sessionId)).toEqual(["s1"])
        }))

      it.effect("projectKeys are isolated", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const a = { projectKey: newProject(), sessionId: "s1" }
          const b = { projectKey: newProject(), sessionId: "s1" }
          yield* store.append(a, [{ type: "user", uuid: "u1", p: "a" }])
          yield* store.append(b, [{ type: "user", uuid: "u1", p: "b" }])
          expect(yield* store.load(a)).toEqual([{ type: "user", uuid: "u1", p: "a" }])
          expect(yield* store.load(b)).toEqual([{ type: "user", uuid: "u1", p: "b" }])
          yield* store.delete(a)
          expect(yield* store.load(a)).toBeNull()
          expect(yield* store.load(b)).not.toBeNull()
          expect(yield* store.listSessions(a.projectKey)).toEqual([])
          expect((yield* store.listSessions(b.projectKey)).length).toBe(1)
        }))

      it.effect("delete of a main key cascades; delete of a subkey removes only it", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          const main = { projectKey, sessionId: "s1" }
          const subA = { ...main, subpath: "subagents/agent-a" }
          const subB = { ...main, subpath: "subagents/agent-b" }
          const other = { projectKey, sessionId: "s2" }
          for (const key of [main, subA, subB, other]) yield* store.append(key, [{ type: "user", uuid: "u" }])
          yield* store.delete(subA)
          expect(yield* store.load(subA)).toBeNull()
          expect(yield* store.load(main)).not.toBeNull()
          expect(yield* store.listSubkeys(main)).toEqual([subB.subpath])
          expect((yield* store.listSessionSummaries(projectKey)).length).toBe(2)
          yield* store.delete(main)
          expect(yield* store.load(main)).toBeNull()
          expect(yield* store.load(subB)).toBeNull()
          expect(yield* store.listSubkeys(main)).toEqual([])
          expect((yield* store.listSessions(projectKey)).map((s) => s.sessionId)).toEqual(["s2"])
          expect((yield* store.listSessionSummaries(projectKey)).map((s) => s.sessionId)).toEqual(["s2"])
          expect(yield* store.load(other)).toEqual([{ type: "user", uuid: "u" }])
          // A deleted key can be written again from scratch.
          yield* store.append(main, [{ type: "user", uuid: "u", again: true }])
          expect(yield* store.load(main)).toEqual([{ type: "user", uuid: "u", again: true }])
        }))

      it.effect("uuid is an idempotency key (same batch, across batches); entries without uuid are kept", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const key = { projectKey: newProject(), sessionId: "s1" }
          yield* store.append(key, [
            { type: "user", uuid: "u1", v: 1 },
            { type: "user", uuid: "u1", v: 2 },
            { type: "tag", tag: "x" },
            { type: "tag", tag: "x" }
          ])
          yield* store.append(key, [{ type: "user", uuid: "u1", v: 3 }, { type: "user", uuid: "u2" }, {
            type: "tag",
            tag: "x"
          }])
          expect(yield* store.load(key)).toEqual([
            { type: "user", uuid: "u1", v: 1 },
            { type: "tag", tag: "x" },
            { type: "tag", tag: "x" },
            { type: "user", uuid: "u2" },
            { type: "tag", tag: "x" }
          ])
        }))

      it.effect("uuid idempotency holds across two store instances on the same database", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const other = yield* Pg.make(options)
          const key = { projectKey: newProject(), sessionId: "s1" }
          yield* store.append(key, [{ type: "user", uuid: "u1" }, { type: "user", uuid: "u2" }])
          yield* other.append(key, [{ type: "user", uuid: "u2" }, { type: "user", uuid: "u3" }])
          yield* store.append(key, [{ type: "user", uuid: "u3" }, { type: "user", uuid: "u1" }])
          const uuids = ["u1", "u2", "u3"]
          expect((yield* store.load(key))?.map((e) => e.uuid)).toEqual(uuids)
          expect((yield* other.load(key))?.map((e) => e.uuid)).toEqual(uuids)
        }).pipe(Effect.scoped))

      it.effect("summaries equal a fresh foldSessionSummary of all stored entries, on the listSessions clock", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          const key = { projectKey, sessionId: "s1" }
          const t = "2025-01-01T12:00:00.000Z"
          yield* store.append(key, [
            { type: "queue-operation", operation: "enqueue", timestamp: t },
            {
              type: "user",
              uuid: "u1",
              timestamp: t,
              cwd: "/srv/app",
              gitBranch: "main",
              message: { role: "user", content: "Fix the failing\ntest in foo.ts" }
            }
          ])
          yield* store.append(key, [
            { type: "user", uuid: "u1", message: { role: "user", content: "duplicate, ignored" }, customTitle: "NO" },
            { type: "assistant", uuid: "a1", timestamp: t, message: { role: "assistant", content: [] } },
            { type: "ai-title", aiTitle: "AI" },
            { type: "tag", tag: "wip", uuid: "t1" }
          ])
          yield* store.append({ ...key, subpath: "subagents/agent-a" }, [{ type: "custom-title", customTitle: "SUB" }])
          yield* store.append(key, [{ type: "custom-title", customTitle: "T", uuid: "c1" }, {
            type: "summary",
            summary: "S"
          }])
          const [summary] = yield* store.listSessionSummaries(projectKey)
          const [listing] = yield* store.listSessions(projectKey)
          const entries = (yield* store.load(key))!
          const fresh = foldSessionSummary(undefined, key, entries as Array<Sdk.SessionStoreEntry>, {
            mtime: listing!.mtime
          })
          expect(summary).toEqual(fresh)
          expect(summary!.mtime).toBe(listing!.mtime)
          expect(summary!.data).toMatchObject({ customTitle: "T", aiTitle: "AI", tag: "wip", summaryHint: "S" })
          expect(summary!.data["firstPrompt"]).toBe("Fix the failing test in foo.ts")
        }))

      it.effect("mtime is an integer epoch-ms, strictly increasing across the store", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          const before = Date.now()
          for (let i = 0; i < 8; i++) {
            yield* store.append({ projectKey, sessionId: `s${i}` }, [{ type: "user", uuid: "u" }])
          }
          const listings = yield* store.listSessions(projectKey)
          const mtimes = [...listings].sort((a, b) => a.sessionId.localeCompare(b.sessionId)).map((l) => l.mtime)
          for (const mtime of mtimes) expect(Number.isInteger(mtime)).toBe(true)
          for (let i = 1; i < mtimes.length; i++) expect(mtimes[i]!).toBeGreaterThan(mtimes[i - 1]!)
          expect(mtimes[0]!).toBeGreaterThanOrEqual(before - 60_000)
          // A subkey append bumps only its own key, not the main listing.
          const key = { projectKey, sessionId: "s0" }
          yield* store.append({ ...key, subpath: "subagents/agent-a" }, [{ type: "user" }])
          expect((yield* store.listSessions(projectKey)).find((l) => l.sessionId === "s0")?.mtime).toBe(mtimes[0])
          yield* store.append(key, [{ type: "user", uuid: "u" }])
          const bumped = (yield* store.listSessions(projectKey)).find((l) => l.sessionId === "s0")!.mtime
          expect(bumped).toBeGreaterThan(mtimes[mtimes.length - 1]!)
          const summary = (yield* store.listSessionSummaries(projectKey)).find((s) => s.sessionId === "s0")
          expect(summary?.mtime).toBe(bumped)
        }))

      it.effect("odd JSON round-trips deep-equal (unicode, nesting, big numbers, key order)", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const key = { projectKey: newProject(), sessionId: "s1" }
          yield* store.append(key, [oddEntry, { type: "x", lone: "😀" }, { type: "y", cjk: "漢字" }])
          const loaded = (yield* store.load(key))!
          expect(loaded).toEqual([oddEntry, { type: "x", lone: "😀" }, { type: "y", cjk: "漢字" }])
          expect(loaded[0]!["big"]).toBe(12345678901234567890)
          expect(loaded[0]!["huge"]).toBe(1e300)
          expect(loaded[0]!["tiny"]).toBe(5e-324)
        }))

      it.effect("invalid keys fail with InvalidKey, invalid entries with InvalidEntry", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          for (const subpath of ["", "/etc/passwd", "subagents/../x", ".."]) {
            const key = { projectKey, sessionId: "s1", subpath } as SessionKey
            for (
              const error of [
                yield* failureOf(store.append(key, [{ type: "user" }])),
                yield* failureOf(store.load(key)),
                yield* failureOf(store.delete(key))
              ]
            ) {
              expect(error).toBeInstanceOf(SessionStoreError)
              expect(error.reason).toBe("InvalidKey")
            }
          }
          const bad = yield* failureOf(
            store.append({ projectKey, sessionId: "s1" }, [{ notype: 1 } as unknown as SessionStoreEntry])
          )
          expect(bad.reason).toBe("InvalidEntry")
          expect(yield* store.load({ projectKey, sessionId: "s1" })).toBeNull()
        }))

      it.effect("deleteOlderThan deletes whole sessions older than the cutoff and counts them", () =>
        Effect.gen(function*() {
          const store = yield* SessionStore
          const projectKey = newProject()
          const otherProject = newProject()
          const old = { projectKey, sessionId: "old" }
          yield* store.append(old, [{ type: "user", uuid: "u" }])
          yield* store.append({ ...old, subpath: "subagents/agent-a" }, [{ type: "user" }])
          const oldOther = { projectKey: otherProject, sessionId: "old" }
          yield* store.append(oldOther, [{ type: "user", uuid: "u" }])
          // A session whose subagent was written recently counts as recent.
          const active = { projectKey, sessionId: "active" }
          yield* store.append(active, [{ type: "user", uuid: "u" }])
          const fresh = { projectKey, sessionId: "fresh" }
          yield* store.append(fresh, [{ type: "user", uuid: "u" }])
          yield* store.append({ ...active, subpath: "subagents/agent-b" }, [{ type: "user" }])
          const cutoff = (yield* store.listSessions(projectKey)).find((l) => l.sessionId === "fresh")!.mtime
          expect(yield* store.deleteOlderThan(cutoff, { projectKey })).toBe(1)
          expect(yield* store.load(old)).toBeNull()
          expect(yield* store.load({ ...old, subpath: "subagents/agent-a" })).toBeNull()
          expect(yield* store.listSubkeys(old)).toEqual([])
          expect((yield* store.listSessions(projectKey)).map((l) => l.sessionId).sort()).toEqual(["active", "fresh"])
          expect((yield* store.listSessionSummaries(projectKey)).map((s) => s.sessionId).sort()).toEqual([
            "active",
            "fresh"
          ])
          expect(yield* store.load(oldOther)).not.toBeNull()
          expect(yield* store.deleteOlderThan(0)).toBe(0)
          expect(yield* store.deleteOlderThan(cutoff + 1, { projectKey })).toBe(1)
          expect((yield* store.listSessions(projectKey)).map((l) => l.sessionId)).toEqual(["active"])
        }))
    })

    describe("createPostgresSessionStore (Promise API)", () => {
      it("implements the SDK SessionStore with every optional method", () =>
        withStore(async (store) => {
          const sdk: Required<Sdk.SessionStore> = store
          const projectKey = newProject()
          const key = { projectKey, sessionId: "s1" }
          const sub = { ...key, subpath: "subagents/agent-a" }
          await sdk.append(key, [{ type: "user", uuid: "u1" }, oddEntry as Sdk.SessionStoreEntry])
          await sdk.append(key, [{ type: "user", uuid: "u1" }, { type: "custom-title", customTitle: "T" }])
          await sdk.append(sub, [{ type: "user", uuid: "u1" }])
          expect(await sdk.load(key)).toEqual([{ type: "user", uuid: "u1" }, oddEntry, {
            type: "custom-title",
            customTitle: "T"
          }])
          expect(await sdk.load({ projectKey, sessionId: "nope" })).toBeNull()
          expect((await sdk.listSessions(projectKey)).map((l) => l.sessionId)).toEqual(["s1"])
          expect(await sdk.listSubkeys(key)).toEqual(["subagents/agent-a"])
          const [summary] = await sdk.listSessionSummaries(projectKey)
          expect(summary).toEqual(foldSessionSummary(undefined, key, (await sdk.load(key))!, { mtime: summary!.mtime }))
          await expect(sdk.load({ ...key, subpath: "../x" })).rejects.toMatchObject({
            _tag: "SessionStoreError",
            reason: "InvalidKey"
          })
          await sdk.delete(sub)
          expect(await sdk.listSubkeys(key)).toEqual([])
          await sdk.append(sub, [{ type: "user" }])
          await sdk.delete(key)
          expect(await sdk.load(key)).toBeNull()
          expect(await sdk.load(sub)).toBeNull()
          expect(await sdk.listSessionSummaries(projectKey)).toEqual([])
          await sdk.append(key, [{ type: "user" }])
          expect(await store.deleteOlderThan(Number.MAX_SAFE_INTEGER, { projectKey })).toBe(1)
          expect(await sdk.listSessions(projectKey)).toEqual([])
        }), 30_000)

      it("four worker processes appending to one session keep every entry once, each in order", async () => {
        // Migrate up front is not required: the workers race on the migrations themselves too.
        // plain Node on a bundle of the worker and the workspace sources it imports (through
        // tsx's hooks each start cost seconds of CPU)
        const worker = await bundleWorker(new URL("./workers/pgAppendWorker.ts", import.meta.url))
        const projectKey = newProject()
        const sessionId = randomUUID()
        const workers = 4
        const batches = 10
        const batchSize = 5
        const runWorker = (id: number) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [
              worker.file,
              PG_URL!,
              SCHEMA,
              projectKey,
              sessionId,
              String(id),
              String(batches),
              String(batchSize)
            ], { stdio: ["ignore", "inherit", "pipe"] })
            let stderr = ""
            child.stderr.on("data", (chunk) => (stderr += String(chunk)))
            child.on("error", reject)
            child.on(
              "exit",
              (code) => code === 0 ? resolve() : reject(new Error(`worker ${id} exited ${code}: ${stderr}`))
            )
          })
        await Promise.all(Array.from({ length: workers }, (_, id) => runWorker(id))).finally(worker.remove)

        await withStore(async (store) => {
          const entries = (await store.load({ projectKey, sessionId }))!
          expect(entries.length).toBe(workers * batches * batchSize)
          expect(new Set(entries.map((e) => e.uuid)).size).toBe(entries.length)
          for (let id = 0; id < workers; id++) {
            const seqs = entries.filter((e) => e["worker"] === id).map((e) => e["seq"])
            expect(seqs).toEqual(Array.from({ length: batches * batchSize }, (_, i) => i))
          }
          const [summary] = await store.listSessionSummaries(projectKey)
          expect(summary).toEqual(foldSessionSummary(undefined, { projectKey, sessionId }, entries, {
            mtime: summary!.mtime
          }))
        })
      }, 30_000)
    })

    describe(
      "SDK interop",
      () => {
        it(
          "importSessionToStore + getSessionMessages match InMemorySessionStore; re-import adds no uuid duplicates",
          async () => {
            const sessionId = "258c7280-ae70-4798-800f-63464d01a85d"
            const source = Fixtures.transcriptFiles().find((f) => path.basename(f) === `${sessionId}.jsonl`)
            expect(source).toBeDefined()
            const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-pg-interop-")))
            const previousConfigDir = process.env["CLAUDE_CONFIG_DIR"]
            try {
              const dir = path.join(root, "work", "my.project")
              fs.mkdirSync(dir, { recursive: true })
              const configDir = path.join(root, "config")
              const projectKey = dir.replace(/[^a-zA-Z0-9]/g, "-")
              const projectDir = path.join(configDir, "projects", projectKey)
              fs.mkdirSync(projectDir, { recursive: true })
              fs.copyFileSync(source!, path.join(projectDir, `${sessionId}.jsonl`))
              const subagents = path.join(path.dirname(source!), sessionId)
              if (fs.existsSync(subagents)) fs.cpSync(subagents, path.join(projectDir, sessionId), { recursive: true })
              process.env["CLAUDE_CONFIG_DIR"] = configDir

              await withStore(async (store) => {
                const memory = new InMemorySessionStore()
                await importSessionToStore(sessionId, store, { dir })
                await importSessionToStore(sessionId, memory, { dir })
                const key = { projectKey, sessionId }
                const once = (await store.load(key))!
                expect(once).toEqual(await memory.load(key))
                expect(await store.listSubkeys(key)).toEqual([...(await memory.listSubkeys(key))].sort())
                for (const subpath of await store.listSubkeys(key)) {
                  expect(await store.load({ ...key, subpath })).toEqual(await memory.load({ ...key, subpath }))
                }
                const expected = await getSessionMessages(sessionId, { dir, sessionStore: memory })
                expect(expected.length).toBeGreaterThan(0)
                expect(await getSessionMessages(sessionId, { dir, sessionStore: store })).toEqual(expected)
                expect((await store.listSessionSummaries(projectKey)).map((s) => s.data)).toEqual(
                  (await memory.listSessionSummaries(projectKey)).map((s) => s.data)
                )

                await importSessionToStore(sessionId, store, { dir })
                const twice = (await store.load(key))!
                const withUuid = twice.filter((e) => typeof e.uuid === "string")
                expect(new Set(withUuid.map((e) => e.uuid)).size).toBe(withUuid.length)
                expect(withUuid).toEqual(once.filter((e) => typeof e.uuid === "string"))
                // Entries without uuid (snapshots, queue operations) are appended again, per the contract.
                expect(twice.length).toBe(once.length + once.filter((e) => typeof e.uuid !== "string").length)
                expect(await getSessionMessages(sessionId, { dir, sessionStore: store })).toEqual(expected)
              })
            } finally {
              if (previousConfigDir === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
              else process.env["CLAUDE_CONFIG_DIR"] = previousConfigDir
              fs.rmSync(root, { recursive: true, force: true })
            }
          },
          60_000
        )
      }
    )
  }
)

/** Migration 1 of the first release, verbatim as a database created then holds it. */
const migration1Sql = (schema: string) => [
  `CREATE SCHEMA ${schema}`,
  `CREATE TABLE ${schema}.acx_session_store_migrations (
    migration_id integer primary key, created_at timestamp with time zone not null default now(), name text not null)`,
  `CREATE TABLE ${schema}.claude_session_entries (
    id BIGSERIAL PRIMARY KEY, project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL DEFAULT '',
    entry JSONB NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())`,
  `ALTER TABLE ${schema}.claude_session_entries ADD COLUMN IF NOT EXISTS uuid TEXT NULL`,
  `CREATE INDEX claude_session_entries_key_idx ON ${schema}.claude_session_entries (project_key, session_id, subpath, id)`,
  `CREATE UNIQUE INDEX claude_session_entries_uuid_idx
    ON ${schema}.claude_session_entries (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL`,
  `CREATE TABLE ${schema}.acx_session_keys (project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL,
    mtime BIGINT NOT NULL, PRIMARY KEY (project_key, session_id, subpath))`,
  `CREATE INDEX acx_session_keys_mtime_idx ON ${schema}.acx_session_keys (mtime)`,
  `CREATE TABLE ${schema}.acx_session_summaries (project_key TEXT NOT NULL, session_id TEXT NOT NULL,
    mtime BIGINT NOT NULL, data JSONB NOT NULL, PRIMARY KEY (project_key, session_id))`,
  `CREATE TABLE ${schema}.acx_clock (id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id), last BIGINT NOT NULL)`,
  `INSERT INTO ${schema}.acx_clock (id, last) VALUES (TRUE, 0)`,
  `INSERT INTO ${schema}.acx_session_store_migrations (migration_id, name) VALUES (1, 'create_session_store')`
]

/** A TCP port nothing listens on: one the OS just handed out and took back. */
const closedPort = async (): Promise<number> => {
  const net = await import("node:net")
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { readonly port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe.skipIf(!PG_URL)("PostgresSessionStore: migrations, options and connection errors", () => {
  it("migrates a database made by migration 1 (JSONB) in place: rows intact, U+0000 then stored", async () => {
    const schema = `acx_pg_migrate_${process.pid}_${randomUUID().slice(0, 8)}`
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      for (const statement of migration1Sql(schema)) await client.query(statement)
      const key = { projectKey: newProject(), sessionId: randomUUID() }
      const old: Array<SessionStoreEntry> = [
        { type: "user", uuid: "u-1", message: { role: "user", content: "before the migration" } },
        oddEntry,
        { type: "tag", tag: "no uuid" }
      ]
      for (const entry of old) {
        await client.query(
          `INSERT INTO ${schema}.claude_session_entries (project_key, session_id, subpath, entry, uuid)
          VALUES ($1, $2, '', $3, $4)`,
          [key.projectKey, key.sessionId, JSON.stringify(entry), typeof entry.uuid === "string" ? entry.uuid : null]
        )
      }
      const summary = foldSessionSummary(undefined, key, old as Array<Sdk.SessionStoreEntry>, { mtime: 1000 })
      await client.query(`INSERT INTO ${schema}.acx_session_keys VALUES ($1, $2, '', 1000)`, [
        key.projectKey,
        key.sessionId
      ])
      await client.query(`INSERT INTO ${schema}.acx_session_summaries VALUES ($1, $2, 1000, $3)`, [
        key.projectKey,
        key.sessionId,
        JSON.stringify(summary.data)
      ])
      await client.query(`UPDATE ${schema}.acx_clock SET last = 1000`)

      const store = Pg.createPostgresSessionStore({ url: PG_URL!, schema })
      try {
        expect(await store.load(key)).toEqual(old)
        expect(await store.listSessionSummaries(key.projectKey)).toEqual([summary])
        const binary: Array<SessionStoreEntry> = [
          { type: "user", uuid: "u-2", message: { role: "user", content: "bytes \u0000 and \ud800" } },
          { type: "assistant", uuid: "u-3", text: "plain" }
        ]
        await store.append(key, [...binary, old[0]!])
        expect(await store.load(key)).toEqual([...old, ...binary])
        const [after] = await store.listSessionSummaries(key.projectKey)
        expect(after).toEqual(
          foldSessionSummary(undefined, key, [...old, ...binary] as Array<Sdk.SessionStoreEntry>, {
            mtime: after!.mtime
          })
        )
      } finally {
        await store.close()
      }
      const types = await client.query(
        `SELECT table_name, data_type FROM information_schema.columns
        WHERE table_schema = $1 AND column_name IN ('entry', 'data') ORDER BY table_name`,
        [schema]
      )
      expect(types.rows).toEqual([
        { table_name: "acx_session_summaries", data_type: "json" },
        { table_name: "claude_session_entries", data_type: "json" }
      ])
      const applied = await client.query(
        `SELECT migration_id, name FROM ${schema}.acx_session_store_migrations ORDER BY migration_id`
      )
      expect(applied.rows.slice(0, 2)).toEqual([
        { migration_id: 1, name: "create_session_store" },
        { migration_id: 2, name: "lossless_json" }
      ])
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await client.end()
    }
  }, 60_000)

  it("rejects an invalid schema when the store is constructed, before connecting", async () => {
    for (const schema of ["Bad-Name", "x; DROP TABLE y", "9lives", ""]) {
      let thrown: unknown
      try {
        // An unreachable URL: reaching it would fail differently.
        Pg.createPostgresSessionStore({ url: "postgres://nobody@127.0.0.1:1/none", schema })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(SessionStoreError)
      expect((thrown as SessionStoreError).reason).toBe("InvalidOption")
      expect((thrown as SessionStoreError).message).toContain(JSON.stringify(schema))
      const failed = await Effect.runPromise(
        Effect.flip(Effect.scoped(Pg.make({ url: Redacted.make("postgres://nobody@127.0.0.1:1/none"), schema })))
      )
      expect(failed.reason).toBe("InvalidOption")
    }
  })

  it("a closed port fails with Connection, naming host, port and the reason, never the password", async () => {
    const port = await closedPort()
    const error = await Effect.runPromise(
      Effect.flip(Effect.scoped(Pg.make({ url: Redacted.make(`postgres://acx:s3cret-pw@127.0.0.1:${port}/acx`) })))
    )
    expect(error.reason).toBe("Connection")
    expect(error.message).toContain(`cannot connect to Postgres at 127.0.0.1:${port}: connection refused`)
    expect(error.message).not.toContain("s3cret-pw")
    const wrongPassword = new URL(PG_URL!)
    wrongPassword.password = "not-the-password"
    const denied = await Effect.runPromise(
      Effect.flip(Effect.scoped(Pg.make({ url: Redacted.make(wrongPassword.href) })))
    )
    expect(denied.reason).toBe("Connection")
    expect(denied.message).toContain(
      `at ${wrongPassword.hostname}:${wrongPassword.port || "5432"}: password authentication failed`
    )
    expect(denied.message).not.toContain("not-the-password")
  })
})
