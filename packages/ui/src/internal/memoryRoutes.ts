/**
 * The memory page's routes: `GET /api/memory` (exists?, projects, worker, queue, settings),
 * `/api/memory/observations` (timeline or search, each observation with the turn it came from),
 * `/api/memory/session/:id`, `/api/memory/context` (what `acx memory context` prints, byte for
 * byte), `/api/memory/spend`, `/api/memory/events` (new observations over SSE, driven by
 * `fs.watch` on the database and its WAL), and the page's only writes, `POST
 * /api/memory/forget` and `/api/memory/restore` (soft delete and undo). Secrets are masked
 * unless `mask=0`. Without `$ACX_HOME/memory.db` the answers say so; none creates it.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryAdmin from "@acx/memory/MemoryAdmin"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryContext from "@acx/memory/MemoryContext"
import { MemoryError } from "@acx/memory/MemoryError"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import * as MemorySearch from "@acx/memory/MemorySearch"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as MemoryView from "../MemoryView.js"
import * as SecretMask from "../SecretMask.js"
import type { UiContext } from "./context.js"
import { handled, json, notFound, problem, searchParams } from "./http.js"

const ENABLE = "acx memory install"

const noDatabase = (context: UiContext) =>
  notFound(`no memory database at ${context.memory.file}: \`${ENABLE}\` turns the memory on`)

/** The body, its secrets masked unless the request said `mask=0`. */
const masked = (params: URLSearchParams, body: unknown, status = 200) =>
  json(SecretMask.shown(SecretMask.maskingOn(params))(body), status)

/** An invalid argument is the request's fault (400); anything else is the server's. */
const badRequest = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.catchIf(
    effect,
    (error) => error instanceof MemoryError && error.reason === "InvalidArgument",
    (error) => Effect.succeed(problem(400, (error as MemoryError).description))
  )

// -------------------------------------------------------------------------------------------------
// the turn each observation came from
// -------------------------------------------------------------------------------------------------

/** Observations with their turns: one read of their events, one of the session index, and one
 * transcript read per session whose turn is a prompt. */
const withTurns = (
  context: UiContext,
  rows: ReadonlyArray<MemoryView.ObservationRow>,
  snippets: ReadonlyMap<number, string> = new Map()
) =>
  Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    const eventIds = [...new Set(rows.flatMap((row) => row.eventIds))]
    const events = eventIds.length === 0 ? [] : yield* repo.events({ ids: eventIds, order: "oldest" })
    const byId = new Map(events.map((event) => [event.id, event]))
    const listed = new Map(
      (yield* context.projects.listSessionFiles()).map((file) => [file.sessionId, file] as const)
    )
    const prompts = new Map<string, ReadonlyArray<MemoryView.PromptEntry>>()
    const promptsOf = (file: ClaudeProjects.SessionFile) =>
      Effect.gen(function*() {
        const known = prompts.get(file.sessionId)
        if (known !== undefined) return known
        // a transcript that cannot be read gives no uuid, not a failed page
        const read = yield* Effect.option(context.projects.readSession(file.projectKey, file.sessionId))
        const entries = Option.match(read, { onNone: () => [], onSome: (r) => MemoryView.promptEntries(r.entries) })
        prompts.set(file.sessionId, entries)
        return entries
      })
    return yield* Effect.forEach(rows, (row) =>
      Effect.gen(function*() {
        const view = MemoryView.observationView(row, null, snippets.get(row.id) ?? null)
        const file = listed.get(row.sessionId)
        const own = row.eventIds.flatMap((id) => {
          const event = byId.get(id)
          return event === undefined ? [] : [event]
        })
        const event = MemoryView.sourceEvent(view, own)
        if (file === undefined || event === undefined) return view
        const prompt = MemoryView.promptOf(event)
        const uuid = prompt === undefined
          ? undefined
          : MemoryView.promptEntryUuid(prompt, event.createdAt, yield* promptsOf(file))
        return { ...view, from: MemoryView.turnLink(event, uuid) }
      }))
  }).pipe(Effect.withSpan("MemoryRoutes.withTurns"))

// -------------------------------------------------------------------------------------------------
// reads
// -------------------------------------------------------------------------------------------------

