/**
 * What `acx chat` does (its options: `../chat.ts`).
 *
 * @since 0.1.0
 */
import * as AgentSession from "@acx/agent/AgentSession"
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type { CanUseTool, PermissionMode } from "@anthropic-ai/claude-agent-sdk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as readline from "node:readline"
import { type CliError, describeError, printable, turnFailed } from "../../CliError.js"
import { apiBaseUrl, unreachable } from "../../internal/apiReach.js"
import { costLine, isPreapproved, permissionPlan, retryLine, turnFailure } from "../../internal/chatTurn.js"
import { CurrentIo, resolvePath } from "../../internal/currentIo.js"
import { parseTarget } from "../../internal/target.js"
import type { ChatOptions } from "../args/chat.js"

const err = (line: string) => Effect.flatMap(CurrentIo, (io) => Effect.sync(() => io.stderr(`${line}\n`)))

const oneLine = (value: unknown, max = 100): string => {
  const text = printable(typeof value === "string" ? value : JSON.stringify(value) ?? "")
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** A tool call as one line: `Bash(ls -la)`. */
const toolLine = (name: string, input: unknown): string => {
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {}
  const main = fields["command"] ?? fields["file_path"] ?? fields["pattern"] ?? fields["url"] ??
    fields["description"] ??
    input
  return `⏺ ${name}(${oneLine(main)})`
}

/** Fails with the one line for an API address that refuses or does not resolve (`apiReach`). */
const deadApi = Effect.flatMap(CurrentIo, (io) => {
  const baseUrl = apiBaseUrl(io.env)
  return Effect.flatMap(
    Effect.promise(() => unreachable(baseUrl, io.env)),
    (cause) => cause === undefined ? Effect.void : turnFailed(`cannot reach the API at ${printable(baseUrl)}: ${cause}`)
  )
})

/** Lines from stdin: an async queue, so a permission question can take the next answer on a terminal. */
// (the terminal's prompt and line editing are the process's: `acx chat` reads stdin)
const makeInput = (interactive: boolean) => {
  const rl = readline.createInterface({ input: process.stdin, terminal: interactive, output: process.stderr })
  const lines: Array<string> = []
  const waiters: Array<(line: string | undefined) => void> = []
  let ended = false
  rl.on("line", (line) => {
    const waiter = waiters.shift()
    if (waiter !== undefined) waiter(line)
    else lines.push(line)
  })
  rl.on("close", () => {
    ended = true
    for (const waiter of waiters.splice(0)) waiter(undefined)
  })
  const next = (prompt: string): Promise<string | undefined> => {
    if (interactive) {
      rl.setPrompt(prompt)
      rl.prompt()
    }
    const line = lines.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (ended) return Promise.resolve(undefined)
    return new Promise((resolve) => waiters.push(resolve))
  }
  return { next, close: () => rl.close() }
}

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ allowedTools, cwd, model, permissionMode, resume, store }: ChatOptions) =>
  Effect.gen(function*() {
    const io = yield* CurrentIo
    const interactive = process.stdin.isTTY === true
    const input = makeInput(interactive)
    yield* Effect.addFinalizer(() => Effect.sync(() => input.close()))
    const tools = allowedTools === undefined
      ? []
      : allowedTools.split(",").map((tool) => tool.trim()).filter((t) => t !== "")
    const mode = permissionMode
    const plan = permissionPlan(tools, mode)
    const allowHint = (name: string) => `--allowed-tools ${[...tools, name].join(",")}`
    const canUseTool: CanUseTool = async (toolName, toolInput) => {
      if (isPreapproved(plan.preapproved, toolName)) return { behavior: "allow", updatedInput: toolInput }
      if (!interactive) {
        io.stderr(
          `acx: denied ${toolLine(toolName, toolInput).slice(2)}: allow it with ${allowHint(toolName)}\n`
        )
        return { behavior: "deny", message: `The user did not allow ${toolName} (not asked: no terminal).` }
      }
      const answer = await input.next(`Allow ${toolLine(toolName, toolInput).slice(2)}? [y/N] `)
      return answer !== undefined && /^y(es)?$/i.test(answer.trim())
        ? { behavior: "allow", updatedInput: toolInput }
        : { behavior: "deny", message: `The user denied ${toolName}.` }
    }
    const session = yield* AgentSession.make({
      cwd: resolvePath(io, cwd ?? "."),
      resume,
      model,
      allowedTools: plan.allowedTools.length > 0 ? [...plan.allowedTools] : undefined,
      permissionMode: mode as PermissionMode | undefined,
      canUseTool: plan.ask ? canUseTool : undefined
    })
    // the session id to resume with, whatever way the chat ends
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(
        session.sessionId,
        Option.match({ onNone: () => Effect.void, onSome: (id) => err(`session: ${id}`) })
      )
    )
    if (interactive) yield* err("acx chat: /cost for the spend so far, /exit (or Ctrl-D) to end")
    while (true) {
      const line = yield* Effect.promise(() => input.next("> "))
      if (line === undefined || line.trim() === "/exit") break
      if (line.trim() === "") continue
      if (line.trim() === "/cost") {
        yield* err(costLine(yield* session.usage))
        continue
      }
      let streamed = false
      let atLineStart = true
      let retries = 0
      let probed = false
      let apiError: Extract<AgentEvent, { readonly _tag: "ApiError" }> | undefined
      let failure: string | undefined
      const write = (text: string) =>
        Effect.sync(() => {
          void io.stdout(text)
          atLineStart = text.endsWith("\n")
        })
      const endLine = Effect.suspend(() => (atLineStart ? Effect.void : write("\n")))
      const show = (event: AgentEvent): Effect.Effect<void, CliError, CurrentIo> => {
        switch (event._tag) {
          case "TextDelta":
            if (event.parentToolUseId !== null) return Effect.void
            streamed = true
            return write(event.text)
          case "Text":
            // without deltas for it (no partial messages), the whole block
            if (event.parentToolUseId !== null || streamed) return Effect.void
            return write(event.text)
          case "ToolUse":
            streamed = false
            return Effect.zipRight(endLine, err(toolLine(event.name, event.input)))
          case "ApiRetry":
            // as it happens: a turn the API does not answer is otherwise minutes of silence
            retries += 1
            return Effect.zipRight(
              Effect.zipRight(endLine, err(retryLine(event))),
              // no response: an address that refuses or does not resolve ends the turn now
              event.status !== undefined || probed ? Effect.void : Effect.suspend(() => {
                probed = true
                return deadApi
              })
            )
          case "ApiError":
            // the CLI's words for a failed call, not the model's: said once, as the turn's failure
            if (event.parentToolUseId === null) apiError = event
            return Effect.void
          case "TurnComplete":
            failure = turnFailure(event, apiError, retries)
            return endLine
          default:
            return Effect.void
        }
      }
      const outcome = yield* session.send(line).pipe(Stream.runForEach(show), Effect.either)
      if (outcome._tag === "Left" && outcome.left._tag === "CliError") {
        if (!interactive) return yield* outcome.left
        yield* err(`acx: ${outcome.left.description}`)
        continue
      }
      if (outcome._tag === "Left") {
        yield* endLine
        // a process that cannot start ends the chat; without a terminal, so does any failed turn
        if (outcome.left.reason === "StartFailed" || !interactive) {
          return yield* turnFailed(describeError(outcome.left))
        }
        yield* err(`acx: ${describeError(outcome.left)}`)
        continue
      }
      if (failure !== undefined) {
        // a script must not go on as if answered: without a terminal the chat ends, exit 1; on
        // one, the person reads the line and may try again (the next prompt resumes the session)
        if (!interactive) return yield* turnFailed(failure)
        yield* err(`acx: ${failure}`)
      }
    }
  }).pipe(
    Effect.scoped,
    Effect.provide(
      store === undefined
        ? Layer.empty
        : Layer.unwrapEffect(Effect.map(parseTarget(store, "--store"), (target) => target.layer))
    )
  )
