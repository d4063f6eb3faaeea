/** One-line summaries of stored Anthropic messages, for terminal output. */
import { toolResultText } from "@acx/convert/ToolResult"
import { clip } from "./format.js"

type Obj = { readonly [key: string]: unknown }

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value)

export const summarizeBlock = (block: unknown): string => {
  if (!isObj(block)) return "[?]"
  switch (block["type"]) {
    case "text":
      return clip(String(block["text"] ?? ""), 90)
    case "thinking":
      return `(thinking) ${clip(String(block["thinking"] ?? ""), 78)}`
    case "tool_use":
      return `→ ${String(block["name"])}(${clip(JSON.stringify(block["input"] ?? {}), 70)})`
    case "tool_result":
      return `← ${block["is_error"] === true ? "error: " : ""}${clip(toolResultText(block["content"]), 85)}`
    default:
      return `[${String(block["type"])}]`
  }
}

/** `role  block summary` lines, continuation blocks indented under the first. */
export const summarizeMessage = (message: unknown, meta: unknown): string => {
  const role = isObj(message) && typeof message["role"] === "string" ? message["role"] : "?"
  const content = isObj(message) && Array.isArray(message["content"]) ? message["content"] : []
  const model = isObj(meta) && typeof meta["model"] === "string" ? `  (${meta["model"]})` : ""
  const blocks = content.length === 0 ? ["(empty)"] : content.map(summarizeBlock)
  return `${role.padEnd(10)} ${blocks.join(`\n${" ".repeat(11)}`)}${model}`
}
