import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PgDriverUrl from "../src/PgDriverUrl.js"

const key = { host: "db.example.com", port: "5432", database: "team", user: "ana" }

describe("PgDriverUrl", () => {
  it("matches a password file's lines by libpq's rules: wildcards, escapes, comments, the first match", () => {
    const file = [
      "# db.example.com:5432:team:ana:commented-out",
      "db.example.com:5432:team:bob:not-ana",
      "db.example.com:*:team:ana:first\\:one\\\\x",
      "*:*:*:*:second"
    ].join("\n")
    expect(PgDriverUrl.matchPassFile(file, key)).toBe("first:one\\x")
    expect(PgDriverUrl.matchPassFile(file, { ...key, user: "carl" })).toBe("second")
    expect(PgDriverUrl.matchPassFile("db.example.com:5432:team:ana", key)).toBeUndefined()
    // a colon in the password itself needs no escape after the fourth field
    expect(PgDriverUrl.matchPassFile("*:*:*:ana:a:b", key)).toBe("a:b")
  })

  it("gives the driver the file's password only when neither the URL nor PGPASSWORD holds one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pgpass-"))
    const file = path.join(dir, "pgpass")
    fs.writeFileSync(file, "127.0.0.1:5432:team:ana:from-file\n", { mode: 0o600 })
    const saved = { PGPASSFILE: process.env["PGPASSFILE"], PGPASSWORD: process.env["PGPASSWORD"] }
    try {
      process.env["PGPASSFILE"] = file
      delete process.env["PGPASSWORD"]
      expect(new URL(PgDriverUrl.driverUrl("postgres://ana@127.0.0.1:5432/team")).password).toBe("from-file")
      expect(new URL(PgDriverUrl.driverUrl("postgres://ana:given@127.0.0.1:5432/team")).password).toBe("given")
      // another database: no line matches, the URL stays as it was
      expect(PgDriverUrl.driverUrl("postgres://ana@127.0.0.1:5432/other")).toBe("postgres://ana@127.0.0.1:5432/other")
      process.env["PGPASSWORD"] = "from-env"
      expect(new URL(PgDriverUrl.driverUrl("postgres://ana@127.0.0.1:5432/team")).password).toBe("")
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
