/**
 * The session page's routes:
 * - `GET /api/session/:id`: the header, then the items as the file is read (NDJSON, streamed:
 *   the transcript is folded chunk by chunk, never held whole), then where the read ended;
 * - `GET /api/session/:id/subagent/:agentId`: a subagent transcript's items, the same way;
 * - `GET /api/session/:id/block?line=&block=[&sub=][&agent=]`: a cut text in full, an image;
 * - `GET /api/session/:id/line/:n[?agent=]`: one raw line as a download (for lines over the cap);
 * - `GET /api/session/:id/events?from=<cursor>`: server-sent events: the items of the lines
 *   appended from `from` on (the `end` the first read sent), as the source reports changes.
 * Every transcript comes from the session index (`findSession`, then the source: a file of the
 * config directory or a store's key), never from the request; secrets are masked unless `mask=0`.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import type * as Pricing from "@acx/convert/Pricing"
import * as SessionBlocks from "@acx/convert/SessionBlocks"
import * as SessionFold from "@acx/convert/SessionFold"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as AcxHome from "@acx/environment/AcxHome"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type * as SessionView from "../SessionView.js"
import type { UiContext } from "./context.js"
import { findSession } from "./findSession.js"
import { handled, json, notFound, problem, searchParams } from "./http.js"
import { sessionFigure } from "./sessionFigure.js"
import { subagentRows } from "./subagentRows.js"
import { LINE_CAP, parseLine } from "./transcriptLines.js"
import type { Transcript } from "./transcriptSource.js"

const encoder = new TextEncoder()
const ndjson = (line: SessionView.SessionLine): string => JSON.stringify(line) + "\n"

// The fold masks each text it shows before cutting it (cheaper than masking every string of
// every entry, and a secret is never cut in half first).
const masker = (mask: boolean): (text: string) => string => mask ? SecretMask.maskText : (text) => text

const loadPricing = (context: UiContext) => TranscriptStats.loadPricing(AcxHome.paths(context.acxHome).pricing)

/**
 * The items of a transcript read from its start, as NDJSON lines (with the lines of `alongside`
 * among them, as they come), then where the read ended.
 */
const itemLines = (
  transcript: Transcript,
  mask: boolean,
  pricing: Pricing.PricingTable,
  alongside: Stream.Stream<string, unknown> = Stream.empty
): Stream.Stream<string, unknown> => {
  const show = SecretMask.shown(mask)
  let state = SessionFold.initial(pricing, masker(mask))
  let end = 0
  let lines = 0
  return transcript.lines({ from: 0, linesBefore: 0, includeTorn: true }).pipe(
    Stream.filterMap((chunk) => {
      const result = SessionFold.fold(state, chunk.inputs)
      state = result.state
      end = chunk.end
      lines = chunk.lines
      return result.items.length === 0
        ? Option.none()
        : Option.some(ndjson(show({ type: "items", items: result.items })))
    }),
    Stream.merge(alongside),
    Stream.concat(Stream.suspend(() => Stream.make(ndjson({ type: "end", bytes: end, lines }))))
  )
}

const ndjsonResponse = (body: Stream.Stream<string, unknown>) =>
  HttpServerResponse.stream(body.pipe(Stream.map((text) => encoder.encode(text))), {
    contentType: "application/x-ndjson; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })

// The session named by the request's `:id` (only from the index), or a 404 response.
const sessionOf = (context: UiContext) =>
  Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    const found = yield* findSession(context.projects, id)
    return Option.isNone(found) ? Option.none<ClaudeProjects.SessionFile>() : Option.some(found.value)
  })

// The transcript a request names: the session's, or one of its subagents' (`agent`).
const transcriptOf = (context: UiContext, session: ClaudeProjects.SessionFile, agent: string | null) =>
  context.source.transcript(session, agent)

// The raw line `n` of a request's transcript, or the response that says why there is none.
const lineOf = (context: UiContext, session: ClaudeProjects.SessionFile, agent: string | null, n: number) =>
  Effect.gen(function*() {
    const transcript = yield* transcriptOf(context, session, agent)
    if (Option.isNone(transcript)) return Either.left(notFound("no such subagent"))
    const line = yield* transcript.value.line(n)
    return Option.isNone(line) ? Either.left(notFound(`no line ${n}`)) : Either.right(line.value)
  })

const intParam = (value: string | null): number | undefined => {
  if (value === null || !/^-?\d{1,10}$/.test(value)) return undefined
  return Number(value)
}

