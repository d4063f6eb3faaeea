// Hash routes (#/sessions, #/session/<id>?turn=<uuid>, #/costs, #/memory): the server serves one
// page, and a route never reaches it as a path.
import { useEffect, useState } from "preact/hooks"

/** The route shown: its page, path parameters and query. */
export interface Route {
  readonly page: "sessions" | "session" | "costs" | "memory"
  readonly id: string | undefined
  readonly query: URLSearchParams
}

/** The route of a hash (`#/session/abc?turn=x`); anything unknown is the sessions list. */
export const parseRoute = (hash: string): Route => {
  const body = hash.replace(/^#\/?/, "")
  const q = body.indexOf("?")
  const path = q < 0 ? body : body.slice(0, q)
  const query = new URLSearchParams(q < 0 ? "" : body.slice(q + 1))
  const [first, second] = path.split("/").map((part) => decodeURIComponent(part))
  if (first === "session" && second !== undefined && second !== "") return { page: "session", id: second, query }
  if (first === "costs" || first === "memory") return { page: first, id: undefined, query }
  return { page: "sessions", id: undefined, query }
}

/** A link's href to a route. */
export const href = (page: Route["page"], id?: string, query?: Record<string, string | undefined>): string => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(key, value)
  }
  const search = params.toString()
  return `#/${page}${id === undefined ? "" : `/${encodeURIComponent(id)}`}${search === "" ? "" : `?${search}`}`
}

/** The current route, updated on every hash change. */
export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash))
    addEventListener("hashchange", onChange)
    // a hash set between the first render and this listener (a redirect, a quick navigation)
    onChange()
    return () => removeEventListener("hashchange", onChange)
  }, [])
  return route
}