const overview = (context: UiContext) =>
  Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    const paths = MemoryConfig.paths(context.acxHome)
    const settings = MemoryConfig.load(context.acxHome)
    const status = yield* repo.status(paths, settings)
    const projects = yield* repo.projects
    const { config } = settings
    const body: MemoryView.MemoryOverview = {
      exists: true,
      database: paths.database,
      projects,
      worker: {
        running: status.worker.running,
        pid: status.worker.pid,
        heartbeatAt: status.worker.heartbeatAt,
        localReason: status.worker.localReason,
        observer: MemoryAdmin.modelLine(status, config, MemoryAdmin.observerCredentials(paths, process.env))
      },
      queue: status.queue,
      counts: status.counts,
      forgotten: status.forgotten,
      settings: {
        mode: config.mode,
        model: config.model,
        contextTokens: config.contextTokens,
        dailyBudgetUsd: config.dailyBudgetUsd,
        dailyBudgetTokens: config.dailyBudgetTokens
      }
    }
    return body
  }).pipe(Effect.withSpan("MemoryRoutes.overview"))

const observations = (context: UiContext, query: MemoryView.ObservationsQuery) =>
  Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    if (query.q !== undefined) {
      // ranked by the memory's own search; only observations are the timeline's
      const found = (yield* repo.search(query.q, {
        project: query.project,
        type: query.type,
        limit: 1000
      })).filter((result) => result.kind === "observation").slice(0, query.limit)
      const ids = found.flatMap((result) => {
        const parsed = MemorySearch.parseId(result.id)
        return parsed === undefined ? [] : [parsed.id]
      })
      const rows = ids.length === 0 ? [] : yield* repo.observations({ ids, order: "oldest" })
      const order = new Map(ids.map((id, index) => [id, index]))
      const ranked = [...rows].sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      const snippets = new Map(found.map((result) => [Number(result.id.slice(1)), result.snippet]))
      const body: MemoryView.ObservationsResponse = {
        observations: yield* withTurns(context, ranked, snippets),
        next: null
      }
      return body
    }
    const rows = yield* repo.observations({
      project: query.project,
      type: query.type,
      before: query.before,
      limit: query.limit + 1,
      order: "newest"
    })
    const page = rows.slice(0, query.limit)
    const body: MemoryView.ObservationsResponse = {
      observations: yield* withTurns(context, page),
      next: rows.length > query.limit ? page.at(-1)!.id : null
    }
    return body
  }).pipe(Effect.withSpan("MemoryRoutes.observations"))

// memory session ids are Claude Code's (UUIDs); anything with a slash or a dot-dot names nothing
const SESSION_ID = /^[\w-]{1,128}$/

const sessionMemory = (context: UiContext, sessionId: string) =>
  Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    const session = yield* repo.session(sessionId)
    const summaries = yield* repo.summaries({ sessionId, order: "oldest" })
    const rows = yield* repo.observations({ sessionId, order: "oldest" })
    if (session === undefined && summaries.length === 0 && rows.length === 0) return Option.none()
    const body: MemoryView.SessionMemoryResponse = {
      sessionId,
      project: session?.project ?? rows[0]?.project ?? null,
      status: session?.status ?? null,
      summaries: summaries.map(MemoryView.summaryView),
      observations: yield* withTurns(context, rows)
    }
    return Option.some(body)
  }).pipe(Effect.withSpan("MemoryRoutes.session"))

const spend = (context: UiContext) =>
  Effect.gen(function*() {
    const rows = yield* Effect.flatMap(MemoryRepo.MemoryRepo, (repo) => repo.spendByDay)
    const { config } = MemoryConfig.load(context.acxHome)
    return MemoryView.spend(rows, { usd: config.dailyBudgetUsd, tokens: config.dailyBudgetTokens })
  }).pipe(Effect.withSpan("MemoryRoutes.spend"))

// -------------------------------------------------------------------------------------------------
// live
// -------------------------------------------------------------------------------------------------

const encoder = new TextEncoder()

/**
 * A change of the database or its WAL (no polling: the kernel says when a write happened), and
 * one at the start, once the watches are in place: what was written before is read then, and
 * nothing written after slips between that read and the watch.
 */
