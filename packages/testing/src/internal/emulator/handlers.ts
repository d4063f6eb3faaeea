/**
 * The emulated routes, as functions from a parsed request to a status and a JSON body. Check
 * order, status codes and error texts follow the Acontext server's handlers and middleware
 * (memodb-io/Acontext, under `src/server/api/go/internal/`).
 *
 * @internal
 */
import type * as Acontext from "@acx/schema/Acontext"
import { isObject } from "@acx/schema/Json"
import * as Effect from "effect/Effect"
import { estimateTokens, normalize, toAnthropic } from "./anthropic.js"
import * as Go from "./go.js"
import type { MessageRecord, ProjectRecord, SessionRecord, Store } from "./store.js"

/** @internal */
export interface Request {
  readonly query: URLSearchParams
  readonly contentType: string
  readonly bodyText: string
  readonly params: Readonly<Record<string, string | undefined>>
}

/** @internal */
export interface Response {
  readonly status: number
  readonly body: unknown
}

/** @internal */
export interface Env {
  readonly store: Store
  /** A strictly increasing RFC 3339 timestamp with microseconds. */
  readonly now: () => string
  readonly uuid: () => string
}

/** @internal */
export type Handler = (env: Env, project: ProjectRecord, request: Request) => Effect.Effect<Response>

/** The largest user meta accepted, in bytes of Go-marshalled JSON. */
const MaxMetaSize = 64 * 1024

/** The message of a 400 for a format the emulator does not implement. */
const FORMAT_NOT_SUPPORTED = "format not supported by the acx emulator"

const respond = (status: number, body: unknown): Response => ({ status, body })

/** `serializer.Response{Data}`: `{"code":0,"data":…,"msg":""}` (no `data` when undefined). */
const success = (status: number, data?: unknown): Response =>
  respond(status, data === undefined ? { code: 0, msg: "" } : { code: 0, data, msg: "" })

/** `serializer.ParamErr(msg, err)`. */
const paramErr = (msg: string, error?: string): Response =>
  respond(
    400,
    error === undefined ? { code: 400, msg: msg || "parameter error" } : {
      code: 400,
      msg: msg || "parameter error",
      error
    }
  )

/** `serializer.DBErr("", err)` sent with the given HTTP status. */
const dbErr = (status: number, error: string): Response => respond(status, { code: 500, msg: "database error", error })

/**
 * The DTO of a session.
 *
 * @internal
 */
export const sessionDto = (s: SessionRecord): Acontext.Session => ({
  id: s.id,
  project_id: s.projectId,
  user_id: s.userId,
  disable_task_tracking: s.disableTaskTracking,
  configs: s.configs,
  created_at: s.createdAt,
  updated_at: s.updatedAt
})

/**
 * The user meta of a stored message (`{}` when none was given).
 *
 * @internal
 */
export const userMeta = (m: MessageRecord): { readonly [key: string]: unknown } => {
  const meta = m.meta["__user_meta__"]
  return isObject(meta) ? meta : {}
}

/**
 * The DTO of a stored message, as `POST …/messages` returns it (user meta only).
 *
 * @internal
 */
export const messageDto = (m: MessageRecord): Acontext.Message => ({
  id: m.id,
  session_id: m.sessionId,
  parent_id: m.parentId,
  role: m.role,
  meta: userMeta(m),
  parts: m.parts,
  task_id: null,
  session_task_process_status: m.taskProcessStatus,
  created_at: m.createdAt,
  updated_at: m.updatedAt
})

const encodeCursor = (seq: number): string => Buffer.from(`acx-emulator:${seq}`, "utf8").toString("base64")

const decodeCursor = (cursor: string): Go.Result<number> => {
  const match = /^acx-emulator:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"))
  return match === null ? Go.err(`invalid cursor: ${Go.goQuote(cursor)}`) : Go.ok(Number(match[1]))
}

