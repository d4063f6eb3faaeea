/** Responses the routes share: JSON, errors as JSON with a status, the search parameters. */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as SecretMask from "../SecretMask.js"

/** A JSON response. */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(body, { status })

/** A JSON response whose text is written already. */
export const jsonText = (text: string, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(text, { status, contentType: "application/json" })

/**
 * An error as `{ "error": message }` with its status; the message is always masked (an error can
 * name a path made of a session's cwd, and `mask=0` is for the page's content, not its errors).
 */
export const problem = (status: number, message: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: SecretMask.maskText(message) }, { status })

/** 404 with a message. */
export const notFound = (message = "not found"): HttpServerResponse.HttpServerResponse => problem(404, message)

/** The request URL's search parameters. */
export const searchParams: Effect.Effect<URLSearchParams, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => new URL(request.url, "http://localhost").searchParams
)

/** How this request is shown values: masked (the default) or as written (`mask=0`). */
export const shownFor: Effect.Effect<<A>(value: A) => A, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  searchParams,
  (params) => SecretMask.shown(SecretMask.maskingOn(params))
)

/** A JSON response of what the page shows: every string masked unless the request said `mask=0`. */
export const shownJson = (
  body: unknown,
  status = 200
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(shownFor, (show) => json(show(body), status))

/**
 * A route's handler with its failures answered: a failure becomes 500 with the error's message
 * (a typed error's message is written for people), a defect too; the server goes on.
 */
export const handled = <E, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  effect.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : Effect.logWarning("acx ui: request failed", cause).pipe(
          Effect.as(problem(500, messageOf(Cause.squash(cause))))
        )
    )
  ) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : "internal error"
