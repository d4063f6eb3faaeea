/**
 * `DatabaseSpec`: one grammar (`sqlite:FILE`, a bare `FILE.db` / `.sqlite` path, `postgres://`
 * with `?schema=` taken out), a typed error for anything else, and a password that no message
 * ever shows: not as typed, not percent-encoded, not as a `password=` parameter, not in an error.
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as path from "node:path"

const cwd = "/work/here"
const parse = (spec: string) => DatabaseSpec.parse(spec, { cwd })

const right = (spec: string): DatabaseSpec.DatabaseSpec => {
  const parsed = parse(spec)
  if (Either.isLeft(parsed)) throw new Error(`${spec}: ${parsed.left.description}`)
  return parsed.right
}

const left = (spec: string): DatabaseSpec.DatabaseSpecError => {
  const parsed = parse(spec)
  if (Either.isRight(parsed)) throw new Error(`${spec} parsed as ${DatabaseSpec.display(parsed.right)}`)
  return parsed.left
}

/** Everything a spec, once parsed, can put in front of a user: the display, or the error. */
const shown = (spec: string): string =>
  Either.match(DatabaseSpec.parse(spec, { cwd }), {
    onLeft: (error) => `${error.message}\n${String(error)}\n${JSON.stringify(error)}`,
    onRight: (database) =>
      `${DatabaseSpec.display(database)}\n${database._tag === "Postgres" ? String(database.url) : ""}\n${
        JSON.stringify(database)
      }`
  })

/** The spellings a password can take in a URL: as typed, percent-encoded, as a URL's userinfo. */
const spellings = (password: string): ReadonlyArray<string> => {
  const userinfo = new URL("postgres://u@h/db")
  userinfo.password = password
  return [
    password,
    encodeURIComponent(password),
    userinfo.password,
    new URLSearchParams({ p: password }).toString().slice(2)
  ]
}

describe("DatabaseSpec.parse", () => {
  it("sqlite:FILE, relative to cwd or absolute (sqlite:///abs too)", () => {
    expect(right("sqlite:./sessions.db")).toEqual({ _tag: "Sqlite", filename: path.join(cwd, "sessions.db") })
    expect(right("sqlite:notes")).toEqual({ _tag: "Sqlite", filename: path.join(cwd, "notes") })
    expect(right("sqlite:///srv/acx.db")).toEqual({ _tag: "Sqlite", filename: "/srv/acx.db" })
    expect(right("SQLite:/srv/acx.db")).toEqual({ _tag: "Sqlite", filename: "/srv/acx.db" })
    expect(left("sqlite:").reason).toBe("MissingFile")
  })

  it("a bare path ending .db, .sqlite or .sqlite3 (any case) is a SQLite file; other bare strings are refused", () => {
    expect(right("foo.db")).toEqual({ _tag: "Sqlite", filename: path.join(cwd, "foo.db") })
    expect(right("../x/store.sqlite")).toEqual({ _tag: "Sqlite", filename: path.resolve(cwd, "../x/store.sqlite") })
    expect(right("/abs/STORE.SQLITE3")).toEqual({ _tag: "Sqlite", filename: "/abs/STORE.SQLITE3" })
    for (const spec of ["foo", "foo.txt", "", "http://h/x.db", "postgres", "bogus"]) {
      expect(left(spec).reason, spec).toBe("Unrecognized")
    }
    expect(left("bogus").message).toBe(`expected ${DatabaseSpec.GRAMMAR}, got "bogus"`)
  })

  it("postgres:// and postgresql://: ?schema= taken out of the URL, other parameters kept", () => {
    const spec = right("postgres://u:p%40ss@db.example:5432/acx?sslmode=disable&schema=team_a")
    expect(spec._tag).toBe("Postgres")
    if (spec._tag !== "Postgres") return
    expect(Redacted.value(spec.url)).toBe("postgres://u:p%40ss@db.example:5432/acx?sslmode=disable")
    expect(spec.schema).toBe("team_a")
    const plain = right("postgresql://127.0.0.1/acx")
    expect(plain._tag === "Postgres" && plain.schema).toBe(undefined)
    expect(left("postgres://h/db?schema=a&schema=b").reason).toBe("InvalidSchema")
    expect(left("postgres://h/db?schema=").reason).toBe("InvalidSchema")
  })

  it("an unparsable URL is one line that does not echo it", () => {
    const error = left("postgres://u:s3cret@[::1")
    expect(error.reason).toBe("InvalidUrl")
    expect(error.message).toBe("not a valid postgres:// URL")
    // an unencoded `/` in an all-digit password: parses as a port and a path, refused
    const split = left("postgres://u:1234/5678@host/db")
    expect(split.reason).toBe("InvalidUrl")
    expect(split.message).not.toMatch(/1234|5678/)
  })
})

