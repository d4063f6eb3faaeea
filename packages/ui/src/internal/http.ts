/** Responses the routes share: JSON, errors as JSON with a status, the search parameters. */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"

/** A JSON response. */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(body, { status })

/** An error as `{ "error": message }` with its status. */
export const problem = (status: number, message: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: message }, { status })

/** 404 with a message. */
export const notFound = (message = "not found"): HttpServerResponse.HttpServerResponse => problem(404, message)

/** The request URL's search parameters. */
export const searchParams: Effect.Effect<URLSearchParams, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => new URL(request.url, "http://localhost").searchParams
)

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
