/**
 * The page's one security boundary: the whole app wrapped before the server serves it, so every
 * response the server writes (a route's, an asset, an export, an event stream, a 404, a 500, a
 * refusal) comes out of here and carries the security headers, and no request reaches a route
 * without the `Host`, token and origin checks.
 *
 * Why it wraps the app rather than being the server's middleware: in `@effect/platform`'s
 * `HttpApp.toHandled` the app's response is written (and the request marked handled) before the
 * middleware's result is looked at, so a middleware that adds headers only reaches the responses
 * it makes itself. Wrapped here, the app's response is this effect's value and nothing is written
 * before it is final.
 *
 * The one response that never reaches the app — Node's answer to a request it cannot parse (or
 * that took too long to arrive) — is written by {@link onClientError}, with the same headers.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as net from "node:net"
import * as UiSecurity from "../UiSecurity.js"
import { problem } from "./http.js"

const secured = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, UiSecurity.SECURITY_HEADERS)

const text = (body: string, status: number) => HttpServerResponse.text(body, { status })

const unauthorized = text("acx ui: this page needs the token: open the URL that `acx ui` printed\n", 401)

// What is left of a failure the routes did not answer: a path no route has, or a defect. A
// client that went away (interruption only) gets nothing: there is no one to answer.
const failed = <E>(cause: Cause.Cause<E>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  const notFound = [...Cause.failures(cause)].some((error) => error instanceof HttpServerError.RouteNotFound)
  return notFound
    ? Effect.succeed(problem(404, "not found"))
    : Effect.logWarning("acx ui: request failed", cause).pipe(Effect.as(problem(500, "internal error")))
}

/**
 * `app` behind the checks: the `Host`, then the token, then, for a write, the origin; the first
 * visit with `?token=` on `/` sets the cookie and redirects to `/` (the token leaves the address
 * bar and the history). Every response, refusals and failures included, gets the security
 * headers last, so a route cannot take them off.
 */
export const guarded = <E, R>(
  app: HttpApp.Default<E, R>,
  token: string,
  allowedHosts: ReadonlySet<string>
): HttpApp.Default<never, R> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!UiSecurity.hostAllowed(request.headers["host"], allowedHosts)) {
      return text("acx ui: unknown Host\n", 403)
    }
    const url = new URL(request.url, "http://localhost")
    const credential = UiSecurity.credentialOf(
      { cookie: request.headers["cookie"], queryToken: url.searchParams.get(UiSecurity.TOKEN_PARAM) ?? undefined },
      token
    )
    if (credential === "None") return unauthorized
    if (request.method !== "GET" && request.method !== "HEAD") {
      const sameOrigin = UiSecurity.sameOrigin(
        { origin: request.headers["origin"], secFetchSite: request.headers["sec-fetch-site"] },
        allowedHosts
      )
      if (!sameOrigin) return text("acx ui: writes come from the page only\n", 403)
    }
    if (credential === "Query" && request.method === "GET" && url.pathname === "/") {
      return HttpServerResponse.redirect("/", { status: 303, headers: { "set-cookie": UiSecurity.tokenCookie(token) } })
    }
    const response = yield* app
    return credential === "Query"
      ? HttpServerResponse.setHeader(response, "set-cookie", UiSecurity.tokenCookie(token))
      : response
  }).pipe(
    Effect.catchAllCause(failed),
    Effect.map(secured)
  )

// Node's own answers to a request that never became one (its default handler sends them bare).
const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout"],
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large"]
}

/**
 * The raw response to a request Node could not parse: its status (400, 408 or 431) with the
 * security headers, and the connection closed.
 */
export const clientErrorResponse = (code: string | undefined): string => {
  const [status, reason] = CLIENT_ERRORS[code ?? ""] ?? [400, "Bad Request"]
  const headers = Object.entries(UiSecurity.SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`)
  return `HTTP/1.1 ${status} ${reason}\r\n${headers.join("")}content-length: 0\r\nconnection: close\r\n\r\n`
}

/** The Node server's `clientError` listener: {@link clientErrorResponse}, unless the socket is gone. */
export const onClientError = (error: NodeJS.ErrnoException, socket: net.Socket): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  socket.end(clientErrorResponse(error.code))
}
