/**
 * The observer: one `AgentSession` (one streaming-input `query()` on Claude Code) per Claude
 * Code session, isolated from the user's Claude Code:
 * - its own `CLAUDE_CONFIG_DIR` under `$ACX_HOME` (its transcripts never land in the user's
 *   `projects/`), with the user's credentials file copied in when there is one;
 * - `settingSources: []` and no tools, no MCP servers: no user or project hook (acx's own
 *   included) loads, and `ACX_MEMORY_OBSERVER=1` makes any acx hook that still runs a no-op;
 * - a working directory under `$ACX_HOME`;
 * - its transcript mirrored into an acx `SessionStore` in the memory database, so a restarted
 *   worker resumes the conversation with its context.
 */
import * as AgentSession from "@acx/agent/AgentSession"
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type * as AgentUsage from "@acx/convert/AgentUsage"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import { OBSERVER_ENV } from "../HookRunner.js"
import type { MemoryConfig, MemoryPaths } from "../MemoryConfig.js"
import { MemoryError } from "../MemoryError.js"
import type { LedgerEntry } from "../MemoryStore.js"
import { missingCredentials, userCredentialsFile } from "./credentials.js"

type Env = { readonly [name: string]: string | undefined }

/** What the observer answered to one prompt. */
export interface ObserverAnswer {
  readonly text: string
  /** The result was an error (`subtype` says which: `error_max_budget_usd`, …). */
  readonly error: { readonly subtype: string; readonly messages: ReadonlyArray<string> } | undefined
  readonly ledger: ReadonlyArray<LedgerEntry>
  readonly sessionId: string | undefined
  readonly usage: AgentUsage.ConversationUsage
}

/** A running observer conversation. */
export interface Observer {
  readonly ask: (prompt: string) => Effect.Effect<ObserverAnswer, MemoryError>
  /** Interrupts a running turn, then ends the process. */
  readonly close: Effect.Effect<void>
}

/** Starts an observer for a Claude Code session (resuming its earlier conversation when known). */
export type ObserverFactory = (session: {
  readonly sessionId: string
  readonly resume: string | undefined
  readonly usage: AgentUsage.ConversationUsage | undefined
}) => Effect.Effect<Observer, MemoryError>

/**
 * Whether the observer can reach a model: an API key or token in the environment, or the user's
 * Claude Code credentials file (a subscription login), which is copied into the observer's
 * config directory (owner-only). Returns why not otherwise.
 */
export const prepareCredentials = (files: MemoryPaths, env: Env): { readonly ok: true } | {
  readonly ok: false
  readonly reason: string
} => {
  fs.mkdirSync(files.observerConfigDir, { recursive: true, mode: 0o700 })
  fs.mkdirSync(files.observerCwd, { recursive: true, mode: 0o700 })
  const source = userCredentialsFile(env)
  const target = path.join(files.observerConfigDir, ".credentials.json")
  if (path.resolve(source) !== path.resolve(target) && fs.existsSync(source)) {
    fs.copyFileSync(source, target)
    fs.chmodSync(target, 0o600)
  }
  const reason = missingCredentials(files, env)
  return reason === undefined ? { ok: true } : { ok: false, reason }
}

/**
 * The observer's Claude Code gives up on the API quickly: one retry (its own default is 10, with
 * backoff: about 3 minutes against an unreachable API) and a minute per request (its default is
 * 10). The worker retries the batch on its own backoff schedule, so a dead API costs seconds per
 * attempt and the error names the cause.
 */
export const OBSERVER_API_LIMITS = { CLAUDE_CODE_MAX_RETRIES: "1", API_TIMEOUT_MS: "60000" } as const

const text = (events: ReadonlyArray<AgentEvent>): string =>
  events.flatMap((event) => event._tag === "Text" ? [event.text] : []).join("")

const observerError = (what: string) => (cause: { readonly message: string }) =>
  new MemoryError({ reason: "Observer", description: `${what}: ${cause.message}`, cause })

/** The real observer factory, on Claude Code through the Agent SDK. */
export const agentObserver = (options: {
  readonly files: MemoryPaths
  readonly config: MemoryConfig
  readonly env: Env
  readonly sessionStore: Sdk.SessionStore
  readonly pathToClaudeCodeExecutable?: string | undefined
}): ObserverFactory =>
(session) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const agent = yield* AgentSession.make({
      model: options.config.model,
      cwd: options.files.observerCwd,
      resume: session.resume,
      usage: session.usage,
      sessionStore: options.sessionStore,
      settingSources: [],
      allowedTools: [],
      maxBudgetUsd: options.config.maxBudgetUsdPerQuery,
      acxHome: options.files.home,
      pathToClaudeCodeExecutable: options.pathToClaudeCodeExecutable,
      env: {
        ...options.env,
        ...OBSERVER_API_LIMITS,
        CLAUDE_CONFIG_DIR: options.files.observerConfigDir,
        [OBSERVER_ENV]: "1"
      },
      sdkOptions: {
        tools: [],
        mcpServers: {},
        strictMcpConfig: true,
        systemPrompt:
          "You are acx's memory observer. You read events of another Claude Code session and answer only with the XML blocks you are asked for."
      }
    }).pipe(Scope.extend(scope), Effect.mapError(observerError("the observer could not start")))
    const ask = (prompt: string) =>
      Effect.gen(function*() {
        const turn = yield* agent.ask(prompt).pipe(Effect.mapError(observerError("the observer's turn failed")))
        const usage = yield* agent.usage
        const sessionId = Option.getOrUndefined(yield* agent.sessionId) ?? turn.sessionId
        const tokens = turn.usage.tokens
        const models = Object.keys(turn.usage.tokensByModel)
        const ledger: Array<LedgerEntry> = turn.usage.costUsd > 0 || tokens.input + tokens.output > 0
          ? [{
            sessionId: session.sessionId,
            model: models.length > 0 ? models.join("+") : options.config.model,
            inputTokens: tokens.input,
            outputTokens: tokens.output,
            cacheReadTokens: tokens.cacheRead,
            cacheCreationTokens: tokens.cacheWrite,
            costUsd: turn.usage.costUsd
          }]
          : []
        const result = turn.result
        return {
          text: result.result ?? text(turn.events),
          error: result.isError ? { subtype: result.subtype, messages: result.errors } : undefined,
          ledger,
          sessionId,
          usage
        } satisfies ObserverAnswer
      })
    const close = agent.interrupt.pipe(
      Effect.zipRight(agent.close),
      Effect.zipRight(Scope.close(scope, Exit.void)),
      Effect.timeout("20 seconds"),
      Effect.ignore,
      // interruptible even where it is called from a finalizer (the worker's, an uninterruptible
      // region): there the session's interrupt (a race) waited forever for its loser to end, and
      // the timeout could not end it either, so a worker with a warm observer never exited
      Effect.interruptible
    )
    return { ask, close } satisfies Observer
  })
