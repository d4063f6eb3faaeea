/**
 * `tool_use.input` normalisation: Acontext (through anthropic-sdk-go) needs a JSON object.
 *
 * @since 0.1.0
 */
import type { JsonObject } from "@acx/schema/Json"
import { isObj } from "./internal/json.js"

/**
 * Normalises `tool_use.input` into a JSON object:
 * - an object → as is;
 * - a string → `JSON.parse`d, used only if that yields a plain object, else `{raw: input}`
 *   (so `"5"`, `"null"`, `"[1]"` and `"NaN"` are all wrapped, never sent as non-objects);
 * - missing (`undefined`) → `{}`;
 * - anything else (array, number, boolean, null) → `{raw: value}`.
 *
 * Total: never throws.
 *
 * @since 0.1.0
 * @category conversions
 */
export const normalizeToolUseInput = (input: unknown): JsonObject => {
  if (isObj(input)) return input as JsonObject
  if (input === undefined) return {}
  if (typeof input === "string") {
    try {
      const parsed: unknown = JSON.parse(input)
      if (isObj(parsed)) return parsed as JsonObject
    } catch {
      // not JSON: wrapped below
    }
  }
  return { raw: input } as JsonObject
}