describe("DatabaseSpec.display", () => {
  it("sqlite:FILE; a Postgres URL without its password, its password= parameters and with its schema", () => {
    expect(DatabaseSpec.display(right("foo.db"))).toBe(`sqlite:${path.join(cwd, "foo.db")}`)
    expect(DatabaseSpec.display(right("postgres://u:p%40ss@h:5432/acx?schema=x"))).toBe(
      "postgres://u:***@h:5432/acx (schema x)"
    )
    expect(DatabaseSpec.display(right("postgres://u@h/acx?password=hunter2&sslpassword=two&sslmode=require"))).toBe(
      "postgres://u@h/acx?password=***&sslpassword=***&sslmode=require"
    )
  })

  it("a spec that names no database is echoed with its credentials hidden", () => {
    expect(left("mysql://root:Hunter2/x@db/app").message).toContain(`"mysql://root:***@db/app"`)
    expect(left("mysql://db/app?PassWord=Hunter2&x=1").message).not.toContain("Hunter2")
    expect(left("x".repeat(200)).message.length).toBeLessThan(200)
  })

  const safeName = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/)
  // a `Z` no message or name holds, so the password showing up means it leaked
  const password = fc.tuple(
    fc.oneof(fc.fullUnicodeString(), fc.stringOf(fc.constantFrom("/", "?", "#", "@", ":", "%", "&", "=", " ", "1"))),
    fc.oneof(fc.fullUnicodeString(), fc.stringOf(fc.constantFrom("@", "%40", "é", "'", "\"", "\\", "1")))
  ).map(([before, after]) => `${before}Z${after}`)

  it("property: no message shows the password, in any spelling, wherever the URL holds it", () => {
    fc.assert(
      fc.property(safeName, safeName, safeName, safeName, password, (user, host, db, schema, secret) => {
        const specs = [
          `postgres://${user}:${encodeURIComponent(secret)}@${host}:5432/${db}?schema=${schema}`,
          `postgresql://${user}:${secret}@${host}/${db}`,
          `postgres://${user}@${host}/${db}?password=${encodeURIComponent(secret)}&schema=${schema}`,
          `postgres://${user}@${host}/${db}?sslmode=require&PASSWORD=${encodeURIComponent(secret)}`,
          `mysql://${user}:${secret}@${host}/${db}`
        ]
        for (const spec of specs) {
          const text = shown(spec)
          for (const spelling of spellings(secret)) {
            expect(text.includes(spelling), `${spec} → ${text}`).toBe(false)
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it("property: an encoded password round-trips in the URL the driver gets, and the schema comes out", () => {
    fc.assert(
      fc.property(safeName, safeName, safeName, password, (user, host, schema, secret) => {
        const spec = right(`postgres://${user}:${encodeURIComponent(secret)}@${host}/acx?schema=${schema}`)
        if (spec._tag !== "Postgres") return false
        const url = new URL(Redacted.value(spec.url))
        return decodeURIComponent(url.password) === secret && url.searchParams.get("schema") === null &&
          spec.schema === schema
      }),
      { numRuns: 200 }
    )
  })

  it("property: parse is total: any string is a spec or a typed error, never a throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.fullUnicodeString(), fc.webUrl().map((url) => url.replace(/^https?/, "postgres"))),
        (input) => {
          const parsed = DatabaseSpec.parse(input, { cwd })
          return Either.isLeft(parsed)
            ? parsed.left._tag === "DatabaseSpecError"
            : typeof DatabaseSpec.display(parsed.right) === "string"
        }
      ),
      { numRuns: 300 }
    )
  })

  it("property: hasPassword says whether a URL carries a password, however it is given", () => {
    fc.assert(
      fc.property(safeName, safeName, password, (user, host, secret) => {
        const encoded = encodeURIComponent(secret)
        return DatabaseSpec.hasPassword(right(`postgres://${user}:${encoded}@${host}/acx`)) &&
          DatabaseSpec.hasPassword(right(`postgres://${user}@${host}/acx?sslmode=require&password=${encoded}`)) &&
          !DatabaseSpec.hasPassword(right(`postgres://${user}@${host}/acx?schema=s&sslmode=require`)) &&
          !DatabaseSpec.hasPassword(right(`sqlite:/tmp/${user}.db`))
      }),
      { numRuns: 200 }
    )
  })
})
