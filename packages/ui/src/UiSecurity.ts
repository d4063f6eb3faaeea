/**
 * What the web page's server lets in, as pure decisions: the `Host` names it answers for (no DNS
 * rebinding), the token (in the URL once, then an HttpOnly SameSite=Strict cookie), the
 * same-origin proof a write needs, and the headers every response carries (a Content Security
 * Policy that allows no inline script and no remote origin, no CORS headers).
 *
 * @since 0.1.0
 */
import { timingSafeEqual } from "node:crypto"

/**
 * The cookie that carries the token after the first visit.
 *
 * @since 0.1.0
 * @category constants
 */
export const COOKIE_NAME = "acx_ui_token"

/**
 * The query parameter the printed URL carries the token in.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOKEN_PARAM = "token"

/**
 * The Content Security Policy of every response: scripts, styles, images, fonts and connections
 * from the page's own origin only; no inline script, no plugin, no framing, no form posting
 * elsewhere. (Images also from `data:` URLs, which a transcript's base64 images are shown as.)
 *
 * @since 0.1.0
 * @category constants
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * The headers every response carries, whatever its status.
 *
 * @since 0.1.0
 * @category constants
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store"
}

/**
 * Whether `host` is a loopback name (`--host` left at its default, or set to another loopback
 * address, prints no warning).
 *
 * @since 0.1.0
 * @category hosts
 */
export const isLoopback = (host: string): boolean =>
  host === "127.0.0.1" || host === "localhost" || host === "::1" || host === "[::1]"

const bracketed = (host: string): string => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)

/**
 * The `Host` header values the server answers for: `127.0.0.1:PORT`, `localhost:PORT`,
 * `[::1]:PORT` and, when the server was bound to another name, that name with the port
 * (lower case; an IPv6 address in brackets).
 *
 * @since 0.1.0
 * @category hosts
 */
export const allowedHosts = (port: number, boundHost?: string): ReadonlySet<string> => {
  const names = ["127.0.0.1", "localhost", "[::1]"]
  if (boundHost !== undefined && boundHost !== "" && boundHost !== "0.0.0.0" && boundHost !== "::") {
    names.push(bracketed(boundHost.toLowerCase()))
  }
  return new Set(names.map((name) => `${name}:${port}`))
}

/**
 * Whether a request's `Host` header is one of `allowed` (compared in lower case; a missing
 * header is refused).
 *
 * @since 0.1.0
 * @category hosts
 */
export const hostAllowed = (host: string | undefined, allowed: ReadonlySet<string>): boolean =>
  host !== undefined && allowed.has(host.trim().toLowerCase())

/**
 * Compares two tokens in constant time (a different length is a mismatch at once: the length of
 * the real token is no secret).
 *
 * @since 0.1.0
 * @category tokens
 */
export const tokensEqual = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, "utf8")
  const b = Buffer.from(expected, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The value of cookie `name` in a `Cookie` header, if present.
 *
 * @since 0.1.0
 * @category tokens
 */
export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * How a request proved it may read: by the cookie, by the token in its URL (the first visit), or
 * not at all.
 *
 * @since 0.1.0
 * @category tokens
 */
export type Credential = "Cookie" | "Query" | "None"

/**
 * Which credential of a request matches `token`: the cookie first, then the URL's `token`
 * parameter.
 *
 * @since 0.1.0
 * @category tokens
 */
export const credentialOf = (
  request: { readonly cookie: string | undefined; readonly queryToken: string | undefined },
  token: string
): Credential => {
  const cookie = cookieValue(request.cookie, COOKIE_NAME)
  if (cookie !== undefined && tokensEqual(cookie, token)) return "Cookie"
  if (request.queryToken !== undefined && tokensEqual(request.queryToken, token)) return "Query"
  return "None"
}

/**
 * The `Set-Cookie` value that keeps the token for the next requests: HttpOnly (no script reads
 * it), SameSite=Strict (no other site's page sends it), for the whole path.
 *
 * @since 0.1.0
 * @category tokens
 */
export const tokenCookie = (token: string): string => `${COOKIE_NAME}=${token}; Path=/; HttpOnly; SameSite=Strict`

/**
 * Whether a write (POST) comes from the page itself: its `Origin` header names one of the
 * allowed hosts over http, or, without `Origin`, `Sec-Fetch-Site` says `same-origin`. A write
 * must also carry the token (checked apart).
 *
 * @since 0.1.0
 * @category writes
 */
export const sameOrigin = (
  headers: { readonly origin: string | undefined; readonly secFetchSite: string | undefined },
  allowed: ReadonlySet<string>
): boolean => {
  if (headers.origin !== undefined) {
    if (!headers.origin.startsWith("http://")) return false
    return allowed.has(headers.origin.slice("http://".length).toLowerCase())
  }
  return headers.secFetchSite === "same-origin"
}
