/**
 * Property tests: values generated from the schemas themselves (`Arbitrary.make`) survive
 * encode then decode unchanged, and decode as their own known member through the full unions.
 */
import { ContentBlock, SdkMessage } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Option, Schema, SchemaAST } from "effect"

const roundTrips = <A, I>(schema: Schema.Schema<A, I>, runs = 200): void => {
  const encode = Schema.encodeSync(schema)
  const decode = Schema.decodeUnknownSync(schema)
  fc.assert(
    fc.property(Arbitrary.make(schema), (value) => {
      expect(decode(encode(value))).toEqual(value)
    }),
    { numRuns: runs }
  )
}

const decodesAsKnown = <A extends U, I, U, UI>(
  schema: Schema.Schema<A, I>,
  union: Schema.Schema<U, UI>,
  isKnown: (u: U) => boolean,
  runs = 200
) => {
  const encode = Schema.encodeSync(schema)
  const decode = Schema.decodeUnknownSync(union)
  fc.assert(
    fc.property(Arbitrary.make(schema), (value) => {
      const decoded = decode(encode(value))
      expect(decoded).toEqual(value)
      expect(isKnown(decoded)).toBe(true)
    }),
    { numRuns: runs }
  )
}

describe("property: encode/decode round trip", () => {
  it("KnownContentBlock", () => roundTrips(ContentBlock.KnownContentBlock, 500))

  it("ContentBlock (Unknown included)", () => roundTrips(ContentBlock.ContentBlock, 300))

  it("every known block decodes as known through ContentBlock", () =>
    decodesAsKnown(ContentBlock.KnownContentBlock, ContentBlock.ContentBlock, ContentBlock.isKnownBlock, 300))

  it.each(
    [
      SdkMessage.AssistantMessage,
      SdkMessage.UserMessage,
      SdkMessage.UserMessageReplay,
      SdkMessage.ResultSuccess,
      SdkMessage.ResultError,
      SdkMessage.SystemInit,
      SdkMessage.StreamEventMessage,
      SdkMessage.CompactBoundary,
      SdkMessage.RateLimitEvent
    ].map((schema) => [Option.getOrElse(SchemaAST.getIdentifierAnnotation(schema.ast), () => "?"), schema] as const)
  )("%s", (_name, schema: Schema.Schema.AnyNoContext) => roundTrips(schema, 100))

  it("KnownSdkMessage values decode as known through SdkMessage", () =>
    decodesAsKnown(SdkMessage.KnownSdkMessage, SdkMessage.SdkMessage, SdkMessage.isKnown, 300))
})
