/**
 * `GET /api/search?q=&project=&role=&limit=[&mask=0]`: the search box's hits, from the index
 * `searchIndex.ts` opens (a store's full-text search: words, "phrases", -exclusions). Each hit's
 * snippet is cut from its text after masking (`StoreCatalog.SearchOptions.mask`: no window shows
 * half a secret), split into parts (`SearchView`), and the whole answer passes the mask again.
 * A query the engine cannot search is a 400 with the problem; no index, a 200 that says how to
 * make one. The time the search took is in the body (`ms`) and in `Server-Timing`.
 */
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as SearchQuery from "@acx/session-store/SearchQuery"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as SearchView from "../SearchView.js"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { UiContext } from "./context.js"
import { handled, problem, searchParams, shownFor } from "./http.js"

/** Hits when the request does not say. */
export const DEFAULT_LIMIT = 50

const ROLES: ReadonlyArray<UiApi.SearchHitRow["role"]> = ["user", "assistant", "tool"]

type Parsed =
  | { readonly _tag: "Ok"; readonly query: string; readonly options: StoreCatalog.SearchOptions }
  | { readonly _tag: "Bad"; readonly message: string }

// The request's parameters checked: a role the index knows, a whole limit in range.
const parseRequest = (params: URLSearchParams): Parsed => {
  const role = params.get("role") ?? ""
  if (role !== "" && !(ROLES as ReadonlyArray<string>).includes(role)) {
    return { _tag: "Bad", message: `role: ${JSON.stringify(role)} is not one of ${ROLES.join(", ")}` }
  }
  const limitText = params.get("limit") ?? ""
  const limit = limitText === "" ? DEFAULT_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= StoreCatalog.MAX_LIMIT)) {
    return {
      _tag: "Bad",
      message: `limit: ${JSON.stringify(limitText)} is not a number from 1 to ${StoreCatalog.MAX_LIMIT}`
    }
  }
  const project = params.get("project") ?? ""
  const mask = SecretMask.maskingOn(params)
  return {
    _tag: "Ok",
    query: params.get("q") ?? "",
    options: {
      limit,
      ...(role === "" ? {} : { role: role as UiApi.SearchHitRow["role"] }),
      ...(project === "" ? {} : { projectKey: project }),
      open: SearchView.OPEN,
      close: SearchView.CLOSE,
      // masked whole before the snippet is cut; the marks' characters out of the text first
      mask: (text) => SearchView.unmarked(mask ? SecretMask.maskText(text) : text)
    }
  }
}

const timed = (body: UiApi.SearchResponse, show: <A>(value: A) => A, ms: number) =>
  HttpServerResponse.unsafeJson(show(body), { headers: { "server-timing": `search;dur=${ms.toFixed(1)}` } })

// The hits as rows: each session's title and project from the same index (one read for all).
const rowsOf = (catalog: StoreCatalog.StoreCatalog, hits: ReadonlyArray<StoreCatalog.SearchHit>) =>
  Effect.gen(function*() {
    const keys = new Map(hits.map((hit) => [`${hit.projectKey}/${hit.sessionId}`, hit]))
    const listed = keys.size === 0 ? [] : yield* catalog.listSessions({ sessions: [...keys.values()] })
    const sessions = new Map(listed.map((session) => [`${session.projectKey}/${session.sessionId}`, session]))
    return hits.map((hit): UiApi.SearchHitRow => {
      const session = sessions.get(`${hit.projectKey}/${hit.sessionId}`)
      return {
        sessionId: hit.sessionId,
        projectKey: hit.projectKey,
        project: session?.cwd === undefined ? hit.projectKey : SessionList.lastSegment(session.cwd),
        title: (session === undefined ? undefined : SessionMetadata.displayTitle(session)) ?? null,
        role: hit.role,
        time: hit.timeMs === undefined ? null : new Date(hit.timeMs).toISOString(),
        turn: hit.uuid ?? null,
        agentId: hit.subpath === "" ? null : StoreProjects.agentIdOf(hit.subpath) ?? null,
        snippet: SearchView.snippetParts(hit.snippet)
      }
    })
  })

export const searchRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/search",
      handled(
        Effect.gen(function*() {
          const started = performance.now()
          const parsed = parseRequest(yield* searchParams)
          if (parsed._tag === "Bad") return problem(400, parsed.message)
          const show = yield* shownFor
          const index = yield* context.search.open
          if (Either.isLeft(index)) {
            return timed({ indexed: false, message: index.left }, show, performance.now() - started)
          }
          const { catalog, location } = index.right
          const hits = yield* Effect.either(catalog.search(parsed.query, parsed.options))
          if (Either.isLeft(hits)) {
            if (hits.left instanceof SearchQuery.SearchQueryError) return problem(400, hits.left.message)
            return yield* hits.left
          }
          const rows = yield* rowsOf(catalog, hits.right)
          const ms = performance.now() - started
          return timed({ indexed: true, location, hits: rows, ms: Math.round(ms * 10) / 10 }, show, ms)
        }).pipe(Effect.withSpan("SearchRoutes.search"))
      )
    )
  )
