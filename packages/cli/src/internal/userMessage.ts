/**
 * What a failure means to the person who typed the command: the library errors a command can end
 * with, said in the user's terms (the path, the URL, "connection refused") and without the
 * module, operation or reason names the libraries put in their `message` for programmers.
 *
 * Pure, and matched on `_tag` alone: the CLI's entry chunk imports no library to render a line.
 */
import * as TerminalText from "@acx/convert/TerminalText"

type Fields = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

// Node's and undici's codes for a request that got no answer, in the words a user knows.
const NETWORK_PROBLEMS: { readonly [code: string]: string } = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found (DNS lookup failed)",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed by the server",
  UND_ERR_HEADERS_TIMEOUT: "no answer in time",
  EPROTO: "TLS handshake failed",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate cannot be verified"
}

/**
 * Why a request got no answer, from the first network error code in `error`'s cause chain
 * (`cause`, and the `errors` of an AggregateError, as Node's happy-eyeballs connect throws).
 */
export const networkProblem = (error: unknown): string | undefined => {
  const seen = new Set<unknown>()
  const queue: Array<unknown> = [error]
  while (queue.length > 0 && seen.size < 32) {
    const next = queue.shift()
    if (!isObject(next) || seen.has(next)) continue
    seen.add(next)
    const code = text(next["code"])
    if (code !== undefined && NETWORK_PROBLEMS[code] !== undefined) return NETWORK_PROBLEMS[code]
    queue.push(next["cause"])
    if (Array.isArray(next["errors"])) queue.push(...next["errors"])
  }
  return undefined
}

const STATUS_WORDS: { readonly [status: number]: string } = {
  401: "the API key was refused",
  403: "the API key may not do this",
  404: "not found",
  408: "the request timed out",
  409: "conflict",
  429: "too many requests",
  500: "server error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout"
}

// `Transport error (POST http://host/path)`: the request an @effect/platform RequestError names.
const requestOf = (description: string): string | undefined =>
  /\((?:[A-Z]+ )?(https?:\/\/[^)\s]+)\)/.exec(description)?.[1]

const acontextMessage = (error: Fields): string => {
  const description = text(error["description"]) ?? ""
  const status = typeof error["status"] === "number" ? error["status"] : undefined
  switch (error["reason"]) {
    case "Transport": {
      const url = requestOf(description)
      const why = networkProblem(error) ?? "no answer"
      return `cannot reach Acontext${url === undefined ? "" : ` at ${new URL(url).origin}`}: ${why}`
    }
    case "Timeout":
      return `Acontext did not answer: ${description}`
    case "Decode":
      return `Acontext's answer could not be read: ${description}`
    default: {
      const words = status === undefined ? undefined : STATUS_WORDS[status]
      const head = status === undefined ? "Acontext refused the request" : `Acontext answered ${status}`
      const detail = [words, description].filter((part) => part !== undefined && part !== "").join(": ")
      return detail === "" ? head : `${head} (${detail})`
    }
  }
}

// @effect/platform's SystemError: `reason` (NotFound, PermissionDenied, …) and the path.
const SYSTEM_REASONS: { readonly [reason: string]: string } = {
  NotFound: "no such file or directory",
  PermissionDenied: "permission denied",
  AlreadyExists: "already exists",
  Busy: "busy",
  TimedOut: "timed out",
  WouldBlock: "busy",
  BadResource: "not a usable file",
  InvalidData: "invalid data",
  UnexpectedEof: "unexpected end of file"
}

const systemMessage = (error: Fields): string => {
  const reason = text(error["reason"]) ?? "Unknown"
  const what = SYSTEM_REASONS[reason] ?? text(error["description"]) ?? "I/O error"
  const target = text(error["pathOrDescriptor"]) ?? (typeof error["pathOrDescriptor"] === "number" ? "" : undefined)
  return target === undefined || target === "" ? what : `${target}: ${what}`
}

/** Adds the network problem when the description does not say it already. */
const withNetworkProblem = (description: string, error: unknown): string => {
  const problem = networkProblem(error)
  return problem === undefined || description.toLowerCase().includes(problem)
    ? description
    : `${description}: ${problem}`
}

/**
 * The one-line message for `error`: library errors in the user's terms (see the module doc),
 * anything else its `message`.
 */
export const userMessage = (error: unknown): string => {
  if (!isObject(error)) return String(error)
  const tag = text(error["_tag"])
  const description = text(error["description"])
  switch (tag) {
    case "AcontextError":
      return acontextMessage(error)
    case "SystemError":
      return systemMessage(error)
    case "SessionIndexError": {
      const cause = error["cause"]
      const why = isObject(cause) && cause["_tag"] === "SystemError"
        ? `: ${systemMessage({ ...cause, pathOrDescriptor: "" })}`
        : ""
      return `cannot read ${text(error["file"]) ?? "a transcript"}${why}`
    }
    case "ClaudePushError":
      return `cannot push session ${text(error["sessionId"]) ?? ""}: ${description ?? ""}`
    case "SearchQueryError": {
      // the query as typed (10 000 characters of it, or a NUL) stays short and printable
      const query = text(error["query"]) ?? ""
      const shown = JSON.stringify(query.length > 60 ? `${query.slice(0, 60)}…` : query)
      return `cannot search for ${shown}: ${description ?? "not a query"}`
    }
    case "ClaudeBinaryError":
    case "CliError":
      break
    default:
      // every acx error carries its cause in words in `description`; its `message` adds the
      // module, operation and reason for programmers
      if (tag !== undefined && description !== undefined) return withNetworkProblem(description, error["cause"])
  }
  const message = text(error["message"])
  if (message !== undefined) return message
  return tag ?? (error instanceof Error ? error.name : String(error))
}

/**
 * {@link userMessage} as one terminal line: its first non-blank line, made printable
 * (`TerminalText.line`), at most 400 characters (`CliError.describeError`).
 */
export const errorLine = (error: unknown): string => {
  const text = userMessage(error)
  const line = TerminalText.line(text.split("\n").find((part) => part.trim() !== "") ?? text)
  return line.length > 400 ? `${line.slice(0, 397)}...` : line
}
