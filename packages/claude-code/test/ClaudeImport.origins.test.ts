/**
 * Sessions synced from several machines into one store (`SessionOrigins`): every session's origin
 * recorded once (machine, user, project by its git remote, else its path), the first machine
 * keeping it; the ledger keyed by machine and path, so two machines holding the same path keep
 * records of their own and store every entry once between them; a ledger an older acx keyed by
 * path alone adopted by the first machine that syncs it. SQLite, and Postgres with `ACX_PG_URL`.
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as Fixtures from "@acx/fixtures"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-import-origins-")))
const PG_URL = process.env.ACX_PG_URL
const schemas: Array<string> = []

afterAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  if (PG_URL === undefined || schemas.length === 0) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  } finally {
    await client.end()
  }
})

// A config dir whose one session ran in a git repository with a remote (made with git).
const repoSession = () => {
  const repo = path.join(root, `repo-${randomUUID().slice(0, 8)}`)
  fs.mkdirSync(repo)
  execFileSync("git", ["init", "-q"], { cwd: repo })
  execFileSync("git", ["remote", "add", "origin", "git@github.com:acme/shop.git"], { cwd: repo })
  return repo
}

const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))

const runImport = (
  store: SessionStore.SessionStore,
  configDir: string,
  origin?: { machine: string; user: string }
) => ClaudeImport.importClaudeDir({ from: { configDir }, to: store, origin }).pipe(Effect.provide(NodeContext.layer))

const counts = (store: SessionStore.SessionStore) =>
  Effect.forEach(
    built.sessions,
    (session) =>
      Effect.map(store.load({ projectKey: session.projectKey, sessionId: session.sessionId }), (entries) =>
        entries?.length ?? 0)
  )

let sqliteFile = ""

// better-sqlite3 is this package's dev dependency; its types are not installed here
interface ReadOnlyDb {
  prepare(sql: string): { get(): unknown }
  close(): void
}
const Database = (await import("better-sqlite3" as string)).default as new(
  file: string,
  options: { readonly readonly: boolean }
) => ReadOnlyDb

const stores = [
  {
    name: "SQLite",
    skip: false,
    open: () => {
      sqliteFile = path.join(root, `${randomUUID()}.sqlite`)
      return SqliteSessionStore.make({ filename: sqliteFile })
    }
  },
  {
    name: "Postgres",
    skip: PG_URL === undefined,
    open: () => {
      const schema = `acx_origins_${randomUUID().replace(/-/g, "").slice(0, 12)}`
      schemas.push(schema)
      return PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema })
    }
  }
]

for (const backend of stores) {
  describe.skipIf(backend.skip)(`${backend.name}: sessions from several machines`, () => {
    it.scoped(
      "origins are recorded once; two machines with one path keep ledgers of their own",
      () =>
        Effect.gen(function*() {
          const store = yield* backend.open()
          const origins = SessionOrigins.originsOf(store)!
          const a = yield* runImport(store, built.configDir, { machine: "laptop-a", user: "ana" })
          expect(a.sessions).toBe(built.sessions.length)
          if (backend.name === "SQLite") {
            // the import derived the catalog itself: the first reader finds nothing left to derive
            const db = new Database(sqliteFile, { readonly: true })
            try {
              expect(db.prepare(StoreCatalogSql.READINESS).get()).toMatchObject({ behind: 0 })
            } finally {
              db.close()
            }
          }
          const known = yield* origins.listOrigins()
          expect(new Set(known.map(SessionOrigins.originKey))).toEqual(
            new Set(built.sessions.map(SessionOrigins.originKey))
          )
          expect(new Set(known.map((origin) => `${origin.machine}/${origin.user}`))).toEqual(new Set(["laptop-a/ana"]))
          // the fixtures' working directories are not on this machine: their projects are the paths
          for (const origin of known) {
            expect(origin.project.startsWith("/") || origin.project === origin.projectKey).toBe(true)
          }
          const stored = yield* counts(store)

          // the same path on another machine: its own ledger, so every file is read again, and
          // every entry is still stored once; the origins stay the first machine's
          const b = yield* runImport(store, built.configDir, { machine: "laptop-b", user: "bo" })
          expect(b.filesUnchanged).toBe(0)
          expect(b.filesRead).toBe(a.filesRead)
          expect(yield* counts(store)).toEqual(stored)
          // each machine's next sync finds its own records
          const again = yield* runImport(store, built.configDir, { machine: "laptop-b", user: "bo" })
          expect(again).toMatchObject({ filesRead: 0, entries: 0 })
          expect(new Set((yield* origins.listOrigins()).map((origin) => origin.machine))).toEqual(new Set(["laptop-a"]))
          expect(
            yield* origins.recordOrigins([{
              ...built.sessions[0]!,
              machine: "laptop-c",
              user: "cy",
              project: "x"
            }])
          ).toBe(0)
        }),
      120_000
    )

    it.scoped(
      "a session's project is its repository's remote; a ledger keyed by path alone is adopted once",
      () =>
        Effect.gen(function*() {
          const store = yield* backend.open()
          const origins = SessionOrigins.originsOf(store)!
          // an older acx: the ledger keyed by path, no origins
          const legacy = yield* runImport(store, built.configDir)
          expect(legacy.filesRead).toBeGreaterThan(0)
          expect((yield* origins.listOrigins()).length).toBe(0)
          // the first machine that syncs it with origins takes the records over: nothing is read again
          const adopted = yield* runImport(store, built.configDir, { machine: "desk", user: "ana" })
          expect(adopted).toMatchObject({ filesRead: 0, entries: 0 })
          expect((yield* origins.listOrigins()).length).toBe(built.sessions.length)
          expect(yield* origins.adoptSource("nothing-there", SessionOrigins.sourceOf("desk", "/x"))).toBe(false)

          // a session run inside a git repository: its project is the normalised remote
          const repo = repoSession()
          const dir = path.join(root, `config-${randomUUID().slice(0, 8)}`)
          const projectKey = "-repo-session"
          const sessionId = randomUUID()
          fs.mkdirSync(path.join(dir, "projects", projectKey), { recursive: true })
          fs.writeFileSync(
            path.join(dir, "projects", projectKey, `${sessionId}.jsonl`),
            `${
              JSON.stringify({
                type: "user",
                uuid: randomUUID(),
                sessionId,
                cwd: repo,
                timestamp: "2026-11-28T09:00:00.000Z",
                message: { role: "user", content: "fix the cart" }
              })
            }\n`
          )
          yield* runImport(store, dir, { machine: "desk", user: "ana" })
          expect(yield* origins.listOrigins(projectKey)).toEqual([
            { projectKey, sessionId, machine: "desk", user: "ana", project: "github.com/acme/shop" }
          ])
        }),
      120_000
    )
  })
}

describe("machine names", () => {
  it("a hostname becomes a name stores keep as given; a given name is checked", () => {
    fc.assert(fc.property(fc.fullUnicodeString({ maxLength: 80 }), (name) => {
      const made = SessionOrigins.machineName(name)
      return SessionOrigins.isMachineName(made) && !made.includes(":") && made.length <= 64
    }))
    expect(SessionOrigins.machineName("Ana's MacBook Pro.local")).toBe("Ana-s-MacBook-Pro.local")
    expect(SessionOrigins.machineName("")).toBe("unknown")
    expect(SessionOrigins.isMachineName("ci-7.example")).toBe(true)
    expect(SessionOrigins.isMachineName("a:b")).toBe(false)
    expect(SessionOrigins.isMachineName("-x")).toBe(false)
    expect(SessionOrigins.sourceOf("desk", "/home/a/.claude/projects")).toBe("desk:/home/a/.claude/projects")
  })
})