export const sessionRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/session/:id",
      handled(
        Effect.gen(function*() {
          const found = yield* sessionOf(context)
          if (Option.isNone(found)) return notFound("no such session")
          const session = found.value
          const transcript = yield* transcriptOf(context, session, null)
          if (Option.isNone(transcript)) return notFound("no such session")
          const mask = SecretMask.maskingOn(yield* searchParams)
          const pricing = yield* loadPricing(context)
          const listed = (yield* context.projects.listSessions(session.projectKey)).find((info) =>
            info.sessionId === session.sessionId
          )
          const agents = yield* context.projects.listSubagents(session.projectKey, session.sessionId)
          const cwd = listed?.cwd ?? null
          // named as the list, acx sessions and acx show name it: its title, else its first prompt
          const title = listed === undefined ? undefined : SessionMetadata.displayTitle(listed)
          const header: SessionView.SessionHeader = {
            sessionId: session.sessionId,
            projectKey: session.projectKey,
            project: cwd === null ? session.projectKey : SessionList.lastSegment(cwd),
            title: title ?? null,
            cwd,
            gitBranch: listed?.gitBranch ?? null,
            startTime: listed?.startTime ?? null,
            lastTime: listed?.lastTime ?? null,
            resume: `claude --resume ${session.sessionId}`,
            bytes: listed?.size ?? 0,
            subagents: subagentRows(agents),
            usage: null,
            masked: mask,
            lineCap: LINE_CAP,
            pricing: { source: pricing.source, date: pricing.date }
          }
          // the header at once (the first paint waits for no fold); the session's figure as soon as
          // its fold (cached: usually only a read of the cache) is done, among the items
          const usageLine = Stream.fromEffect(
            Effect.option(sessionFigure(context.source, session, pricing))
          ).pipe(Stream.filterMap(Option.map((usage) => ndjson(SecretMask.shown(mask)({ type: "usage", usage })))))
          return ndjsonResponse(
            // the whole header through the mask: title, cwd, project, branch, subagents' meta
            Stream.make(ndjson({ type: "header", header: SecretMask.shown(mask)(header) })).pipe(
              Stream.concat(itemLines(transcript.value, mask, pricing, usageLine))
            )
          )
        }).pipe(Effect.withSpan("SessionRoutes.session"))
      )
    ),
    HttpRouter.get(
      "/api/session/:id/subagent/:agentId",
      handled(
        Effect.gen(function*() {
          const found = yield* sessionOf(context)
          if (Option.isNone(found)) return notFound("no such session")
          const { agentId } = yield* HttpRouter.params
          const transcript = yield* transcriptOf(context, found.value, agentId ?? "")
          if (Option.isNone(transcript)) return notFound("no such subagent")
          const mask = SecretMask.maskingOn(yield* searchParams)
          const pricing = yield* loadPricing(context)
          return ndjsonResponse(itemLines(transcript.value, mask, pricing))
        }).pipe(Effect.withSpan("SessionRoutes.subagent"))
      )
    ),
    HttpRouter.get(
      "/api/session/:id/block",
      handled(
        Effect.gen(function*() {
          const found = yield* sessionOf(context)
          if (Option.isNone(found)) return notFound("no such session")
          const params = yield* searchParams
          const line = intParam(params.get("line"))
          const block = intParam(params.get("block"))
          const sub = intParam(params.get("sub"))
          if (line === undefined || block === undefined || (params.has("sub") && sub === undefined)) {
            return problem(400, "line and block must be integers")
          }
          const raw = yield* lineOf(context, found.value, params.get("agent"), line)
          if (Either.isLeft(raw)) return raw.left
          const size = raw.right.size
          if (size > LINE_CAP) return problem(413, `line ${line} is ${size} bytes: download it instead`)
          const bytes = yield* raw.right.bytes.pipe(
            Stream.runCollect,
            Effect.map((chunks) => {
              const out = new Uint8Array(size)
              let at = 0
              for (const chunk of chunks) {
                out.set(chunk.subarray(0, size - at), at)
                at += chunk.length
              }
              return out
            })
          )
          const parsed = parseLine(bytes, line)
          const full = parsed !== undefined && "entry" in parsed
            ? SessionBlocks.fullBlock(parsed.entry, { block, ...(sub === undefined ? {} : { sub }) })
            : undefined
          if (full === undefined) return notFound(`no such block in line ${line}`)
          // masked as the fold masked the cut text: the same function over the same text
          const body: SessionView.BlockResponse = "text" in full
            ? { text: masker(SecretMask.maskingOn(params))(full.text) }
            : full
          return json(body)
        }).pipe(Effect.withSpan("SessionRoutes.block"))
      )
    ),
    HttpRouter.get(
      "/api/session/:id/line/:n",
      handled(
        Effect.gen(function*() {
          const found = yield* sessionOf(context)
          if (Option.isNone(found)) return notFound("no such session")
          const params = yield* searchParams
          const { n } = yield* HttpRouter.params
          const line = intParam(n ?? null)
          if (line === undefined) return problem(400, "the line must be an integer")
          const agent = params.get("agent")
          const located = yield* lineOf(context, found.value, agent, line)
          if (Either.isLeft(located)) return located.left
          const name = `${found.value.sessionId}${agent === null ? "" : `-agent-${agent}`}-line-${line}.json`
          const headers = { "content-disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}"` }
          const raw = located.right.bytes
          if (!SecretMask.maskingOn(params)) {
            return HttpServerResponse.stream(raw, { contentType: "application/json", headers })
          }
          // masking needs the text: the line is read whole once (the page's cap keeps it out of the fold)
          const text = yield* raw.pipe(Stream.decodeText(), Stream.runFold("", (all, piece) => all + piece))
          return HttpServerResponse.text(SecretMask.maskJsonText(text), { contentType: "application/json", headers })
        }).pipe(Effect.withSpan("SessionRoutes.line"))
      )
    ),
    HttpRouter.get(
      "/api/session/:id/events",
      handled(
        Effect.gen(function*() {
          const found = yield* sessionOf(context)
          if (Option.isNone(found)) return notFound("no such session")
          const params = yield* searchParams
          const from = intParam(params.get("from"))
          if (from === undefined || from < 0) return problem(400, "from must be where the read ended (its end)")
          const pricing = yield* loadPricing(context)
          // one reader per transcript, shared by every open stream of it
          const events = context.live.events(found.value, from, SecretMask.maskingOn(params), pricing)
          return HttpServerResponse.stream(events, {
            contentType: "text/event-stream",
            headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
          })
        }).pipe(Effect.withSpan("SessionRoutes.events"))
      )
    )
  )