const changes = (file: string) =>
  Stream.async<void>((emit) => {
    const watchers = [file, `${file}-wal`].flatMap((watched) => {
      try {
        const watcher = fs.watch(watched, { persistent: false }, () => void emit.single(undefined))
        watcher.on("error", () => watcher.close())
        return [watcher]
      } catch {
        return []
      }
    })
    void emit.single(undefined)
    return Effect.sync(() => {
      for (const watcher of watchers) watcher.close()
    })
  })

/** New observations (id above the last one sent), as SSE events, from `after` on. */
const liveObservations = (context: UiContext, after: number, mask: boolean) => {
  let last = after
  const newRows = context.memory.use(Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    const rows = yield* repo.observations({ after: last, limit: MemoryView.MAX_LIMIT, order: "oldest" })
    if (rows.length > 0) last = rows.at(-1)!.id
    return yield* withTurns(context, rows)
  }))
  const event = (view: MemoryView.ObservationView) =>
    `event: observation\nid: ${view.rowId}\ndata: ${JSON.stringify(SecretMask.shown(mask)(view))}\n\n`
  return Stream.concat(
    Stream.make(": live\n\n"),
    changes(context.memory.file).pipe(
      // writes that land while a read runs are one more read, not one each
      Stream.buffer({ capacity: 1, strategy: "sliding" }),
      Stream.mapEffect(() => newRows),
      Stream.flatMap((found) =>
        Stream.fromIterable(Option.getOrElse(found, (): ReadonlyArray<MemoryView.ObservationView> => []))
      ),
      Stream.map(event)
    )
  ).pipe(Stream.map((text) => encoder.encode(text)))
}

// -------------------------------------------------------------------------------------------------
// routes
// -------------------------------------------------------------------------------------------------

const body = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Effect.either(request.json))

/** Runs a read on the database, or answers that there is none. */
const withDatabase = <E>(
  context: UiContext,
  read: Effect.Effect<HttpServerResponse.HttpServerResponse, E, MemoryRepo.MemoryRepo>
) =>
  Effect.map(
    context.memory.use(read),
    Option.getOrElse(() => noDatabase(context))
  )

/** `GET /api/memory`: the overview, or where the database would be and how to enable memory. */
const overviewRoute = (context: UiContext) =>
  handled(Effect.gen(function*() {
    const params = yield* searchParams
    const found = yield* context.memory.use(overview(context))
    return Option.match(found, {
      onNone: () =>
        masked(
          params,
          {
            exists: false,
            database: context.memory.file,
            enable: ENABLE
          } satisfies MemoryView.MemoryOverview
        ),
      onSome: (overview) => masked(params, overview)
    })
  }))

/** `GET /api/memory/observations`: a page of observations for the query. */
const observationsRoute = (context: UiContext) =>
  handled(Effect.gen(function*() {
    const params = yield* searchParams
    const query = MemoryView.observationsQuery(params)
    if (Either.isLeft(query)) return problem(400, query.left)
    return yield* badRequest(
      withDatabase(context, Effect.map(observations(context, query.right), (b) => masked(params, b)))
    )
  }))

/** `GET /api/memory/session/:id`: what the memory holds of one session. */
const sessionRoute = (context: UiContext) =>
  handled(Effect.gen(function*() {
    const params = yield* searchParams
    const { id } = yield* HttpRouter.params
    if (id === undefined || !SESSION_ID.test(id)) return notFound("no such session in the memory")
    return yield* withDatabase(
      context,
      Effect.map(
        sessionMemory(context, id),
        Option.match({
          onNone: () => notFound("no such session in the memory"),
          onSome: (found) => masked(params, found)
        })
      )
    )
  }))

/** `GET /api/memory/context?project=DIR`: the context the hook would give a session in DIR. */
const contextRoute = (context: UiContext) =>
  handled(
    Effect.gen(function*() {
      const params = yield* searchParams
      const project = params.get("project")
      if (project === null || !path.isAbsolute(project)) {
        return problem(400, "project must be the absolute directory Claude Code ran in")
      }
      // the hook's own query and rendering; without a database it opens nothing and says so
      const report = yield* Effect.try(() => HookRunner.contextReport(context.acxHome, project))
      const mask = SecretMask.maskingOn(params)
      const text = `${mask ? SecretMask.maskText(report.text) : report.text}\n`
      return HttpServerResponse.text(text, {
        contentType: "text/plain; charset=utf-8",
        headers: {
          "x-acx-context-tokens": String(report.context === "" ? 0 : MemoryContext.estimateTokens(report.context)),
          "x-acx-context-budget": String(MemoryConfig.load(context.acxHome).config.contextTokens)
        }
      })
    }).pipe(Effect.withSpan("MemoryRoutes.context"))
  )

