/**
 * The Python Claude Agent SDK's messages, as `dataclasses.asdict()` gives them (no `type` keys
 * anywhere), normalised into the TypeScript SDK's shapes so that one set of rules serves both.
 * Identification is by key presence, in the order of Acontext's Python integration
 * (docs/convert.md, rule 10).
 *
 * @since 0.1.0
 */
import * as PythonMessage from "@acx/schema/PythonMessage"
import { get, isObj, type Obj } from "./internal/json.js"

/**
 * Adds the `type` a Python-shaped content block lacks, by key presence in the Python plan's
 * order: thinking (`thinking` + `signature`) → tool_use (`id` + `name` + `input`) → tool_result
 * (`tool_use_id`) → text (`text`). A block that already has a `type` key, or matches none of
 * these, is returned unchanged (and is later skipped as unknown).
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromPythonBlock = (block: unknown): unknown => {
  if (!isObj(block) || "type" in block) return block
  const kind = PythonMessage.classifyPythonBlock(block)
  return kind === "unknown" ? block : { type: kind, ...block }
}

const fromPythonContent = (content: unknown): unknown => Array.isArray(content) ? content.map(fromPythonBlock) : content

/**
 * Which Python message a value is, by key presence (`undefined` when it is not one):
 * assistant = `content` + `model`; user = `content` without `model`; system = `subtype` +
 * `data` without `content`; result = `subtype` + `session_id` without `content`; stream event =
 * `uuid` + `session_id` + `event`. A value with a `type` key is never Python-shaped (the Python
 * SDK's dicts have none).
 *
 * @since 0.1.0
 * @category guards
 */
export const pythonMessageKind = (
  message: unknown
): Exclude<PythonMessage.PythonMessageKind, "unknown"> | undefined => {
  if (!isObj(message) || "type" in message) return undefined
  const kind = PythonMessage.classifyPythonMessage(message)
  return kind === "unknown" ? undefined : kind
}

/**
 * Converts a Python-SDK message dict into the TypeScript SDK's shape:
 * - `AssistantMessage {content, model, error, ...}` → `{type: "assistant", message: {role,
 *   model, content}, error, ...}` (blocks typed by {@link fromPythonBlock});
 * - `UserMessage {content, ...}` → `{type: "user", message: {role, content}, ...}`;
 * - `SystemMessage {subtype, data}` → `{...data, type: "system", subtype}` (the Python SDK's
 *   `data` is the raw CLI frame; a `data` that is not an object contributes nothing);
 * - `ResultMessage` → `{type: "result", ...}`; `StreamEvent` → `{type: "stream_event", ...}`.
 *
 * Anything else, including every value that has a `type` key, is returned as is.
 * Total: never throws.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromPythonMessage = (message: unknown): unknown => {
  // Fast path: every TS SDK message has a `type` key.
  if (typeof message !== "object" || message === null || "type" in message) return message
  const kind = pythonMessageKind(message)
  if (kind === undefined) return message
  const dict = message as Obj
  switch (kind) {
    case "assistant": {
      const { content, model, ...rest } = dict
      return { ...rest, type: "assistant", message: { role: "assistant", model, content: fromPythonContent(content) } }
    }
    case "user": {
      const { content, ...rest } = dict
      return { ...rest, type: "user", message: { role: "user", content: fromPythonContent(content) } }
    }
    case "system": {
      const data = get(dict, "data")
      return { ...(isObj(data) ? data : {}), type: "system", subtype: dict["subtype"] }
    }
    case "result":
    case "stream_event":
      return { ...dict, type: kind }
  }
}
