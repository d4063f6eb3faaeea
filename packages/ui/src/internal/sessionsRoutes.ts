/**
 * `GET /api/sessions?offset=&limit=&project=&projectId=&machine=&user=&q=` (a page of the list
 * the server keeps, `sessionsList.ts`: from the session index or the store's catalog, filtered on
 * the server),
 * `GET /api/sessions/usage`, and `GET /api/sessions/events`: server-sent events, a `changed`
 * each time the list may have changed (over a store: its clock moved; over a config directory
 * none, the page reads the list when it opens), a `reconnecting` when the Postgres store's
 * notifications were cut (its server restarted: the page says so until the next `changed`).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { UiContext } from "./context.js"
import { handled, jsonText, problem, searchParams, shownJson } from "./http.js"
import { HEARTBEAT, PING, RETRY } from "./liveTranscripts.js"
import * as SessionsList from "./sessionsList.js"

const encoder = new TextEncoder()
const event = (type: UiApi.SessionsEvent["type"]) =>
  encoder.encode(`data: ${JSON.stringify({ type } satisfies UiApi.SessionsEvent)}\n\n`)
const EVENTS = { changed: event("changed"), reconnecting: event("reconnecting") }

// A page of the kept list (no `limit`: every row, from a listing started after the request).
const listPage = (context: UiContext) =>
  Effect.gen(function*() {
    const params = yield* searchParams
    const query = SessionList.parseListQuery(params)
    if (typeof query === "string") return problem(400, query)
    const snapshot = yield* (query.limit === undefined ? context.sessions.refresh(true) : context.sessions.current)
    const { matched, rows } = SessionsList.pageOf(snapshot, query, SecretMask.maskingOn(params))
    const body: UiApi.SessionsResponse = {
      configDir: context.configDir,
      projects: snapshot.projects,
      total: snapshot.listing.rows.length,
      matched,
      offset: query.offset,
      sessions: rows,
      // only the listed sessions' (a viewer the store shows some sessions to sees their origins only)
      origins: SessionList.listedOrigins(rows, snapshot.listing.origins),
      machines: snapshot.machines,
      users: snapshot.users
    }
    // every field of every row (title, prompts, cwd, project, branch) through the mask
    return yield* shownJson(body)
  })

// The list's changes a page hears: a listing started when it opens (the list of a config
// directory is read when the page opens) that found other rows than the kept ones; over a store
// each move of its clock, once the kept list has been read again, and `reconnecting`.
const listChanges = (context: UiContext): Stream.Stream<UiApi.SessionsEvent["type"], unknown> => {
  const opened = Effect.gen(function*() {
    const before = context.sessions.version()
    yield* Effect.ignore(context.sessions.refresh(false))
    return context.sessions.version() === before ? Option.none() : Option.some("changed" as const)
  })
  return Stream.merge(
    Stream.filterMap(Stream.fromEffect(opened), (change) => change),
    context.source.listChanges.pipe(
      Stream.mapEffect((change) =>
        change === "changed" ? Effect.as(Effect.ignore(context.sessions.refresh(true)), change) : Effect.succeed(change)
      )
    )
  )
}

export const sessionsRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/api/sessions", handled(listPage(context))),
    HttpRouter.get(
      "/api/sessions/usage",
      handled(Effect.gen(function*() {
        const text = yield* context.source.usage(SecretMask.maskingOn(yield* searchParams))
        return jsonText(text)
      }))
    ),
    HttpRouter.get(
      "/api/sessions/events",
      handled(Effect.sync(() =>
        HttpServerResponse.stream(
          Stream.make(RETRY).pipe(
            Stream.concat(
              // a burst of appends is a few readings of the list, never none after the last one:
              // one change waits while the last is sent, and sends are 300 ms apart at most
              listChanges(context).pipe(
                Stream.buffer({ capacity: 1, strategy: "sliding" }),
                Stream.tap(() => Effect.sleep("300 millis")),
                Stream.map((change) => EVENTS[change])
              )
            ),
            Stream.merge(Stream.tick(HEARTBEAT).pipe(Stream.as(PING)))
          ),
          { contentType: "text/event-stream", headers: { "cache-control": "no-store", "x-accel-buffering": "no" } }
        )
      ))
    )
  )