/** `GET /api/memory/spend`: the observer's spend (it names projects and sessions: masked like every other answer). */
const spendRoute = (context: UiContext) =>
  handled(
    Effect.flatMap(
      searchParams,
      (params) => withDatabase(context, Effect.map(spend(context), (b) => masked(params, b)))
    )
  )

/** `GET /api/memory/events`: new observations as server-sent events, from `after` (or Last-Event-ID) on. */
const eventsRoute = (context: UiContext) =>
  handled(
    Effect.gen(function*() {
      const params = yield* searchParams
      const request = yield* HttpServerRequest.HttpServerRequest
      // a reconnecting EventSource says where it stopped: nothing written meanwhile is missed
      const afterText = params.get("after") ?? request.headers["last-event-id"] ?? null
      const after = afterText === null ? undefined : Number(afterText)
      if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) {
        return problem(400, "after must be an observation's row id")
      }
      const start = yield* context.memory.use(
        Effect.flatMap(MemoryRepo.MemoryRepo, (repo) => repo.lastObservationId)
      )
      if (Option.isNone(start)) {
        return noDatabase(context)
      }
      const from = after ?? start.value
      return HttpServerResponse.stream(liveObservations(context, from, SecretMask.maskingOn(params)), {
        contentType: "text/event-stream",
        headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
      })
    }).pipe(Effect.withSpan("MemoryRoutes.events"))
  )

/**
 * A curation request: the JSON body decoded with `schema` (a 400 for a body that is not JSON or
 * not of the schema), then `change` run on the memory.
 */
const curation = <A, I, E>(
  context: UiContext,
  schema: Schema.Schema<A, I>,
  change: (request: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, MemoryRepo.MemoryRepo>
) =>
  Effect.gen(function*() {
    const raw = yield* body
    if (Either.isLeft(raw)) return problem(400, "the body must be JSON")
    const decoded = MemoryView.decodeBody(schema, raw.right)
    if (Either.isLeft(decoded)) return problem(400, decoded.left)
    return yield* badRequest(withDatabase(context, change(decoded.right)))
  })

/** `POST /api/memory/forget`: forgets the observations named by ids or by a filter. */
const forgetRoute = (context: UiContext) =>
  handled(
    curation(context, MemoryView.ForgetBody, (selection) =>
      Effect.map(
        Effect.flatMap(
          MemoryRepo.MemoryRepo,
          (repo) => repo.forget("ids" in selection ? { ids: selection.ids } : { filter: selection.filter })
        ),
        (forgotten) => json({ forgotten } satisfies MemoryView.CurationResponse)
      )).pipe(Effect.withSpan("MemoryRoutes.forget"))
  )

/** `POST /api/memory/restore`: brings forgotten observations back. */
const restoreRoute = (context: UiContext) =>
  handled(
    curation(context, MemoryView.RestoreBody, (request) =>
      Effect.map(
        Effect.flatMap(MemoryRepo.MemoryRepo, (repo) => repo.restore(request.ids)),
        (restored) => json({ restored } satisfies MemoryView.CurationResponse)
      )).pipe(Effect.withSpan("MemoryRoutes.restore"))
  )

/** The memory page's API: reads, live observations, and curation. */
export const memoryRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/api/memory", overviewRoute(context)),
    HttpRouter.get("/api/memory/observations", observationsRoute(context)),
    HttpRouter.get("/api/memory/session/:id", sessionRoute(context)),
    HttpRouter.get("/api/memory/context", contextRoute(context)),
    HttpRouter.get("/api/memory/spend", spendRoute(context)),
    HttpRouter.get("/api/memory/events", eventsRoute(context)),
    HttpRouter.post("/api/memory/forget", forgetRoute(context)),
    HttpRouter.post("/api/memory/restore", restoreRoute(context))
  )