/** Decodes a request body as gin's `ShouldBind` would for this content type. */
const bindBody = (request: Request, goType: string): Go.Result<{ readonly [key: string]: unknown }> => {
  const isJson = request.contentType.includes("json")
  if (!isJson && request.bodyText.trim() === "") return Go.ok({})
  if (!isJson && request.contentType.includes("application/x-www-form-urlencoded")) {
    return Go.ok(Object.fromEntries(new URLSearchParams(request.bodyText)))
  }
  const decoded = Go.decodeJsonBody(request.bodyText)
  if (!decoded.ok) return decoded
  if (!isObject(decoded.value)) return Go.err(Go.unmarshalValueError(decoded.value, goType))
  return Go.ok(decoded.value)
}

/** Checks the JSON type of optional fields; `null` is always accepted. */
const checkFields = (
  struct: string,
  body: { readonly [key: string]: unknown },
  fields: ReadonlyArray<readonly [name: string, check: (v: unknown) => boolean, goType: string]>
): string | undefined => {
  for (const [name, check, goType] of fields) {
    const value = body[name]
    if (value !== undefined && value !== null && !check(value)) {
      return Go.unmarshalFieldError(struct, name, value, goType)
    }
  }
  return undefined
}

const isString = (v: unknown): v is string => typeof v === "string"
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean"

/** `POST /session`. */
const createSession: Handler = (env, project, request) =>
  Effect.gen(function*() {
    const bound = bindBody(request, "handler.CreateSessionReq")
    if (!bound.ok) return paramErr("", bound.error)
    const body = bound.value
    const typeError = checkFields("CreateSessionReq", body, [
      ["user", isString, "string"],
      ["disable_task_tracking", isBoolean, "bool"],
      ["configs", isObject, "map[string]interface {}"],
      ["use_uuid", isString, "string"]
    ])
    if (typeError !== undefined) return paramErr("", typeError)

    let id: string | undefined
    const useUuid = body["use_uuid"]
    if (typeof useUuid === "string" && useUuid !== "") {
      const parsed = Go.parseUuid(useUuid)
      if (!parsed.ok) return paramErr("invalid UUID format for use_uuid", parsed.error)
      id = parsed.value
      const existing = yield* env.store.findSession(id)
      if (existing !== undefined) {
        return existing.projectId === project.id
          ? success(200, sessionDto(existing))
          : respond(409, { code: 409, msg: "session with this UUID already exists" })
      }
    }

    const user = body["user"]
    const userId = typeof user === "string" && user !== ""
      ? yield* env.store.getOrCreateUser(project.id, user, env.uuid())
      : null
    const configs = body["configs"]
    const now = env.now()
    const session = yield* env.store.insertSession({
      id: id ?? env.uuid(),
      projectId: project.id,
      userId,
      disableTaskTracking: body["disable_task_tracking"] === true,
      configs: isObject(configs) ? configs : null,
      createdAt: now,
      updatedAt: now
    })
    return success(201, sessionDto(session))
  })

/** JSONB containment (`@>`), for `filter_by_configs`. */
const contains = (target: unknown, filter: unknown): boolean => {
  if (isObject(filter)) {
    return isObject(target) && Object.keys(filter).every((k) => k in target && contains(target[k], filter[k]))
  }
  if (Array.isArray(filter)) {
    return Array.isArray(target) && filter.every((f) => target.some((t) => contains(t, f)))
  }
  return target === filter
}

