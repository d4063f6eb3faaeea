/**
 * `Redact.redactSecrets` skips, by a pre-scan of literal anchors, every rule a text cannot match
 * (most text holds no secret). The skip must never change an output: the redactor here equals the
 * same rules applied unconditionally — the reference below, the redactor as it was before the
 * pre-scan, kept only in this file (its shapes are the exported `SECRET_PATTERNS`; its other
 * rules are copied verbatim, and the fingerprint check makes a change to them fail here first).
 */
import { Redact } from "@acx/convert"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

// --- the reference: every rule, unconditionally (the pre-scan's only allowed skip is `hint`) ---
const marker = (kind: string) => `[REDACTED:${kind}]`
const JWT_SEGMENT = /^[A-Za-z0-9_-]{8,}$/
const isJwtAt = (segments: ReadonlyArray<string>, i: number, start: number): boolean =>
  start >= 0 && i + 2 < segments.length && JWT_SEGMENT.test(segments[i]!.slice(start + 3)) &&
  segments[i + 1]!.startsWith("eyJ") && JWT_SEGMENT.test(segments[i + 1]!.slice(3)) &&
  JWT_SEGMENT.test(segments[i + 2]!)
const redactJwt = (run: string): string => {
  const segments = run.split(".")
  const out: Array<string> = []
  for (let i = 0; i < segments.length; i++) {
    const start = segments[i]!.indexOf("eyJ")
    if (isJwtAt(segments, i, start)) {
      out.push(`${segments[i]!.slice(0, start)}${marker("jwt")}`)
      i += 2
    } else {
      out.push(segments[i]!)
    }
  }
  return out.join(".")
}
const referenceShapes = (text: string): string => {
  let out = text
  for (const { accept, hint, kind, pattern } of Redact.SECRET_PATTERNS) {
    if (hint !== undefined && !out.includes(hint)) continue
    out = out.replace(pattern, (whole: string, prefix: unknown) => {
      if (kind === "jwt") return redactJwt(whole)
      if (accept !== undefined && !accept(whole)) return whole
      return typeof prefix === "string" ? `${prefix}${marker(kind)}` : marker(kind)
    })
  }
  return out
}
const KEY_VALUE = new RegExp(
  String
    .raw`(password|passwd|passphrase|[_.-]pwd|secret|token|credentials?|(?:api|access|secret|private|signing|encryption|master|account)[_.-]?key)` +
    String.raw`((?:\\?["']|%2[27])?(?:[ \t+]|%20){0,16}(?:=|:|%3[AaDd])(?:[ \t+]|%20){0,16})` +
    String
      .raw`(?!(?:[ \t+]|%20)*(?:\\?["']|%2[27])?\[REDACTED)(?:(\\?["']|%2[27])([^\n]{1,256}?)\3|(\\?["']?)[^\s"'&,;)}\]]+)`,
  "gi"
)
const LINE_REST = String.raw`(?:[^\r\n\\]|\\(?!n))`
const lineRule = (body: string) => ({
  plain: new RegExp(`^${body}`, "gm"),
  escaped: new RegExp(String.raw`(?:^|(?<=\\n))${body}`, "gm")
})
const ENV_LINE = lineRule(
  String.raw`([ \t"']*(?:export[ \t]+)?)([A-Z_][A-Z0-9_]*)([ \t]*[=:][ \t]*)(?!\[REDACTED)` +
    String.raw`(?:[^\s\\]|\\(?!n))${LINE_REST}*`
)
const ENV_SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH/
const PGPASS_LINE = lineRule(
  String.raw`([ \t"']*[^:\s"']+:(?:\d+|\*):[^:\s]+:[^:\s]+:)(?!\[REDACTED)${LINE_REST}+`
)
const NETRC_LINE = lineRule(String.raw`[ \t"']*(?:machine|default|login|password|passwd|account)[ \t]${LINE_REST}*`)
const NETRC_PASSWORD = /(^|[ \t"'])(password|passwd)([ \t]+)(?![=:]|\[REDACTED)(\S+)/g
const referenceLines = (text: string): string => {
  const rule = text.includes("\\n") ? "escaped" : "plain"
  return text
    .replace(
      ENV_LINE[rule],
      (line, before: string, name: string, separator: string) =>
        ENV_SECRET_NAME.test(name) ? `${before}${name}${separator}${marker("env-secret")}` : line
    )
    .replace(PGPASS_LINE[rule], (_line, fields: string) => `${fields}${marker("pgpass")}`)
    .replace(
      NETRC_LINE[rule],
      (line) =>
        line.replace(
          NETRC_PASSWORD,
          (_w, before: string, word: string, gap: string) => `${before}${word}${gap}${marker("netrc")}`
        )
    )
}
const referenceKeyValues = (text: string): string =>
  text.replace(
    KEY_VALUE,
    (_whole, name: string, separator: string, quote: string | undefined, _quoted, open: string | undefined) =>
      quote !== undefined
        ? `${name}${separator}${quote}${marker("credential")}${quote}`
        : `${name}${separator}${open ?? ""}${marker("credential")}`
  )
const reference = (text: string): string => referenceKeyValues(referenceLines(referenceShapes(text)))

// --- the fragments texts are built of ---
const alnum = (length: number) =>
  fc.array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), {
    minLength: length,
    maxLength: length
  }).map((chars) => chars.join(""))

