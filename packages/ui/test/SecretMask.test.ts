import * as Redact from "@acx/convert/Redact"
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as SecretMask from "../src/SecretMask.js"

const SECRET = "sk-ant-api03-" + "Q".repeat(40)

// JSON values with the secret planted anywhere: in strings, in keys, inside longer text
const withSecret = fc.letrec((tie) => ({
  text: fc.oneof(
    fc.string(),
    fc.tuple(fc.string(), fc.string()).map(([before, after]) => `${before} ${SECRET} ${after}`)
  ),
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, 1.5),
    tie("text"),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(tie("text") as fc.Arbitrary<string>, tie("value"), { maxKeys: 4 })
  )
})).value

describe("SecretMask", () => {
  it("maskText, remembered or not, is the redactor's mask: the same text the first time and every time after", () => {
    const text = fc.oneof(
      fc.string(),
      fc.tuple(fc.string(), fc.string()).map(([before, after]) => `${before} ${SECRET} ${after}`),
      // longer than what is remembered
      fc.string().map((tail) => `password=${"x".repeat(5000)} ${SECRET} ${tail}`)
    )
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), (texts) => {
        for (const round of [0, 1]) {
          for (const item of texts) {
            expect({ round, masked: SecretMask.maskText(item) }).toEqual({
              round,
              masked: Redact.redactSecrets(item)
            })
          }
        }
      })
    )
    // a row with a key named __proto__ stays data (the fast assignment is not used for it)
    const masked = SecretMask.maskValue(JSON.parse(`{"__proto__": "${SECRET}", "a": ["${SECRET}"]}`)) as object
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype)
    expect(Object.keys(masked)).toEqual(["__proto__", "a"])
    expect(JSON.stringify(masked)).not.toContain(SECRET)
  })

  it("shown(true) leaves no secret in any string or key of a value; shown(false) gives the value back", () => {
    fc.assert(
      fc.property(withSecret, (value) => {
        expect(JSON.stringify(SecretMask.shown(true)(value)) ?? "").not.toContain(SECRET)
        expect(SecretMask.shown(false)(value)).toBe(value)
      })
    )
  })

  it("maskJsonText keeps a JSON line valid JSON with no secret, escaped or not", () => {
    fc.assert(
      fc.property(withSecret, (value) => {
        const line = JSON.stringify(value)
        const masked = SecretMask.maskJsonText(line)
        expect(JSON.parse(masked)).toEqual(SecretMask.maskValue(JSON.parse(line)))
        expect(masked).not.toContain(SECRET)
      })
    )
    // written with escapes, the secret is still found (the text mask alone would miss it)
    const escaped = `{"text":"${SECRET.replace("-", "\\u002d")}"}`
    expect(SecretMask.maskText(escaped)).toBe(escaped)
    expect(JSON.parse(SecretMask.maskJsonText(escaped))).toEqual({ text: "[REDACTED:anthropic-key]" })
  })

  it("maskJsonText gives a line without a secret back byte for byte, and masks a line that is not JSON as text", () => {
    fc.assert(
      fc.property(fc.json(), (line) => {
        const spaced = line.replace(/^\{/, "{ ")
        if (SecretMask.maskJsonText(spaced) !== spaced) {
          expect(JSON.stringify(SecretMask.maskValue(JSON.parse(spaced)))).not.toBe(JSON.stringify(JSON.parse(spaced)))
        }
      })
    )
    expect(SecretMask.maskJsonText(`{"a": 1.0,  "b": "\\u0041"}`)).toBe(`{"a": 1.0,  "b": "\\u0041"}`)
    expect(SecretMask.maskJsonText(`{"torn": "${SECRET}`)).toBe(`{"torn": "[REDACTED:anthropic-key]`)
  })
})
