import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Redacted from "effect/Redacted"
import { createHash, createHmac, pbkdf2Sync } from "node:crypto"
import * as HubCredentials from "../src/HubCredentials.js"

const admin = Redacted.make(
  "postgres://admin:Admin%2FSecret@db.example.com:6543/team?sslmode=require&application_name=x"
)

describe("HubCredentials", () => {
  it("a member's URL keeps the server and its parameters, never the admin's name or password", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/),
        FastCheck.constantFrom(undefined, "public", "team_hub"),
        (name, schema) => {
          const password = HubCredentials.generatePassword()
          const url = new URL(Redacted.value(HubCredentials.memberUrl(admin, name, password, schema)))
          expect(url.username).toBe(name)
          expect(decodeURIComponent(url.password)).toBe(Redacted.value(password))
          expect(url.host).toBe("db.example.com:6543")
          expect(url.pathname).toBe("/team")
          expect(url.searchParams.get("sslmode")).toBe("require")
          expect(url.searchParams.get("schema")).toBe(schema === "team_hub" ? "team_hub" : null)
          expect(url.href).not.toContain("Admin")
        }
      )
    )
  })

  it("drops the admin's password parameters", () => {
    const withParameter = Redacted.make(
      "postgres://admin@db/team?password=Secret1&sslpassword=Secret2&sslmode=verify-full"
    )
    const url = Redacted.value(HubCredentials.memberUrl(withParameter, "alice", Redacted.make("pw"), undefined))
    expect(url).not.toContain("Secret")
    expect(url).toContain("sslmode=verify-full")
  })

  it("generates distinct URL-safe passwords of 192 bits", () => {
    const passwords = Array.from({ length: 200 }, () => Redacted.value(HubCredentials.generatePassword()))
    expect(new Set(passwords).size).toBe(200)
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  it("the SCRAM verifier is Postgres' format, and its keys follow RFC 5802 from the password and salt", () => {
    const salt = Buffer.from("0123456789abcdef")
    const verifier = HubCredentials.scramVerifier(Redacted.make("pencil"), salt)
    const match = /^SCRAM-SHA-256\$4096:([^$]+)\$([^:]+):(.+)$/.exec(verifier)!
    expect(Buffer.from(match[1]!, "base64")).toEqual(salt)
    const salted = pbkdf2Sync("pencil", salt, 4096, 32, "sha256")
    const clientKey = createHmac("sha256", salted).update("Client Key").digest()
    expect(match[2]).toBe(createHash("sha256").update(clientKey).digest("base64"))
    expect(match[3]).toBe(createHmac("sha256", salted).update("Server Key").digest("base64"))
    expect(verifier).not.toContain("pencil")
  })

  it("role names: plain identifiers only, pg_ and acx_ reserved", () => {
    expect(Either.isRight(HubCredentials.checkRoleName("laptop_1"))).toBe(true)
    for (const bad of ["", "Alice", "a-b", "1abc", "pg_monitor", "acx_admin", "x".repeat(64), "a\"; DROP ROLE x; --"]) {
      expect(Either.isLeft(HubCredentials.checkRoleName(bad)), bad).toBe(true)
    }
  })
})