/** Every shape the redactor tests plant (Redact, RedactShapes, the CLI's planted secrets). */
const secret: fc.Arbitrary<string> = fc.oneof(
  alnum(40).map((s) => `sk-ant-api03-${s}`),
  alnum(48).map((s) => `sk-proj-${s}`),
  alnum(48).map((s) => `sk-${s}`),
  alnum(36).map((s) => `ghp_${s}`),
  alnum(36).map((s) => `github_pat_${s}`),
  alnum(24).map((s) => `xoxb-1234-${s}`),
  alnum(35).map((s) => `AIza${s}`),
  alnum(16).map((s) => `AKIA${s.toUpperCase()}`),
  alnum(16).map((s) => `ASIA${s.toUpperCase()}`),
  fc.tuple(alnum(20), alnum(30), alnum(40)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  alnum(40).map((s) => `Authorization: Bearer ${s}`),
  alnum(24).map((s) => `Authorization: Basic ${s}==`),
  alnum(24).map((s) => `authorization%3D%22basic%20${s}`),
  alnum(64).map((s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`),
  alnum(64).map((s) => `-----BEGIN%20RSA%20PRIVATE+KEY-----${s}`),
  alnum(20).map((s) => `postgres://app:${s}@db.example.com:5432/app`),
  alnum(20).map((s) => `https%3A%2F%2Fapp%3A${s}%40host`),
  alnum(16).map((s) => `aws_secret_access_key = ${s}`),
  alnum(16).map((s) => `export GITHUB_AUTH=${s}`),
  alnum(16).map((s) => `db.example.com:5432:app:alice:${s}`),
  alnum(16).map((s) => `*:*:app:alice:${s}`),
  alnum(16).map((s) => `machine api.example.com login alice password ${s}`),
  alnum(16).map((s) => `  password ${s}`),
  alnum(16).map((s) => `default login bob passwd ${s}`),
  alnum(16).map((s) => `"db_password": "${s}"`),
  alnum(16).map((s) => `api_token%3D${s}`)
)

/** Pieces of the shapes and near misses: anchors without the rest, the rest without anchors. */
const nearMiss = fc.constantFrom(
  "sk-",
  "sk-ant",
  "sk-ant-",
  "sk-proj-",
  "task-management-system-design",
  "gh",
  "ghp_",
  "gho_x",
  "github_pat",
  "xox",
  "xoxz-",
  "AIza",
  "AKIA",
  "ASIAabc",
  "akia",
  "eyJ",
  "eyJ.eyJ.",
  ".",
  "..",
  "Bearer ",
  "bearer ",
  "BEARER",
  "Authorization",
  "AUTHORIZATION",
  "Authorization: ",
  "Basic ",
  "=basic ",
  "-----BEGIN",
  "-----begin",
  "PRIVATE KEY-----",
  "-----END RSA PRIVATE KEY-----",
  "://",
  "://u:",
  "@",
  "%3A%2F%2F",
  "%3a%2f%2f",
  "%40",
  "%3A",
  "%3d",
  "%20",
  "%22",
  "+",
  "password",
  "PASSWORD",
  "Password",
  "passwd",
  "passphrase",
  "_pwd",
  "pwd",
  "PWD",
  "secret",
  "SECRET",
  "Secret",
  "token",
  "TOKEN",
  "max_tokens",
  "credentials",
  "CREDENTIAL",
  "api_key",
  "API-KEY",
  "ApiKey",
  "KEY",
  "key",
  "AUTH",
  "auth",
  "export ",
  "machine ",
  "login ",
  "default ",
  "account ",
  "=",
  ":",
  ": ",
  " = ",
  "\"",
  "'",
  "\\\"",
  "\\'",
  "\n",
  "\\n",
  "\r\n",
  "\t",
  " ",
  "5432",
  ":5432:",
  ":*:",
  "[REDACTED:x]",
  "[REDACTED",
  "DB_",
  "_",
  "-",
  "/",
  "\\",
  "ſ",
  "\u212A",
  "İ",
  "ı",
  "é",
  "ß",
  "😀",
  "\u0000"
)

/** A fragment in its own case, or with its letters' case changed. */
const recased = (fragment: fc.Arbitrary<string>) =>
  fc.tuple(fragment, fc.constantFrom("same", "upper", "lower", "swap")).map(([text, how]) =>
    how === "upper"
      ? text.toUpperCase()
      : how === "lower"
      ? text.toLowerCase()
      : how === "swap"
      ? [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("")
      : text
  )

const fragment = fc.oneof(
  { arbitrary: recased(secret), weight: 3 },
  { arbitrary: recased(nearMiss), weight: 6 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 8 }), weight: 1 },
  { arbitrary: alnum(20), weight: 1 }
)

const text = fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join(""))

describe("Redact pre-scan", () => {
  it("pins the rules the reference copies: a changed rule must be copied here too", () => {
    expect(Redact.RULES_FINGERPRINT).toBe("cb7f9e3d")
  })

  it("property: redactSecrets equals every rule applied unconditionally", () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(Redact.redactSecrets(input)).toBe(reference(input))
      }),
      { numRuns: 20_000 }
    )
  })

  it("property: maskEntry equals a full copy with every string masked, sharing what holds no secret", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { arbitrary: text, weight: 4 },
        { arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)), weight: 1 },
        { arbitrary: fc.array(tie("value"), { maxLength: 4 }), weight: 1 },
        { arbitrary: fc.dictionary(text, tie("value"), { maxKeys: 4 }), weight: 2 }
      )
    })).value
    fc.assert(
      fc.property(json, (input) => {
        const { masked, value } = Redact.maskEntry(input)
        const copy = Redact.mapStrings(input, Redact.redactSecrets, 0, undefined, 10_000)
        expect(value).toStrictEqual(copy)
        expect(JSON.stringify(value)).toBe(JSON.stringify(copy))
        if (masked === 0) expect(value).toBe(input)
        else expect(value).not.toBe(input)
      }),
      { numRuns: 2_000 }
    )
    const clean = { usage: { input_tokens: 3 }, content: ["no secret here"] }
    const entry = { ...clean, text: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123" }
    const { masked, value } = Redact.maskEntry(entry)
    expect(masked).toBe(1)
    expect(value).toEqual({ ...clean, text: "[REDACTED:anthropic-key]" })
    expect(value.usage).toBe(clean.usage)
    expect(value.content).toBe(clean.content)
    expect(Redact.maskEntry(clean).value).toBe(clean)
  })

  it("prose that says token or key without a separator or a shape comes back as itself; with one, masked", () => {
    const prose = "rotate the token and the api key before the secret credential review"
    expect(Redact.redactSecrets(prose)).toBe(prose)
    expect(Redact.redactSecrets(`${prose} token=abc123`)).toBe(`${prose} token=[REDACTED:credential]`)
    expect(Redact.redactSecrets(`${prose}\npassword hunter22`)).toBe(`${prose}\npassword [REDACTED:netrc]`)
    expect(Redact.redactSecrets(`${prose} AKIA${"A1".repeat(8)}`)).toBe(`${prose} [REDACTED:aws-access-key]`)
  })

  it("a text with no anchor comes back as itself; one with a secret is still masked", () => {
    const plain = "the cart total was wrong because the discount applied twice; see src/cart.ts:42"
    expect(Redact.redactSecrets(plain)).toBe(plain)
    expect(Redact.redactSecrets(`${plain} ghp_${"aZ0".repeat(12)}`)).toBe(`${plain} [REDACTED:github-token]`)
  })
})
