/**
 * `PostgresSpec`, the Postgres half of `DatabaseSpec`'s grammar without Effect: what it parses is
 * what `DatabaseSpec` parses (the same URL, the same schema, the same refusals in the same words),
 * and the schema names a store accepts.
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as PostgresSpec from "@acx/environment/PostgresSpec"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"

// DatabaseSpec's answer in PostgresSpec's terms
const viaDatabaseSpec = (spec: string) =>
  Either.match(DatabaseSpec.parse(spec), {
    onLeft: (error) => ({ _tag: "Invalid", reason: error.reason, description: error.description }),
    onRight: (parsed) =>
      parsed._tag === "Postgres"
        ? { _tag: "Parsed", href: Redacted.value(parsed.url), schema: parsed.schema }
        : { _tag: "Sqlite" }
  })

describe("PostgresSpec", () => {
  it("parses a URL, takes its one schema out, refuses a split password and a repeated schema", () => {
    expect(PostgresSpec.parse("postgres://bob:pw@h:5433/db?schema=hub&sslmode=require")).toEqual({
      _tag: "Parsed",
      href: "postgres://bob:pw@h:5433/db?sslmode=require",
      schema: "hub"
    })
    expect(PostgresSpec.parse("postgresql://h/db")).toEqual({
      _tag: "Parsed",
      href: "postgresql://h/db",
      schema: undefined
    })
    for (const spec of ["postgres://u:12/x@host/db", "postgres://@h/db", "postgres://[::1/db"]) {
      const parsed = PostgresSpec.parse(spec)
      expect(parsed._tag, spec).toBe("Invalid")
      expect(JSON.stringify(parsed), spec).not.toContain("x@host")
    }
    expect(PostgresSpec.parse("postgres://h/db?schema=a&schema=b")).toMatchObject({ reason: "InvalidSchema" })
    expect(PostgresSpec.parse("postgres://h/db?schema=")).toMatchObject({ reason: "InvalidSchema" })
  })

  it("answers as DatabaseSpec does for every Postgres-looking spec", () => {
    const part = fc.stringMatching(/^[a-zA-Z0-9@:/?#&=%._\-[\]]{0,12}$/)
    const spec = fc.tuple(fc.constantFrom("postgres://", "postgresql://", "POSTGRES://"), part, part, part)
      .map(([scheme, a, b, c]) => `${scheme}${a}@${b}/${c}`)
    fc.assert(fc.property(fc.oneof(spec, part.map((text) => `postgres://${text}`)), (text) => {
      expect(PostgresSpec.isPostgres(text)).toBe(true)
      expect(PostgresSpec.parse(text)).toEqual(viaDatabaseSpec(text))
    }))
  })

  it("accepts the schema names a store accepts", () => {
    for (const name of ["public", "_x", "hub_2", "a".repeat(63)]) {
      expect(PostgresSpec.isSchemaName(name), name).toBe(true)
    }
    for (const name of ["", "Hub", "2x", "a-b", "a".repeat(64), "a b"]) {
      expect(PostgresSpec.isSchemaName(name), name).toBe(false)
    }
  })
})
