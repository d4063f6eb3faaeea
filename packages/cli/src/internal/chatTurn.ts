/**
 * What `acx chat` says about a turn, pure: a retry of the API as it happens, the one line for a
 * turn that failed, and which tools go to the SDK as allow rules and which the permission
 * callback allows itself.
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type * as AgentUsage from "@acx/convert/AgentUsage"
import * as Money from "@acx/convert/Money"
import { plural } from "@acx/convert/Plural"
import { printable } from "../CliError.js"

type ApiRetry = Extract<AgentEvent, { readonly _tag: "ApiRetry" }>
type ApiError = Extract<AgentEvent, { readonly _tag: "ApiError" }>
type TurnComplete = Extract<AgentEvent, { readonly _tag: "TurnComplete" }>

const MAX_LINE = 300

const oneLine = (text: string): string => {
  const line = printable(text.split("\n").find((part) => part.trim() !== "")?.trim() ?? "")
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line
}

// The CLI's names for a failure (`error` of api_retry), in words
const RETRY_ERRORS: { readonly [error: string]: string } = {
  overloaded: "overloaded",
  rate_limit: "rate limited",
  server_error: "server error",
  authentication_failed: "authentication failed",
  billing_error: "billing error",
  invalid_request: "invalid request"
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`

/**
 * The stderr line for a retry of the API, shown as it happens: why the call failed (the HTTP
 * status, or "no response" when none came — connection refused, DNS, timeout), which retry of
 * how many, and after how long.
 *
 * @example
 * ```ts
 * retryLine(ApiRetry({ attempt: 1, maxRetries: 10, delayMs: 522, status: 529, error: "overloaded" }))
 * // "acx: the API call failed (529 overloaded); retry 1 of 10 in 0.5s"
 * ```
 */
export const retryLine = (event: ApiRetry): string => {
  const words = event.error === undefined || event.error === "unknown"
    ? undefined
    : RETRY_ERRORS[event.error] ?? oneLine(event.error)
  const why = event.status === undefined
    ? `no response${words === undefined ? "" : `, ${words}`}`
    : `${event.status}${words === undefined ? "" : ` ${words}`}`
  const attempt = event.attempt === undefined
    ? "retrying"
    : `retry ${event.attempt}${event.maxRetries === undefined ? "" : ` of ${event.maxRetries}`}`
  const delay = event.delayMs === undefined ? "" : ` in ${seconds(event.delayMs)}`
  return `acx: the API call failed (${why}); ${attempt}${delay}`
}

const SUBTYPES: { readonly [subtype: string]: string } = {
  error_max_turns: "the turn reached its maximum number of agentic turns",
  error_max_budget_usd: "the turn reached its budget",
  error_max_structured_output_retries: "the model gave no valid structured output",
  error_during_execution: "the turn failed"
}

/**
 * The one line for a turn that ended with an error, `undefined` for one that did not: the CLI's
 * own API error text when the API failed for good (after `retries` retries), else what the
 * result says.
 */
export const turnFailure = (
  result: TurnComplete,
  apiError: ApiError | undefined,
  retries: number
): string | undefined => {
  if (!result.isError) return undefined
  const after = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : ""
  const apiText = apiError?.text ?? (/^API Error\b/.test(result.result ?? "") ? result.result : undefined)
  if (apiText !== undefined && apiText.trim() !== "") return `${oneLine(apiText)}${after}`
  const what = SUBTYPES[result.subtype] ??
    (result.subtype === "success" ? "the turn failed" : `the turn ended with ${oneLine(result.subtype)}`)
  const detail = result.errors[0] ?? result.result
  return detail === undefined || detail.trim() === "" ? `${what}${after}` : `${what}: ${oneLine(detail)}${after}`
}

/**
 * How `--allowed-tools` reaches the SDK. A bare tool name (`Bash`) given to the SDK as an allow
 * rule approves the tool before the permission callback is asked — the SDK warns that the
 * callback is shadowed — so bare names are allowed by the callback itself (`preapproved`) and
 * only rules with a specifier (`Bash(git:*)`) go to the SDK. Modes that never ask
 * (`bypassPermissions`, `dontAsk`) get every entry as a rule and no callback.
 */
export const permissionPlan = (
  tools: ReadonlyArray<string>,
  mode: string | undefined
): {
  readonly allowedTools: ReadonlyArray<string>
  readonly preapproved: ReadonlyArray<string>
  readonly ask: boolean
} =>
  mode === "bypassPermissions" || mode === "dontAsk"
    ? { allowedTools: tools, preapproved: [], ask: false }
    : {
      allowedTools: tools.filter((tool) => tool.includes("(")),
      preapproved: tools.filter((tool) => !tool.includes("(")),
      ask: true
    }

/**
 * Whether a bare allow entry covers `toolName`: the tool itself, or (`mcp__server`) every tool of
 * that MCP server, as the SDK's allow rules read it.
 */
export const isPreapproved = (preapproved: ReadonlyArray<string>, toolName: string): boolean =>
  preapproved.some((entry) =>
    entry === toolName ||
    (entry.startsWith("mcp__") &&
      (toolName.startsWith(`${entry}__`) || (entry.endsWith("__*") && toolName.startsWith(entry.slice(0, -1)))))
  )

/**
 * `/cost`'s line: the spend so far in dollars as acx shows them everywhere (`Money.usd`), the
 * turns, the tokens, and the last turn's spend.
 */
export const costLine = (usage: AgentUsage.ConversationUsage): string =>
  `cost: ${Money.usd(usage.costUsd)} over ${
    plural(usage.turns, "turn")
  }; tokens in ${usage.tokens.input}, out ${usage.tokens.output}, cache read ${usage.tokens.cacheRead}, cache write ${usage.tokens.cacheWrite}` +
  (usage.lastTurn === undefined ? "" : `; last turn ${Money.usd(usage.lastTurn.costUsd)}`)
