/**
 * `Redact`: private parts removed and secrets in common shapes replaced, wherever they are planted
 * in any text; text without them unchanged; idempotent; JSON values walked, keys included.
 */
import { Redact } from "@acx/convert"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const alnum = (length: number) =>
  fc.array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), {
    minLength: length,
    maxLength: length
  }).map((chars) => chars.join(""))

/** A secret of each shape, random where the shape allows. */
const secret = fc.oneof(
  alnum(40).map((s) => `sk-ant-api03-${s}`),
  alnum(48).map((s) => `sk-proj-${s}`),
  alnum(36).map((s) => `ghp_${s}`),
  alnum(24).map((s) => `xoxb-1234-${s}`),
  alnum(35).map((s) => `AIza${s}`),
  alnum(16).map((s) => `AKIA${s.toUpperCase()}`),
  fc.tuple(alnum(20), alnum(30), alnum(40)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  alnum(40).map((s) => `Bearer ${s}`),
  alnum(64).map((s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`)
)

/** Prose that looks like nothing secret (no long tokens, no secret-named assignments). */
const prose = fc.array(fc.constantFrom("the", "cart", "total", "fix", "test", "ok", "a.ts", "42", "\n", " ", "="), {
  maxLength: 20
}).map((words) => words.join(" "))

describe("Redact", () => {
  it("redacts each shape, keeping a Bearer prefix and an env line's name", () => {
    expect(Redact.text("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 end")).toBe("key [REDACTED:anthropic-key] end")
    expect(Redact.text("Authorization: Bearer abcdefghijklmnop1234.xyz")).toBe(
      "Authorization: Bearer [REDACTED:bearer-token]"
    )
    expect(Redact.text("ANTHROPIC_API_KEY=sk-123\nexport DB_PASSWORD = hunter2 # prod\nPORT=8080")).toBe(
      "ANTHROPIC_API_KEY=[REDACTED:env-secret]\nexport DB_PASSWORD = [REDACTED:env-secret]\nPORT=8080"
    )
    expect(Redact.text("monkey: banana\nsecret_sauce = ketchup")).toBe("monkey: banana\nsecret_sauce = ketchup")
    expect(Redact.text("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")).toBe(
      "[REDACTED:private-key]"
    )
  })

  it("removes <private> parts, an unclosed one to the end", () => {
    expect(Redact.text("keep <private>my address</private> this <PRIVATE>\nsecret\n</Private>!")).toBe("keep  this !")
    expect(Redact.text("a <private>never closed, all gone")).toBe("a ")
  })

  it("walks JSON values, keys included, and bounds the depth", () => {
    const input = { command: "curl -H 'Authorization: Bearer abcdefghijklmnopqrstu'", env: ["TOKEN=abc"], n: 1 }
    expect(Redact.value(input)).toEqual({
      command: "curl -H 'Authorization: Bearer [REDACTED:bearer-token]'",
      env: ["TOKEN=[REDACTED:env-secret]"],
      n: 1
    })
    let deep: unknown = "x"
    for (let i = 0; i < 100; i++) deep = [deep]
    expect(JSON.stringify(Redact.value(deep))).toContain("[REDACTED:too-deep]")
    const proto = JSON.parse("{\"__proto__\": \"sk-ant-api03-abcdefghijklmnopqrstuvwxyz\"}") as object
    expect(Object.getOwnPropertyNames(Redact.value(proto))).toEqual(["__proto__"])
  })

  it("property: a planted secret never survives, wherever it is; redacting again changes nothing", () => {
    fc.assert(
      fc.property(prose, secret, prose, (before, planted, after) => {
        const input = `${before} ${planted} ${after}`
        const out = Redact.text(input)
        // every random part of the secret is gone
        for (const part of planted.split(/[\s.\-_]+/).filter((p) => p.length >= 16)) expect(out).not.toContain(part)
        expect(out).toContain("[REDACTED:")
        expect(Redact.text(out)).toBe(out)
      }),
      { numRuns: 500 }
    )
  })

  it("property: text without secrets or private parts is unchanged; any string is handled", () => {
    fc.assert(
      fc.property(prose, (input) => {
        expect(Redact.text(input)).toBe(input)
      }),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(fc.string(), (input) => {
        const out = Redact.text(input)
        expect(Redact.text(out)).toBe(out)
      }),
      { numRuns: 300 }
    )
  })
})

describe("Redact.maskEntry", () => {
  const key = "sk-ant-api03-" + "aZ0".repeat(12)
  it("masks every string and key of an entry, as the page's mask does, and counts the secrets", () => {
    const entry = {
      type: "user",
      message: { content: [{ type: "text", text: `use ${key} and ${key}` }], [`x${key}`]: "k" }
    }
    const { masked, value } = Redact.maskEntry(entry)
    expect(masked).toBe(3)
    expect(JSON.stringify(value)).not.toContain(key)
    expect(value).toEqual(Redact.mapStrings(entry, Redact.redactSecrets))
  })

  it("gives an entry without a secret back as itself; masking twice masks nothing more", () => {
    const entry = { type: "assistant", message: { content: "nothing to hide" } }
    expect(Redact.maskEntry(entry)).toEqual({ value: entry, masked: 0 })
    expect(Redact.maskEntry(entry).value).toBe(entry)
    const once = Redact.maskEntry({ type: "user", text: key }).value
    expect(Redact.maskEntry(once)).toEqual({ value: once, masked: 0 })
  })

  it("walks as deep as a stored entry may be, where the page's walk stops at 64 levels", () => {
    let deep: unknown = `key ${key}`
    for (let i = 0; i < 200; i++) deep = { d: deep }
    const { masked, value } = Redact.maskEntry({ type: "user", deep })
    expect(masked).toBe(1)
    expect(JSON.stringify(value)).toContain("[REDACTED:anthropic-key]")
    expect(JSON.stringify(value)).not.toContain("too-deep")
  })
})
