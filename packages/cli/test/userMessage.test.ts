/**
 * The words of the CLI's failures, without spawning it:
 * - every message the CLI writes into a `CliError` (each `invalidArgument(…)`, `notFound(…)`, …
 *   of `packages/cli/src`, read from the source) names no module, service or operation;
 * - every library error a command can end with is rendered by `describeError` in the user's
 *   terms: the description (path, URL, "connection refused"), never the `message` prefix its
 *   library gives programmers (`ClaudeProjects listSessionFiles failed (NotFound): …`);
 * - `acx chat`'s retry and failure lines are one line for any input, and the permission plan
 *   never hands the SDK a bare tool name beside the callback.
 */
import * as AgentError from "@acx/agent/AgentError"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import * as SessionIndex from "@acx/claude-code/SessionIndex"
import { AgentEvent } from "@acx/convert/AgentEvent"
import * as MemoryError from "@acx/memory/MemoryError"
import * as SearchQuery from "@acx/session-store/SearchQuery"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as AcontextError from "@acx/storage/AcontextError"
import * as PlatformError from "@effect/platform/Error"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { describeError } from "../src/CliError.js"
import { isPreapproved, permissionPlan, retryLine, turnFailure } from "../src/internal/chatTurn.js"
import { internalNames, sourceFiles } from "./utils/internalNames.js"

const FORBIDDEN = internalNames()
const SRC = fileURLToPath(new URL("../src", import.meta.url))

const expectNoInternalName = (text: string) => {
  for (const name of FORBIDDEN) expect(text, `names ${name}`).not.toContain(name)
  expect(text).not.toMatch(/failed \([A-Z]\w+\)/)
}

/**
 * The words a call starting at `open` (the index of its `(`) writes: the text of its string and
 * template literals, interpolations and code left out.
 */
const literalText = (source: string, open: number): string => {
  let depth = 0
  let quote: string | undefined
  let out = ""
  for (let i = open; i < source.length; i++) {
    const char = source[i]!
    if (quote !== undefined) {
      if (char === "\\") i += 1
      else if (char === quote) {
        quote = undefined
        out += " "
      } else if (quote === "`" && char === "$" && source[i + 1] === "{") {
        // skip the interpolation, braces balanced
        let braces = 0
        for (i += 1; i < source.length; i++) {
          if (source[i] === "{") braces += 1
          if (source[i] === "}" && --braces === 0) break
        }
        out += " "
      } else out += char
      continue
    }
    if (char === "\"" || char === "'" || char === "`") quote = char
    else if (char === "(") depth += 1
    else if (char === ")" && --depth === 0) return out
  }
  return out
}

describe("the CLI's own messages", () => {
  it("no CliError message of the source names a module, service or operation", () => {
    const calls = sourceFiles(SRC).flatMap((file) => {
      const source = fs.readFileSync(file, "utf8")
      return [...source.matchAll(/\b(?:invalidArgument|notFound|ambiguous|conflict|turnFailed)\(/g)]
        .map((match) => ({ file, text: literalText(source, match.index + match[0].length - 1) }))
    })
    // every command's messages are there (a regex that matched nothing would prove nothing)
    expect(calls.length).toBeGreaterThanOrEqual(15)
    expect(calls.map((call) => call.text)).toEqual(expect.arrayContaining([
      expect.stringContaining("ACONTEXT_API_KEY is not set"),
      expect.stringContaining("not a session id:")
    ]))
    for (const call of calls) expectNoInternalName(call.text)
  })
})

describe("library errors in the user's words", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })

  it("says what and where, without the library's prefix", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [
        new ClaudeProjects.ClaudeProjectsError({
          reason: "NotFound",
          operation: "listSessionFiles",
          description: "no project -p in /home/u/.claude/projects"
        }),
        "no project -p in /home/u/.claude/projects"
      ],
      [
        new SearchQuery.SearchQueryError({
          reason: "TooLong",
          query: `\u0000${"a ".repeat(5000)}`,
          description: "it has 5000 terms, at most 32 are searched"
        }),
        // the query cut to 60 characters and escaped: one printable line
        `cannot search for ${
          JSON.stringify(`\u0000${"a ".repeat(30)}`.slice(0, 60) + "…")
        }: it has 5000 terms, at most 32 are searched`
      ],
      [
        new SessionStore.SessionStoreError({
          reason: "Connection",
          operation: "connect",
          description: "cannot connect to Postgres at db:5432",
          cause: refused
        }),
        "cannot connect to Postgres at db:5432: connection refused"
      ],
      [
        new AcontextError.AcontextError({
          reason: "Transport",
          operation: "createSession",
          description: "Transport error (POST http://127.0.0.1:1/api/v1/session)",
          cause: new TypeError("fetch failed", { cause: new AggregateError([refused]) })
        }),
        "cannot reach Acontext at http://127.0.0.1:1: connection refused"
      ],
      [
        new AcontextError.AcontextError({
          reason: "Transport",
          operation: "storeMessage",
          description: "Transport error (POST http://acontext.example/api/v1/session/x/messages)",
          cause: Object.assign(new Error("getaddrinfo ENOTFOUND acontext.example"), { code: "ENOTFOUND" })
        }),
        "cannot reach Acontext at http://acontext.example: host not found"
      ],
      [
        new AcontextError.AcontextError({
          reason: "Unauthorized",
          operation: "createSession",
          status: 401,
          description: "invalid api key"
        }),
        "Acontext answered 401 (the API key was refused: invalid api key)"
      ],
      [
        new AgentError.AgentError({
          reason: "TurnFailed",
          description: "the Claude Code process ended before the turn's result"
        }),
        "the Claude Code process ended before the turn's result"
      ],
      [
        new MemoryError.MemoryError({ reason: "Corrupt", description: "the memory database is damaged" }),
        "the memory database is damaged"
      ],
      [
        new SessionIndex.SessionIndexError({
          reason: "Io",
          file: "/c/projects/p/s.jsonl",
          cause: new PlatformError.SystemError({
            reason: "PermissionDenied",
            module: "FileSystem",
            method: "open",
            pathOrDescriptor: "/c/projects/p/s.jsonl"
          })
        }),
        "cannot read /c/projects/p/s.jsonl: permission denied"
      ],
      [
        new ClaudePush.ClaudePushError({ reason: "SessionNotFound", sessionId: "s-1", description: "no such session" }),
        "cannot push session s-1: no such session"
      ],
      [
        new PlatformError.SystemError({
          reason: "NotFound",
          module: "FileSystem",
          method: "readFile",
          pathOrDescriptor: "/x/y"
        }),
        "/x/y: no such file or directory"
      ]
    ]
    for (const [error, expected] of cases) {
      const line = describeError(error)
      expect(line).toBe(expected)
      expectNoInternalName(line)
    }
  })

  it("property: one line, at most 400 characters, for any description and any cause", () => {
    fc.assert(fc.property(fc.string(), fc.anything(), (description, cause) => {
      const line = describeError(
        new ClaudeProjects.ClaudeProjectsError({ reason: "Io", operation: "x", description, cause })
      )
      return !/[\n\r\u001b]/.test(line) && line.length <= 400
    }))
  })
})

