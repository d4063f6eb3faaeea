import * as Pricing from "@acx/convert/Pricing"
import * as PricingFile from "@acx/convert/PricingFile"
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"

const table = Pricing.builtinPricing
const ids = Object.keys(table.models)

/** The ways providers and Claude Code decorate a model id. */
const decorated = fc.tuple(
  fc.constantFrom(...ids),
  fc.constantFrom("", "-20250929", "-20241022", "-latest"),
  fc.constantFrom("", "[1m]", "[2m]", "[1M]"),
  fc.constantFrom("", "anthropic/", "us.anthropic.", "global.anthropic.", "eu.anthropic."),
  fc.constantFrom("", "-v1:0", "-v2"),
  fc.boolean(),
  fc.constantFrom("", " ")
).map(([id, date, window, prefix, version, upper, space]) => {
  const body = prefix.includes("anthropic.") ? `${prefix}${id}${date}${version}` : `${prefix}${id}${date}`
  const text = `${space}${body}${window}${space}`
  return { id, text: upper ? text.toUpperCase() : text }
})

const usage = (over: Partial<Pricing.ResponseUsage>): Pricing.ResponseUsage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  webSearchRequests: 0,
  fast: false,
  inferenceGeoUs: false,
  ...over
})

describe("normaliseModelId", () => {
  it("keeps the names of Object.prototype's members as they are", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(Pricing.normaliseModelId(name)).toBe(name.toLowerCase())
    }
  })

  it("is total and idempotent on any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        const once = Pricing.normaliseModelId(text)
        expect(typeof once).toBe("string")
        expect(Pricing.normaliseModelId(once)).toBe(once)
      }),
      { numRuns: 3_000 }
    )
    fc.assert(
      fc.property(decorated, ({ text }) => {
        const once = Pricing.normaliseModelId(text)
        expect(Pricing.normaliseModelId(once)).toBe(once)
      })
    )
  })

  it("maps every dated, [1m], Bedrock, Vertex, gateway and case variant of a listed id to it", () => {
    fc.assert(
      fc.property(decorated, ({ id, text }) => {
        expect(Pricing.normaliseModelId(text)).toBe(id)
      }),
      { numRuns: 2_000 }
    )
    for (const id of ids) expect(Pricing.normaliseModelId(id)).toBe(id)
  })

  it("the ids the API and the providers really use", () => {
    expect(Pricing.normaliseModelId("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5")
    expect(Pricing.normaliseModelId("claude-sonnet-4-20250514")).toBe("claude-sonnet-4-0")
    expect(Pricing.normaliseModelId("claude-opus-4-20250514")).toBe("claude-opus-4-0")
    expect(Pricing.normaliseModelId("claude-opus-4-6[1m]")).toBe("claude-opus-4-6")
    expect(Pricing.normaliseModelId("us.anthropic.claude-3-5-haiku-20241022-v1:0")).toBe("claude-3-5-haiku")
    expect(Pricing.normaliseModelId("claude-3-5-haiku@20241022")).toBe("claude-3-5-haiku")
    expect(Pricing.normaliseModelId("anthropic/claude-haiku-4-5")).toBe("claude-haiku-4-5")
    expect(Pricing.normaliseModelId("claude-3-5-sonnet-latest")).toBe("claude-3-5-sonnet")
  })
})

describe("ratesFor", () => {
  it("knows the models of the table under any of their names", () => {
    fc.assert(fc.property(decorated, ({ id, text }) => {
      expect(Pricing.ratesFor(table, text)).toBe(table.models[id])
    }))
  })

  it("has no price for a model it does not know (unpriced, never $0), nor for object keys", () => {
    for (const model of ["gpt-4o", "claude-double", "", "<synthetic>", "__proto__", "constructor", "toString"]) {
      expect(Pricing.ratesFor(table, model)).toBeUndefined()
    }
  })

  it("prices haiku-4-5 at $1 / $5 per MTok as Claude Code 2.1.330 does, sonnet-4-5 at $3 / $15", () => {
    expect(Pricing.ratesFor(table, "claude-haiku-4-5-20251001")).toMatchObject({
      input: 1,
      output: 5,
      cacheWrite5m: 1.25,
      cacheWrite1h: 2,
      cacheRead: 0.1
    })
    expect(Pricing.ratesFor(table, "claude-sonnet-4-5")).toMatchObject({
      input: 3,
      output: 15,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      cacheRead: 0.3
    })
  })
})

