/**
 * Why a Postgres store could not connect, as one line that names the server (host and port,
 * never the credentials) and the reason, instead of the driver's "PgClient: Failed to connect";
 * and the sockets a failed connection leaves open, closed.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as net from "node:net"
import type { Duplex } from "node:stream"

/** The driver error under `cause` (an `SqlError` wraps the `pg` error). */
export const rootCause = (cause: unknown): unknown => {
  let current = cause
  for (let depth = 0; depth < 8; depth++) {
    const next = typeof current === "object" && current !== null
      ? (current as { readonly cause?: unknown }).cause
      : undefined
    if (next === undefined || next === null) return current
    current = next
  }
  return current
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused (is the server running and listening there?)",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset by the server",
  ENOENT: "no server socket there",
  EACCES: "permission denied"
}

/** Host and port the connection string names, with the `pg` defaults; never the password. */
export const serverOf = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "the server (unparseable URL)"
  }
  const socketDir = parsed.searchParams.get("host")
  const host = parsed.hostname !== ""
    ? parsed.hostname.replace(/^\[(.*)\]$/, "$1")
    : socketDir ?? process.env["PGHOST"] ?? "localhost"
  const port = parsed.port !== "" ? parsed.port : process.env["PGPORT"] ?? "5432"
  return host.startsWith("/") ? `socket ${host}/.s.PGSQL.${port}` : `${host}:${port}`
}

/** The reason, from the driver error's code (network or Postgres SQLSTATE) and message. */
export const reasonOf = (cause: unknown): string => {
  const root = rootCause(cause)
  const code = typeof root === "object" && root !== null ? (root as { readonly code?: unknown }).code : undefined
  const message = root instanceof Error ? root.message : String(root)
  if (typeof code === "string" && code in NETWORK_REASONS) return NETWORK_REASONS[code]!
  if (/timeout/i.test(message)) return "connection timed out"
  // `pg` with no password to answer a server that asks for one (SCRAM): say what to do
  if (/password must be a string/i.test(message)) {
    return "the server asks for a password and none was given (put it in the URL, or in PGPASSWORD or ~/.pgpass)"
  }
  // Postgres' own messages (bad password, unknown database, …) name no secret.
  return message === "" ? (typeof code === "string" ? code : "unknown error") : message
}

/**
 * A failed statement in one line: `@effect/sql`'s message ("Failed to execute statement") with
 * the server's own reason after it (`permission denied for database acx`), which names no secret.
 */
export const describeStatementFailure = (cause: unknown): string => {
  const message = cause instanceof Error ? cause.message : String(cause)
  const root = rootCause(cause)
  const reason = root instanceof Error && root !== cause ? root.message : ""
  return reason === "" || reason === message ? message : `${message}: ${reason}`
}

/**
 * Whether the server refused a statement for want of a privilege or a row-level security policy
 * (SQLSTATE `42501`, insufficient_privilege): a hub role doing what its role may not.
 */
export const isPermissionDenied = (cause: unknown): boolean => {
  const root = rootCause(cause)
  return typeof root === "object" && root !== null && (root as { readonly code?: unknown }).code === "42501"
}

/**
 * Whether the statement wrote a row a row-level security policy refuses (`new row violates
 * row-level security policy …`: SQLSTATE 42501, as a missing privilege, told apart by the message).
 */
export const isRowSecurityViolation = (cause: unknown): boolean => {
  const root = rootCause(cause)
  return isPermissionDenied(cause) && root instanceof Error && root.message.includes("row-level security policy")
}

export { withLibpqSslmode } from "./pgUrl.js"

// SQLSTATEs of a server that ended or refuses the session: an administrator's shutdown or restart
// (57P01), a crash of another backend (57P02), a server starting up or shutting down (57P03),
// and the connection exceptions (class 08).
const LOST_STATES: Record<string, string> = {
  "57P01": "the server shut down or restarted",
  "57P02": "the server restarted after a crash",
  "57P03": "the server is starting up or shutting down"
}

// `pg`'s own words for a socket that closed under it.
const CLOSED = /connection terminated|not queryable|connection ended|ended unexpectedly/i

/**
 * Why a statement failed, when it failed because the connection to the server was lost or could
 * not be made again (a restart, a crash, a network cut): the reason in words, with the server's
 * own message; `undefined` for any other failure (a constraint, a permission, bad SQL).
 */
export const connectionLost = (cause: unknown): string | undefined => {
  const root = rootCause(cause)
  const code = typeof root === "object" && root !== null ? (root as { readonly code?: unknown }).code : undefined
  const message = root instanceof Error ? root.message : String(root)
  if (typeof code === "string") {
    if (code in LOST_STATES) return `${LOST_STATES[code]} (${message})`
    if (code.startsWith("08")) return `connection failure (${message})`
    if (code in NETWORK_REASONS || code === "EPIPE") return NETWORK_REASONS[code] ?? "the connection broke"
  }
  return CLOSED.test(message) ? "the connection closed (the server went away)" : undefined
}

/** `lost the connection to Postgres at HOST:PORT: REASON` (see {@link connectionLost}). */
export const describeConnectionLoss = (server: string | undefined, reason: string): string =>
  `lost the connection to Postgres${server === undefined ? "" : ` at ${server}`}: ${reason}`

/**
 * `effect` with a `SqlError` that died turned back into the failure it is. `@effect/sql` dies when
 * the ROLLBACK of a failed transaction fails, which is what a connection lost mid-transaction
 * does: without this a server restart ended a sync as an "internal error".
 */
export const failDeadSqlError = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.catchSomeDefect(
    effect,
    (defect) =>
      typeof defect === "object" && defect !== null && (defect as { readonly _tag?: unknown })._tag === "SqlError"
        ? Option.some(Effect.fail(defect as SqlError))
        : Option.none()
  )

/** `cannot connect to Postgres at HOST:PORT: REASON`. */
export const describeConnectFailure = (url: string, cause: unknown): string =>
  `cannot connect to Postgres at ${serverOf(url)}: ${reasonOf(cause)}`

/**
 * The sockets of one pool, each made here (the `stream` factory `pg` takes), so that those a
 * failed connection left open can be closed. `pg` keeps a connection whose authentication failed
 * on its side open (a URL without the password the server asks for: "client password must be a
 * string"), and the pool forgets it: the socket kept the process alive until the server's
 * `authentication_timeout` (a minute) closed it, so `acx sync --to` hung after printing its error.
 */
export interface TrackedSockets {
  /** The `stream` option of `PgClient.layer`. */
  readonly stream: () => Duplex
  /** Destroys every socket still open. */
  readonly destroyAll: () => void
}

/** A fresh set of tracked sockets (see {@link TrackedSockets}). */
export const trackedSockets = (): TrackedSockets => {
  const open = new Set<net.Socket>()
  return {
    stream: () => {
      const socket = new net.Socket()
      open.add(socket)
      socket.once("close", () => open.delete(socket))
      return socket
    },
    destroyAll: () => {
      for (const socket of open) socket.destroy()
      open.clear()
    }
  }
}
