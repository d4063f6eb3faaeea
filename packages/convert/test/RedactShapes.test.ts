/**
 * `Redact` against the shapes that leaked (issue 21): secrets glued to other text, credential
 * files, secret-named keys in env/ini/yaml/toml lines, `Authorization: Basic`, URLs with a
 * password, and `<private>` parts that only appear once another one is removed. Each shape is
 * planted glued to arbitrary text, URL-encoded, JSON-escaped and inside nested tags; the output
 * must hold none of its random part, and redacting again must change nothing. Pathological inputs
 * of a few hundred kilobytes must not make the scan quadratic (the hook redacts every input).
 */
import { Redact } from "@acx/convert"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A random token that always looks random: a digit, an upper- and a lower-case letter. */
const core = (length: number) =>
  fc.array(fc.constantFrom(...ALNUM), { minLength: length, maxLength: length }).map((chars) => `Q7x${chars.join("")}`)

const upper = (length: number) =>
  fc.array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), { minLength: length, maxLength: length })
    .map((chars) => chars.join(""))

/** A planted secret: the text, and its random part (which must not survive). */
interface Planted {
  readonly text: string
  readonly secret: string
  /** A line of a credential file: it is planted on a line of its own. */
  readonly line: boolean
}

const inline = (secret: string, text: string): Planted => ({ text, secret, line: false })
const line = (secret: string, text: string): Planted => ({ text, secret, line: true })

const SECRET_KEYS = [
  "password",
  "db_password",
  "api_token",
  "aws_secret_access_key",
  "client_secret",
  "Password",
  "DB_PASSWORD",
  "token",
  "api-key"
]

/** One of every shape the redactor promises. */
const planted: fc.Arbitrary<Planted> = fc.oneof(
  core(40).map((s) => inline(s, `sk-ant-api03-${s}`)),
  core(48).map((s) => inline(s, `sk-proj-${s}`)),
  core(48).map((s) => inline(s, `sk-${s}`)),
  core(36).map((s) => inline(s, `ghp_${s}`)),
  core(24).map((s) => inline(s, `xoxb-1234-${s}`)),
  core(32).map((s) => inline(s, `AIza${s}`)),
  upper(16).map((s) => inline(s, `AKIA${s}`)),
  fc.tuple(core(20), core(30), core(40)).map(([a, b, c]) => inline(c, `eyJ${a}.eyJ${b}.${c}`)),
  core(40).map((s) => inline(s, `Authorization: Bearer ${s}`)),
  core(24).map((s) => inline(s, `Authorization: Basic ${s}==`)),
  core(64).map((s) => inline(s, `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`)),
  core(20).map((s) => inline(s, `postgres://app:${s}@db.example.com:5432/app`)),
  fc.tuple(fc.constantFrom(...SECRET_KEYS), fc.constantFrom("=", ": ", " = ", "="), core(16)).map(
    ([key, separator, s]) => inline(s, `${key}${separator}${s}`)
  ),
  fc.tuple(fc.constantFrom(...SECRET_KEYS), fc.constantFrom("\"", "'"), core(16)).map(([key, quote, s]) =>
    inline(s, `${key} = ${quote}${s} ${s}${quote}`)
  ),
  core(16).map((s) => line(s, `aws_secret_access_key = ${s}`)),
  core(16).map((s) => line(s, `export GITHUB_AUTH=${s}`)),
  core(16).map((s) => line(s, `db.example.com:5432:app:alice:${s}`)),
  core(16).map((s) => line(s, `machine api.example.com login alice password ${s}`)),
  core(16).map((s) => line(s, `  password ${s}`))
)

/** The planted text in its place: glued to the text around it, or on a line of its own. */
const plant = (before: string, secret: Planted, after: string): string =>
  secret.line ? `${before}\n${secret.text}\n${after}` : `${before}${secret.text}${after}`

const expectGone = (output: string, secret: Planted) => {
  expect(output).not.toContain(secret.secret)
  expect(Redact.text(output)).toBe(output)
}