/** `GET /session`. */
const listSessions: Handler = (env, project, request) =>
  Effect.gen(function*() {
    const q = request.query
    const limitParsed = q.has("limit") ? Go.parseInt64(q.get("limit")!) : Go.ok(20)
    if (!limitParsed.ok) return paramErr("", limitParsed.error)
    const timeDesc = Go.parseBool(q.get("time_desc") ?? "")
    if (!timeDesc.ok) return paramErr("", timeDesc.error)
    const limit = limitParsed.value
    if (limit === 0) return paramErr("", Go.validationError("GetSessionsReq", "Limit", "required"))
    if (limit < 1) return paramErr("", Go.validationError("GetSessionsReq", "Limit", "min"))
    if (limit > 200) return paramErr("", Go.validationError("GetSessionsReq", "Limit", "max"))

    let filter: { readonly [key: string]: unknown } | undefined
    const filterText = q.get("filter_by_configs") ?? ""
    if (filterText !== "") {
      const decoded = Go.decodeJsonBody(filterText)
      if (!decoded.ok) return paramErr("invalid filter_by_configs JSON", decoded.error)
      if (!isObject(decoded.value)) {
        return paramErr(
          "invalid filter_by_configs JSON",
          Go.unmarshalValueError(decoded.value, "map[string]interface {}")
        )
      }
      if (Object.keys(decoded.value).length > 0) filter = decoded.value
    }

    const cursorText = q.get("cursor") ?? ""
    let after: number | undefined
    if (cursorText !== "") {
      const cursor = decodeCursor(cursorText)
      if (!cursor.ok) return dbErr(500, cursor.error)
      after = cursor.value
    }

    const userText = q.get("user") ?? ""
    let userId: string | undefined
    if (userText !== "") {
      userId = yield* env.store.findUser(project.id, userText)
      if (userId === undefined) return success(200, { items: [], has_more: false })
    }

    let sessions = [...(yield* env.store.listSessions(project.id, userId))]
    if (filter !== undefined) sessions = sessions.filter((s) => contains(s.configs, filter))
    if (timeDesc.value) sessions.reverse()
    if (after !== undefined) {
      const a = after
      sessions = sessions.filter((s) => (timeDesc.value ? s.seq < a : s.seq > a))
    }
    const page = sessions.slice(0, limit + 1)
    const hasMore = page.length > limit
    const items = hasMore ? page.slice(0, limit) : page
    return success(200, {
      items: items.map(sessionDto),
      ...(hasMore ? { next_cursor: encodeCursor(items.at(-1)!.seq) } : {}),
      has_more: hasMore
    })
  })

/** `DELETE /session/{id}`. */
const deleteSession: Handler = (env, project, request) =>
  Effect.gen(function*() {
    const parsed = Go.parseUuid(request.params["id"] ?? "")
    if (!parsed.ok) return paramErr("", parsed.error)
    const session = yield* env.store.findSession(parsed.value)
    if (session === undefined) return respond(404, { code: 404, msg: "session not found" })
    if (session.projectId !== project.id) {
      return respond(403, { code: 403, msg: "access denied: session does not belong to this project" })
    }
    yield* env.store.deleteSession(session.id)
    return success(200)
  })

const formats = ["acontext", "openai", "anthropic", "gemini"]

/** `POST /session/{id}/messages`. */
const storeMessage: Handler = (env, project, request) =>
  Effect.gen(function*() {
    const bound = bindBody(request, "handler.StoreMessageReq")
    if (!bound.ok) return paramErr("", bound.error)
    const body = bound.value
    const typeError = checkFields("StoreMessageReq", body, [
      ["format", isString, "string"],
      ["meta", isObject, "map[string]interface {}"]
    ])
    if (typeError !== undefined) return paramErr("", typeError)
    const blob = body["blob"]
    const format = typeof body["format"] === "string" ? body["format"] : ""
    const bindingErrors: Array<string> = []
    if (blob === undefined || blob === null) {
      bindingErrors.push(Go.validationError("StoreMessageReq", "Blob", "required"))
    }
    if (format !== "" && !formats.includes(format)) {
      bindingErrors.push(Go.validationError("StoreMessageReq", "Format", "oneof"))
    }
    if (bindingErrors.length > 0) return paramErr("", bindingErrors.join("\n"))

    const meta = isObject(body["meta"]) ? body["meta"] : undefined
    if (meta !== undefined && Go.marshalledSize(meta) > MaxMetaSize) return paramErr("meta size exceeds 64KB limit")

    const effectiveFormat = format === "" ? "openai" : format
    if (effectiveFormat !== "anthropic") {
      return paramErr(
        FORMAT_NOT_SUPPORTED,
        `format ${Go.goQuote(effectiveFormat)} is not emulated: only "anthropic" is (format defaults to "openai")`
      )
    }
    const normalized = normalize(blob)
    if (!normalized.ok) return paramErr("failed to normalize anthropic message", normalized.error)

    const sessionId = Go.parseUuid(request.params["id"] ?? "")
    if (!sessionId.ok) return paramErr("", sessionId.error)
    const session = yield* env.store.findSession(sessionId.value)
    if (session === undefined) return dbErr(400, "session not found")
    if (session.projectId !== project.id) return dbErr(400, "session does not belong to project")

    const now = env.now()
    const stored = yield* env.store.insertMessage({
      id: env.uuid(),
      sessionId: session.id,
      role: normalized.value.role,
      meta: {
        source_format: "anthropic",
        ...(meta !== undefined && Object.keys(meta).length > 0 ? { __user_meta__: meta } : {})
      },
      parts: normalized.value.parts,
      taskProcessStatus: session.disableTaskTracking ? "disable_tracking" : "pending",
      createdAt: now,
      updatedAt: now
    })
    return success(201, messageDto(stored))
  })

