/**
 * The worker's lenient readers: an error's first line, a stored observer usage, a string field
 * of an event's JSON payload. Total: what cannot be read is `undefined`.
 */
import type * as AgentUsage from "@acx/convert/AgentUsage"

export const describe = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 500)

export const parseUsage = (json: string | null): AgentUsage.ConversationUsage | undefined => {
  if (json === null) return undefined
  try {
    return JSON.parse(json) as AgentUsage.ConversationUsage
  } catch {
    return undefined
  }
}

export const payloadField = (payload: string, name: string): string | undefined => {
  try {
    const value = (JSON.parse(payload) as Record<string, unknown>)[name]
    return typeof value === "string" ? value : undefined
  } catch {
    return undefined
  }
}
