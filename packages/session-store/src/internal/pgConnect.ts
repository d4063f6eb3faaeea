/**
 * Why a Postgres store could not connect, as one line that names the server (host and port,
 * never the credentials) and the reason, instead of the driver's "PgClient: Failed to connect".
 */

/** The driver error under `cause` (an `SqlError` wraps the `pg` error). */
const rootCause = (cause: unknown): unknown => {
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
  // Postgres' own messages (bad password, unknown database, …) name no secret.
  return message === "" ? (typeof code === "string" ? code : "unknown error") : message
}

/** `cannot connect to Postgres at HOST:PORT: REASON`. */
export const describeConnectFailure = (url: string, cause: unknown): string =>
  `cannot connect to Postgres at ${serverOf(url)}: ${reasonOf(cause)}`