describe("Redact: the shapes of issue 21", () => {
  it("redacts secrets glued to other text", () => {
    const key = "sk-ant-api03-Abc123def456ghi789jkl012mno345"
    for (const glued of [`key%3D${key}`, `X_${key}`, `ANSI${key}`, `\u001b[0m${key}`]) {
      expect(Redact.text(glued)).not.toContain("Abc123def456")
    }
    expect(Redact.text(`X_${key}`)).toBe("X_[REDACTED:anthropic-key]")
  })

  it("redacts credential files and secret-named keys, keeping the names", () => {
    const aws =
      "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    expect(Redact.text(aws)).toBe(
      "[default]\naws_access_key_id = [REDACTED:aws-access-key]\naws_secret_access_key = [REDACTED:credential]"
    )
    expect(Redact.text("password=hunter2\ndb_password: s3cr3t\napi_token = \"two words\"")).toBe(
      "password=[REDACTED:credential]\ndb_password: [REDACTED:credential]\napi_token = \"[REDACTED:credential]\""
    )
    expect(Redact.text("machine example.com login me password pa55\n  password other")).toBe(
      "machine example.com login me password [REDACTED:netrc]\n  password [REDACTED:netrc]"
    )
    expect(Redact.text("db.example.com:5432:app:alice:s3cret")).toBe("db.example.com:5432:app:alice:[REDACTED:pgpass]")
    expect(Redact.text("curl -H 'Authorization: Basic dXNlcjpwYXNz'")).toBe(
      "curl -H 'Authorization: Basic [REDACTED:basic-auth]'"
    )
    expect(Redact.text("postgres://u:pw@host/db https://a:b%40c@x.org/")).toBe(
      "postgres://u:[REDACTED:url-password]@host/db https://a:[REDACTED:url-password]@x.org/"
    )
  })

  it("leaves prose that only resembles a secret alone", () => {
    for (
      const prose of [
        "monkey: banana\nsecret_sauce = ketchup",
        "max_tokens=4096 tokens: 12",
        "task-management-system-design and disk-usage-monitoring-tool",
        "Basic authentication is explained below",
        "see https://example.com:8080/path and a:b@c",
        "pwd: /home/dev/app"
      ]
    ) {
      expect(Redact.text(prose)).toBe(prose)
    }
  })

  it("replaces the values of secret-named keys in JSON, whatever their shape", () => {
    expect(Redact.value({ password: "hunter2", env: { GITHUB_TOKEN: "abc" }, max_tokens: 5, pin: { db_pwd: 1234 } }))
      .toEqual({
        password: "[REDACTED:credential]",
        env: { GITHUB_TOKEN: "[REDACTED:credential]" },
        max_tokens: 5,
        pin: { db_pwd: "[REDACTED:credential]" }
      })
    expect(Redact.value({ pwd: "/home/dev/app", db_pwd: "x", usage: { output_tokens: 5 } })).toEqual({
      pwd: "/home/dev/app",
      db_pwd: "[REDACTED:credential]",
      usage: { output_tokens: 5 }
    })
  })

  it("removes <private> to a fixpoint: nested, re-formed and unfinished tags", () => {
    expect(Redact.text("<priv<private>x</private>ate>SECRET</private>")).toBe("")
    expect(Redact.text("a<private>b<private>c</private>SECRET</private>d")).toBe("ad")
    expect(Redact.text("a<pr<priv<private>x</private>ate>y</private>ivate>SECRET</private>d")).toBe("ad")
    expect(Redact.text("a<private x <b>SECRET</private>d")).toBe("ad")
    expect(Redact.text("a <private data=1")).toBe("a ")
    expect(Redact.text("</private> stays, <private/> too")).toBe("</private> stays, <private/> too")
  })

  it("property: a planted secret never survives, glued, URL-encoded or JSON-escaped", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), planted, fc.string({ maxLength: 24 }), (before, secret, after) => {
        const text = plant(before, secret, after)
        expectGone(Redact.text(text), secret)
        // a JSON document's text, as a tool might print it
        expectGone(Redact.text(JSON.stringify({ output: text })), secret)
        if (!secret.line) expectGone(Redact.text(encodeURIComponent(text)), secret)
      }),
      { numRuns: 1500 }
    )
  })

  it("property: a secret inside nested or re-formed <private> tags is gone, tags included", () => {
    const wrap = fc.constantFrom(
      (inner: string) => `<private>${inner}</private>`,
      (inner: string) => `<PRIVATE reason="x">${inner}</Private >`,
      (inner: string) => `<private><private>x</private>${inner}</private>`,
      (inner: string) => `<priv<private>x</private>ate>${inner}</private>`,
      (inner: string) => `<private>${inner}`
    )
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(wrap, { minLength: 1, maxLength: 4 }),
        planted,
        fc.string(),
        (before, wraps, secret, after) => {
          const hidden = wraps.reduce((inner, w) => w(inner), `${secret.text} HIDDEN`)
          const output = Redact.text(`${before.replace(/</g, "")} ${hidden} ${after.replace(/</g, "")}`)
          expectGone(output, secret)
          expect(output).not.toContain("HIDDEN")
          expect(output.toLowerCase()).not.toMatch(/<private[\s>]/)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("property: stripping private parts is idempotent on any mix of tag fragments", () => {
    const fragment = fc.constantFrom(
      "<private>",
      "</private>",
      "<priv",
      "ate>",
      "<",
      ">",
      "x",
      " ",
      "<private ",
      "</pri",
      "vate>"
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }), (fragments) => {
        const out = Redact.stripPrivate(fragments.join(""))
        expect(Redact.stripPrivate(out)).toBe(out)
        expect(out.toLowerCase()).not.toMatch(/<private(\s[^>]*)?>/)
      }),
      { numRuns: 1000 }
    )
  })

  it("stays linear on long adversarial inputs (a quadratic scan would not finish)", () => {
    const adversarial = [
      "eyJ".repeat(100_000),
      "eyJabcdefghij.".repeat(20_000),
      "sk-".repeat(100_000),
      "KEY".repeat(100_000),
      "\n".repeat(300_000),
      "<private ".repeat(30_000),
      "<priv".repeat(50_000) + "<private>x</private>" + "ate>y</private>".repeat(50_000),
      "://a:".repeat(60_000),
      "%3A%2F%2Fa%3A".repeat(20_000),
      "password=\"".repeat(30_000),
      "Authorization: Basic ".repeat(15_000),
      "-----BEGIN AAAA".repeat(20_000),
      "machine password ".repeat(20_000),
      "a\nb:1:c:d:".repeat(30_000)
    ]
    for (const input of adversarial) {
      const out = Redact.text(input)
      expect(Redact.text(out)).toBe(out)
    }
  })
})