describe("acx chat's lines", () => {
  const retry = (fields: Partial<Parameters<typeof AgentEvent.ApiRetry>[0]>) =>
    AgentEvent.ApiRetry({ attempt: 1, maxRetries: 10, delayMs: 522, status: undefined, error: undefined, ...fields })

  it("a retry: why (status or no response), which of how many, after how long", () => {
    expect(retryLine(retry({ status: 529, error: "overloaded" }))).toBe(
      "acx: the API call failed (529 overloaded); retry 1 of 10 in 0.5s"
    )
    expect(retryLine(retry({ error: "unknown" }))).toBe("acx: the API call failed (no response); retry 1 of 10 in 0.5s")
    expect(retryLine(retry({ attempt: 3, delayMs: 32_000, status: 500 }))).toBe(
      "acx: the API call failed (500); retry 3 of 10 in 32s"
    )
  })

  const result = (fields: Partial<Parameters<typeof AgentEvent.TurnComplete>[0]>) =>
    AgentEvent.TurnComplete({
      sessionId: undefined,
      subtype: "success",
      isError: false,
      result: "Hello.",
      errors: [],
      totalCostUsd: 0,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite5m: 0, cacheWrite1h: 0 } as never,
      costByModel: {},
      tokensByModel: {},
      numTurns: 1,
      durationMs: 0,
      ...fields
    })

  it("a failed turn is one line; a good one none", () => {
    expect(turnFailure(result({}), undefined, 0)).toBeUndefined()
    const apiError = AgentEvent.ApiError({
      text: "API Error: Connection refused (ECONNREFUSED)",
      status: undefined,
      error: "connection_failed",
      parentToolUseId: null
    })
    expect(turnFailure(result({ isError: true, result: apiError.text }), apiError, 10)).toBe(
      "API Error: Connection refused (ECONNREFUSED) (after 10 retries)"
    )
    expect(turnFailure(result({ isError: true, subtype: "error_max_turns", result: undefined }), undefined, 0)).toBe(
      "the turn reached its maximum number of agentic turns"
    )
    expect(
      turnFailure(result({ isError: true, subtype: "error_during_execution", errors: ["boom\nstack"] }), undefined, 1)
    )
      .toBe("the turn failed: boom (after 1 retry)")
  })

  it("property: retry and failure lines are one printable line for any input", () => {
    const text = fc.option(fc.string(), { nil: undefined })
    fc.assert(fc.property(text, text, fc.array(fc.string()), fc.nat(), (error, body, errors, retries) => {
      const lines = [
        retryLine(retry({ error })),
        turnFailure(result({ isError: true, subtype: error ?? "success", result: body, errors }), undefined, retries) ??
          ""
      ]
      return lines.every((line) => !/[\n\r\u001b]/.test(line))
    }))
  })

  it("the permission plan: bare names allowed by the callback, rules to the SDK; never both for one tool", () => {
    expect(permissionPlan(["Bash", "Bash(git:*)", "mcp__mem"], undefined)).toEqual({
      allowedTools: ["Bash(git:*)"],
      preapproved: ["Bash", "mcp__mem"],
      ask: true
    })
    expect(permissionPlan(["Bash"], "bypassPermissions")).toEqual({
      allowedTools: ["Bash"],
      preapproved: [],
      ask: false
    })
    expect(permissionPlan(["Bash"], "dontAsk").ask).toBe(false)
    expect(isPreapproved(["Bash", "mcp__mem"], "Bash")).toBe(true)
    expect(isPreapproved(["Bash", "mcp__mem"], "mcp__mem__search")).toBe(true)
    expect(isPreapproved(["Bash", "mcp__mem"], "mcp__memory__search")).toBe(false)
    expect(isPreapproved(["Bash"], "Read")).toBe(false)
    fc.assert(
      fc.property(
        fc.array(fc.string()),
        fc.constantFrom(undefined, "default", "acceptEdits", "plan"),
        (tools, mode) => {
          const plan = permissionPlan(tools, mode)
          // what the SDK warns of: a bare allow rule beside a callback
          return plan.allowedTools.every((tool) => tool.includes("(")) &&
            plan.preapproved.length + plan.allowedTools.length === tools.length
        }
      )
    )
  })
})
