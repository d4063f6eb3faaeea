/**
 * The kept `stats --from postgres://` reports (`src/internal/keptReport.ts`) on their own: a
 * store's identity names the login and never the password; a report is read back only for the
 * same identity and request, and while the statistics cache it speaks of is unchanged; a damaged
 * or foreign file is no report (the full path runs), never an error.
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as KeptReport from "../src/internal/keptReport.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-kept-report-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const env = { PGUSER: "fallback" }
const store = (spec: string) => KeptReport.postgresStore(spec, env)!

describe("keptReport", () => {
  it("names a store by its URL and login, never its password; refuses what a store would refuse", () => {
    const bob = store("postgres://bob:S3cret%2Fpw@db.example.com:5432/team?schema=hub&sslmode=require")
    expect(bob.schema).toBe("hub")
    expect(bob.url).toContain("S3cret")
    expect(bob.url).not.toContain("schema=")
    expect(bob.identity).not.toContain("S3cret")
    expect(bob.identity).toContain("\"bob\"")
    const alice = store("postgres://alice:S3cret%2Fpw@db.example.com:5432/team?schema=hub&sslmode=require")
    expect(alice.identity).not.toBe(bob.identity)
    // the driver's fallbacks: the `user` parameter, then PGUSER
    expect(store("postgres://db.example.com/team?user=carol").identity).toContain("\"carol\"")
    expect(store("postgres://db.example.com/team").identity).toContain("\"fallback\"")
    expect(store("postgres://db.example.com/team?password=hunter2").identity).not.toContain("hunter2")
    // a broken %-escape in the user is no exception (the full path then says what is wrong)
    expect(store("postgres://%E0%A4@db.example.com/team").identity).toContain("%E0%A4")
    for (
      const spec of [
        "sqlite:/x.db",
        "postgres://u:12/x@host/db",
        "postgres://h/db?schema=a&schema=b",
        "postgres://h/db?schema=Bad-Name",
        "postgres://h/db?schema=",
        // `DatabaseSpec` refuses an `@` with no user before it: so does the kept report's reader
        "postgres://@h/db",
        "postgres://:pw@h/db"
      ]
    ) expect(KeptReport.postgresStore(spec, env), spec).toBeUndefined()
  })

  it("reads a spec as DatabaseSpec does: the same URL and schema, or nothing where it refuses", () => {
    const specs = [
      "postgres://bob@h/db",
      "postgresql://bob:pw@h:5433/db?schema=hub&sslmode=require",
      "POSTGRES://h/db?application_name=x",
      "postgres://@h/db",
      "postgres://u:12/x@host/db",
      "postgres://h/db?schema=a&schema=b",
      "postgres://h/db?schema=",
      "postgres://[::1/db",
      "sqlite:/x.db",
      "x.db"
    ]
    for (const spec of specs) {
      const full = Either.getOrUndefined(DatabaseSpec.parse(spec))
      const kept = KeptReport.postgresStore(spec, env)
      const expected = full?._tag === "Postgres"
        ? { url: Redacted.value(full.url), schema: full.schema ?? "public" }
        : undefined
      expect(kept === undefined ? undefined : { url: kept.url, schema: kept.schema }, spec).toEqual(expected)
    }
  })

  it("reads a report back for the same identity and request while its statistics cache is unchanged", () => {
    const cacheDir = path.join(root, "cache")
    const statsFile = path.join(root, "store-stats.json")
    fs.writeFileSync(statsFile, "{}")
    const bob = store("postgres://bob@h/db")
    const key = { by: "session", json: true, pricing: "p1" }
    const kept = { digest: "3:abc", statsCache: KeptReport.fileState(statsFile)! }
    KeptReport.write(bob, key, kept, "{\n  \"rows\": []\n}", cacheDir)
    const read = KeptReport.read(bob, key, cacheDir)
    expect(read?.kept.digest).toBe("3:abc")
    expect(Buffer.from(read!.output).toString()).toBe("{\n  \"rows\": []\n}\n")
    // another login, grouping, form or price table: nothing
    expect(KeptReport.read(store("postgres://alice@h/db"), key, cacheDir)).toBeUndefined()
    expect(KeptReport.read(bob, { ...key, by: "day" }, cacheDir)).toBeUndefined()
    expect(KeptReport.read(bob, { ...key, json: false }, cacheDir)).toBeUndefined()
    expect(KeptReport.read(bob, { ...key, pricing: "p2" }, cacheDir)).toBeUndefined()
    // the file is owner-only
    expect(fs.statSync(KeptReport.fileOf(cacheDir, bob, key)).mode & 0o077).toBe(0)
    // the statistics cache rewritten since: its counts would differ
    fs.writeFileSync(statsFile, "{ }")
    expect(KeptReport.read(bob, key, cacheDir)).toBeUndefined()
  })

  it("a damaged or foreign file is no report", () => {
    const cacheDir = path.join(root, "damaged")
    const bob = store("postgres://bob@h/db")
    const key = { by: "session", json: false, pricing: "p1" }
    const file = KeptReport.fileOf(cacheDir, bob, key)
    fs.mkdirSync(cacheDir, { recursive: true })
    for (const text of ["", "no newline", "{not json\nbody", "null\nbody", "{\"version\":1}\nbody", "\u0000\u00ff\n"]) {
      fs.writeFileSync(file, text)
      expect(KeptReport.read(bob, key, cacheDir), JSON.stringify(text)).toBeUndefined()
    }
    fs.rmSync(file)
    fs.mkdirSync(file) // a directory where the file was
    expect(KeptReport.read(bob, key, cacheDir)).toBeUndefined()
  })
})
