/**
 * A minimal duck-typed client over `fetch`, shaped like upstream's
 * `@acontext/acontext` `AcontextClient` (`sessions.create({ useUuid, user })`,
 * `sessions.storeMessage(id, blob, { format, meta })`, an `ApiError` with `statusCode` on HTTP
 * errors; no retries). It lets the Promise facade talk to the emulator over real HTTP through
 * its `AcontextClientLike` path.
 */
import type { AcontextClientLike } from "@acx/storage/promise"
import { ApiError } from "./recordingClient.js"

const call = async (url: string, apiKey: string, body: unknown): Promise<unknown> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body)
  })
  const payload = (await response.json()) as { code?: number; msg?: string; data?: unknown }
  if (response.status >= 400) {
    throw new ApiError(response.status, payload.msg ?? response.statusText, payload.code ?? response.status)
  }
  return payload.data
}

/** A duck-typed client on `baseUrl` (with `/api/v1`) and `apiKey`. */
export const fetchClient = (baseUrl: string, apiKey: string): AcontextClientLike => ({
  sessions: {
    create: async (options = {}) => {
      const body: Record<string, unknown> = {}
      if (options.useUuid !== undefined && options.useUuid !== null) body["use_uuid"] = options.useUuid
      if (options.user !== undefined && options.user !== null) body["user"] = options.user
      return (await call(`${baseUrl}/session`, apiKey, body)) as { id: string }
    },
    storeMessage: (sessionId, blob, options = {}) => {
      const body: Record<string, unknown> = { format: options.format ?? "openai", blob }
      if (options.meta !== undefined && options.meta !== null) body["meta"] = options.meta
      return call(`${baseUrl}/session/${sessionId}/messages`, apiKey, body)
    }
  }
})