/** `GET /session/{id}/messages`. */
const getMessages: Handler = (env, project, request) =>
  Effect.gen(function*() {
    const q = request.query
    const limitParsed = Go.parseInt64(q.get("limit") ?? "")
    if (!limitParsed.ok) return paramErr("", limitParsed.error)
    for (const name of ["with_asset_public_url", "with_events", "time_desc"]) {
      const parsed = Go.parseBool(q.get(name) ?? "")
      if (!parsed.ok) return paramErr("", parsed.error)
    }
    const timeDesc = Go.parseBool(q.get("time_desc") ?? "")
    const limit = limitParsed.value
    const format = (q.get("format") ?? "") === "" ? "openai" : q.get("format")!
    const bindingErrors: Array<string> = []
    if (limit < 0) bindingErrors.push(Go.validationError("GetMessagesReq", "Limit", "min"))
    if (limit > 200) bindingErrors.push(Go.validationError("GetMessagesReq", "Limit", "max"))
    if (!formats.includes(format)) bindingErrors.push(Go.validationError("GetMessagesReq", "Format", "oneof"))
    if (bindingErrors.length > 0) return paramErr("", bindingErrors.join("\n"))

    const sessionId = Go.parseUuid(request.params["id"] ?? "")
    if (!sessionId.ok) return paramErr("", sessionId.error)
    if ((q.get("edit_strategies") ?? "") !== "") {
      return paramErr("edit_strategies not supported by the acx emulator", "edit strategies are not emulated")
    }
    const session = yield* env.store.findSession(sessionId.value)
    if (session === undefined || session.projectId !== project.id) return dbErr(400, "session not found")

    const all = yield* env.store.listMessages(session.id)
    let selected: Array<MessageRecord>
    if (limit <= 0) {
      selected = [...all]
    } else {
      const ordered = timeDesc.ok && timeDesc.value ? [...all].reverse() : [...all]
      const cursorText = q.get("cursor") ?? ""
      let window = ordered
      if (cursorText !== "") {
        const cursor = decodeCursor(cursorText)
        if (!cursor.ok) return dbErr(400, cursor.error)
        const after = cursor.value
        window = ordered.filter((m) => (timeDesc.ok && timeDesc.value ? m.seq < after : m.seq > after))
      }
      selected = window.slice(0, limit + 1)
    }
    // The server always sorts the fetched window oldest-first, then cuts it to `limit`.
    selected.sort((a, b) => a.seq - b.seq)
    const hasMore = limit > 0 && selected.length > limit
    const items = hasMore ? selected.slice(0, limit) : selected

    if (format !== "anthropic") {
      return paramErr(
        FORMAT_NOT_SUPPORTED,
        `format ${Go.goQuote(format)} is not emulated: only "anthropic" is (format defaults to "openai")`
      )
    }
    return success(200, {
      items: items.map((m) => toAnthropic(m.role, m.parts)),
      ids: items.map((m) => m.id),
      metas: items.map(userMeta),
      ...(hasMore ? { next_cursor: encodeCursor(items.at(-1)!.seq) } : {}),
      has_more: hasMore,
      this_time_tokens: items.reduce((n, m) => n + estimateTokens(m.parts), 0),
      ...(items.length > 0 ? { edit_at_message_id: items.at(-1)!.id } : {})
    })
  })

/**
 * The handlers, by route.
 *
 * @internal
 */
export const handlers = {
  createSession,
  listSessions,
  deleteSession,
  storeMessage,
  getMessages
} as const
