/**
 * Whether the Anthropic API's host can be reached at all, for `acx chat`: Claude Code retries a
 * call that got no response ten times with backoff (minutes against a dead address), the same
 * as an overloaded API. A refused connection or a failed DNS lookup will not heal in those
 * minutes, so at the first retry without a response acx looks itself: one DNS lookup and one
 * TCP connection to the base URL's host and port.
 */
import * as dns from "node:dns/promises"
import * as net from "node:net"

/** The API Claude Code calls: `ANTHROPIC_BASE_URL`, else Anthropic's. */
export const apiBaseUrl = (env: { readonly [name: string]: string | undefined }): string => {
  const given = env["ANTHROPIC_BASE_URL"]
  return given === undefined || given.trim() === "" ? "https://api.anthropic.com" : given.trim()
}

/** How long the connection may take before acx leaves the judgement to Claude Code's retries. */
const CONNECT_MS = 5_000

const connect = (host: string, port: number): Promise<string | undefined> =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port })
    const done = (cause: string | undefined) => {
      socket.destroy()
      resolve(cause)
    }
    socket.setTimeout(CONNECT_MS, () => done(undefined))
    socket.once("connect", () => done(undefined))
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(error.code === "ECONNREFUSED" ? "connection refused" : undefined))
  })

/**
 * Why the API at `baseUrl` cannot be reached (`connection refused`, `no such host (ENOTFOUND)`),
 * or `undefined` when it can, or when acx cannot tell (a proxy is set: Claude Code connects
 * through it; a timeout; any other error): then Claude Code's own retries decide.
 */
export const unreachable = async (
  baseUrl: string,
  env: { readonly [name: string]: string | undefined }
): Promise<string | undefined> => {
  if (["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some((name) => (env[name] ?? "") !== "")) {
    return undefined
  }
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return undefined
  }
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const port = url.port !== "" ? Number(url.port) : url.protocol === "http:" ? 80 : 443
  if (net.isIP(host) === 0) {
    try {
      await dns.lookup(host)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      return code === "ENOTFOUND" || code === "EAI_AGAIN" ? `DNS lookup of ${host} failed (${code})` : undefined
    }
  }
  return connect(host, port)
}