describe("costOfResponse", () => {
  const sonnet = table.models["claude-sonnet-4-5"]!

  it("prices each kind of token at its rate; 1-hour cache writes apart from 5-minute ones", () => {
    // 1000 × 3 + 100 × 15 + 2000 × 0.30 + 300 × 3.75 + 200 × 6 (µ$)
    const cost = Pricing.costOfResponse(
      sonnet,
      usage({ input: 1000, output: 100, cacheRead: 2000, cacheWrite: 500, cacheWrite1h: 200 })
    )
    expect(cost).toBeCloseTo((3000 + 1500 + 600 + 1125 + 1200) / 1e6, 15)
  })

  it("reads usage as the API writes it: cache_creation split, 1h capped at the total, junk as 0", () => {
    expect(Pricing.responseUsage({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 100,
      cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
      server_tool_use: { web_search_requests: 2 }
    })).toEqual(usage({ input: 10, output: 5, cacheRead: 7, cacheWrite: 100, cacheWrite1h: 60, webSearchRequests: 2 }))
    expect(
      Pricing.responseUsage({ cache_creation_input_tokens: 10, cache_creation: { ephemeral_1h_input_tokens: 99 } })
    )
      .toMatchObject({ cacheWrite: 10, cacheWrite1h: 10 })
    for (const junk of [null, 3, "x", [], { input_tokens: "9", output_tokens: -1, cache_read_input_tokens: NaN }]) {
      expect(Pricing.responseUsage(junk)).toEqual(usage({}))
    }
  })

  it("the long-prompt tier above its threshold, fast rates, US inference, web searches", () => {
    const haiku55 = table.models["claude-haiku-5-5"]!
    expect(Pricing.costOfResponse(haiku55, usage({ input: 100_000 }))).toBeCloseTo(0.01, 15)
    // above 100 000 prompt tokens (input + cache), every token at the long-prompt rates
    expect(Pricing.costOfResponse(haiku55, usage({ input: 90_000, cacheRead: 20_000, output: 1000 })))
      .toBeCloseTo((90_000 * 0.5 + 20_000 * 0.05 + 1000 * 2.5) / 1e6, 15)
    const opus46 = table.models["claude-opus-4-6"]!
    expect(Pricing.costOfResponse(opus46, usage({ input: 1e6, fast: true }))).toBeCloseTo(30, 12)
    expect(Pricing.costOfResponse(sonnet, usage({ input: 1e6, fast: true }))).toBeCloseTo(3, 12)
    expect(Pricing.costOfResponse(sonnet, usage({ input: 1e6, inferenceGeoUs: true, webSearchRequests: 3 })))
      .toBeCloseTo(3.3 + 0.03, 12)
  })

  it("is never negative or NaN for any usage object", () => {
    const figure = fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null))
    fc.assert(
      fc.property(
        fc.constantFrom(...ids),
        fc.record({
          input_tokens: figure,
          output_tokens: figure,
          cache_read_input_tokens: figure,
          cache_creation_input_tokens: figure,
          cache_creation: fc.record({ ephemeral_1h_input_tokens: figure, ephemeral_5m_input_tokens: figure }),
          speed: fc.constantFrom("fast", "standard", 3),
          inference_geo: fc.constantFrom("us", "global", null)
        }),
        (id, raw) => {
          const cost = Pricing.costOfResponse(table.models[id]!, Pricing.responseUsage(raw))
          expect(Number.isFinite(cost) && cost >= 0).toBe(true)
        }
      )
    )
  })
})

describe("PricingFile.decode", () => {
  it("overrides a model and adds one; missing cache rates follow the input price", () => {
    const text = JSON.stringify({
      models: {
        "claude-sonnet-4-5-20250929": { input: 2, output: 10, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2 },
        "my-model": { input: 1, output: 2 }
      }
    })
    const decoded = Either.getOrThrow(PricingFile.decode(table, text, "pricing.json"))
    expect(Pricing.ratesFor(decoded, "claude-sonnet-4-5")).toMatchObject({ input: 2, output: 10, cacheRead: 0.2 })
    expect(Pricing.ratesFor(decoded, "MY-MODEL")).toEqual({
      input: 1,
      output: 2,
      cacheWrite5m: 1.25,
      cacheWrite1h: 2,
      cacheRead: 0.1,
      webSearch: 0.01
    })
    expect(Pricing.ratesFor(decoded, "claude-haiku-4-5")).toBe(table.models["claude-haiku-4-5"])
    expect(decoded.source).toContain("pricing.json")
    expect(Pricing.fingerprint(decoded)).not.toBe(Pricing.fingerprint(table))
  })

  it("a bad file is one PricingError naming the file and what is wrong", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["{", "InvalidJson", "not JSON"],
      ["[]", "InvalidShape", "Expected"],
      [JSON.stringify({ models: { x: { input: -1, output: 1 } } }), "InvalidShape", "input"],
      [JSON.stringify({ models: { x: { input: 1 } } }), "InvalidShape", "output"],
      [JSON.stringify({ models: { x: { input: 1, output: 1, cachewrite: 2 } } }), "InvalidShape", "cachewrite"],
      [JSON.stringify({ model: {} }), "InvalidShape", "models"]
    ]
    for (const [text, reason, mentions] of cases) {
      const error = Either.getLeft(PricingFile.decode(table, text, "/home/u/.acx/pricing.json"))
      expect(error._tag, text).toBe("Some")
      if (error._tag !== "Some") continue
      expect(error.value.reason, text).toBe(reason)
      expect(error.value.message, text).toContain("/home/u/.acx/pricing.json")
      expect(error.value.message, text).toContain(mentions)
      expect(error.value.message).not.toContain("\n")
    }
  })
})
