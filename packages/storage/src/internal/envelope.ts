/**
 * Reading an Acontext response: the `{code, data, msg, error?}` envelope decoded with Schema into
 * its `data`, or into the `AcontextError` it describes (an HTTP status, or an envelope `code`,
 * of 400 and up; a body that is not the envelope).
 */
import * as Acontext from "@acx/schema/Acontext"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AcontextError, reasonFromStatus } from "../AcontextError.js"

const decodeErrorEnvelope = Schema.decodeUnknownOption(Acontext.ErrorEnvelope)

/** An error of `operation`. */
export const failure = (
  operation: string,
  fields: Omit<ConstructorParameters<typeof AcontextError>[0], "operation">
): AcontextError => new AcontextError({ operation, ...fields })

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** Turns a response into the envelope's `data`, or the error it describes. */
export const readEnvelope = <A, I>(
  operation: string,
  response: HttpClientResponse.HttpClientResponse,
  data: Schema.Schema<A, I>
): Effect.Effect<A, AcontextError> =>
  Effect.gen(function*() {
    const text = yield* Effect.mapError(
      response.text,
      (cause) =>
        failure(operation, {
          reason: "Transport",
          description: `reading the response body failed: ${cause.message}`,
          ...(cause.cause === undefined ? {} : { cause: cause.cause })
        })
    )
    const json = parseJson(text)
    const envelope = Option.flatMap(json, decodeErrorEnvelope)
    const apiCode = Option.map(envelope, (e) => e.code)
    const failed = response.status >= 400 || Option.exists(apiCode, (code) => code >= 400)
    if (failed) {
      const status = response.status >= 400 ? response.status : Option.getOrElse(apiCode, () => response.status)
      return yield* failure(operation, {
        reason: reasonFromStatus(status),
        status: response.status,
        ...Option.match(envelope, {
          onNone: () => ({ description: text.slice(0, 200) || `HTTP ${response.status}` }),
          onSome: (e) => ({
            code: e.code,
            description: e.msg || `HTTP ${response.status}`,
            ...(e.error === undefined ? {} : { detail: e.error })
          })
        })
      })
    }
    if (Option.isNone(json)) {
      return yield* failure(operation, {
        reason: "Decode",
        status: response.status,
        description: `expected a JSON envelope, got ${JSON.stringify(text.slice(0, 120))}`
      })
    }
    return yield* Schema.decodeUnknown(Acontext.Envelope(data))(json.value).pipe(
      Effect.mapError((cause) =>
        failure(operation, {
          reason: "Decode",
          status: response.status,
          description: `unexpected response shape: ${cause.message.slice(0, 500)}`,
          cause
        })
      ),
      Effect.flatMap((envelope) =>
        envelope.data === undefined
          ? Schema.decodeUnknown(data)(undefined).pipe(
            Effect.mapError((cause) =>
              failure(operation, { reason: "Decode", status: response.status, description: "missing data", cause })
            )
          )
          : Effect.succeed(envelope.data)
      )
    )
  })
