/**
 * Session-id resolution (docs/convert.md, rule 2; ids must be UUIDs: docs/design.md#behaviour-decisions-for-claudeagentstorage).
 *
 * @since 0.1.0
 */
import { isUuid } from "@acx/schema/SessionId"
import { get, isObj } from "./internal/json.js"
import { fromPythonMessage } from "./PythonShape.js"

/**
 * What a message says about the session id:
 * - `None`: nothing (a user or assistant message, or no string `session_id`);
 * - `Valid`: a UUID `session_id` on a non-storable message;
 * - `Invalid`: a `session_id` that is not a UUID (Acontext would reject it with 400).
 *
 * @since 0.1.0
 * @category models
 */
export type SessionIdCandidate =
  | { readonly _tag: "None" }
  | { readonly _tag: "Valid"; readonly id: string }
  | { readonly _tag: "Invalid"; readonly raw: string }

const none: SessionIdCandidate = { _tag: "None" }

/**
 * Reads the session id a message offers. Only non-storable messages offer one (system,
 * result, stream_event, tool_progress, …): user and assistant messages never do, even though
 * the TypeScript SDK puts `session_id` on them too. Python-shaped messages are normalised first
 * (an init `SystemMessage` offers `data.session_id`).
 *
 * @since 0.1.0
 * @category session ids
 */
export const sessionIdCandidate = (message: unknown): SessionIdCandidate => {
  const normalized = fromPythonMessage(message)
  if (!isObj(normalized)) return none
  const type = normalized["type"]
  if (typeof type !== "string" || type === "user" || type === "assistant") return none
  const id = get(normalized, "session_id")
  if (typeof id !== "string" || id === "") return none
  return isUuid(id) ? { _tag: "Valid", id } : { _tag: "Invalid", raw: id }
}

/**
 * The UUID session id a non-storable message carries, or `null` (user/assistant messages,
 * messages without `session_id`, and non-UUID ids all give `null`).
 *
 * @since 0.1.0
 * @category session ids
 */
export const getSessionIdFromMessage = (message: unknown): string | null => {
  const candidate = sessionIdCandidate(message)
  return candidate._tag === "Valid" ? candidate.id : null
}
