/**
 * `GET /api/session/:id/export?format=markdown|anthropic|jsonl[&mask=0][&thinking=0]`: the
 * session as `acx show -f FORMAT` prints it, byte for byte, as a download: secrets masked (both
 * mask by default), or as written with `mask=0` (`acx show --no-mask`).
 */
import * as SessionExport from "@acx/claude-code/SessionExport"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SecretMask from "../SecretMask.js"
import type { UiContext } from "./context.js"
import { findSession } from "./findSession.js"
import { handled, notFound, problem, searchParams } from "./http.js"

const CONTENT_TYPES: Readonly<Record<SessionExport.ExportFormat, string>> = {
  markdown: "text/markdown; charset=utf-8",
  anthropic: "application/json; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8"
}

const isFormat = (value: string): value is SessionExport.ExportFormat =>
  (SessionExport.formats as ReadonlyArray<string>).includes(value)

export const exportRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/session/:id/export",
      handled(Effect.gen(function*() {
        const params = yield* searchParams
        const format = params.get("format") ?? "markdown"
        if (!isFormat(format)) {
          return problem(400, `format: ${JSON.stringify(format)} is not one of ${SessionExport.formats.join(", ")}`)
        }
        const { id } = yield* HttpRouter.params
        const found = yield* findSession(context.projects, id)
        if (Option.isNone(found)) return notFound(`no session ${JSON.stringify(id ?? "")}`)
        const session = found.value
        const read = yield* context.projects.readSession(session.projectKey, session.sessionId)
        const agents = format === "markdown"
          ? yield* context.projects.listSubagents(session.projectKey, session.sessionId)
          : []
        const chunks = SessionExport.exportChunks(read.entries, {
          format,
          sessionId: session.sessionId,
          includeThinking: params.get("thinking") !== "0",
          subagentIds: agents.map((agent) => agent.agentId),
          mask: SecretMask.maskingOn(params)
        })
        const shownChunks = Stream.fromIterable(chunks)
        return HttpServerResponse.stream(shownChunks.pipe(Stream.encodeText), {
          contentType: CONTENT_TYPES[format],
          headers: {
            "content-disposition": `attachment; filename="${SessionExport.fileName(session.sessionId, format)}"`
          }
        })
      }))
    )
  )
