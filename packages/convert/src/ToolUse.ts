/**
 * `tool_use.input` normalisation: Acontext (through anthropic-sdk-go) needs a JSON object.
 *
 * @since 0.1.0
 */
import { isObj } from "./internal/json.js"

/**
 * A tool call's input: a plain object.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolUseInput = { readonly [key: string]: unknown }

/**
 * Normalises `tool_use.input` into a plain object:
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
export const normalizeToolUseInput = (input: unknown): ToolUseInput => {
  if (isObj(input)) return input
  if (input === undefined) return {}
  if (typeof input === "string") {
    try {
      const parsed: unknown = JSON.parse(input)
      if (isObj(parsed)) return parsed
    } catch {
      // not JSON: wrapped below
    }
  }
  return { raw: input }
}
