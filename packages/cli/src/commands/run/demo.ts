/**
 * What `acx demo` does (its options: `../demo.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as Fragments from "@acx/convert/Fragments"
import { plural } from "@acx/convert/Plural"
import * as Reconstruct from "@acx/convert/Reconstruct"
import * as ClaudeBinary from "@acx/environment/ClaudeBinary"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import * as AcontextEmulator from "@acx/testing/AcontextEmulator"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describeError } from "../../CliError.js"
import { generateDemoSession } from "../../DemoSession.js"
import { acontextLayer } from "../../internal/acontext.js"
import { summarizeMessage } from "../../internal/blocks.js"
import * as format from "../../internal/format.js"
import { runRealSession } from "../../internal/realSession.js"
import type { DemoOptions } from "../demo.js"
import { sessionsTable } from "./sessions.js"
import { statsReport } from "./stats.js"

/** The SDK messages a live `query()` would have streamed for the conversation, in order. */
const sdkMessagesOf = (entries: ReadonlyArray<unknown>, sessionId: string): Array<Record<string, unknown>> => {
  const ordered = Reconstruct.conversation(entries as ReadonlyArray<never>).map((item) => item.entry)
  return Fragments.mergeAssistantFragments(ordered).flatMap((entry) => {
    if (entry.type !== "user" && entry.type !== "assistant") return []
    if (entry.isSidechain === true || entry.isMeta === true || entry.isCompactSummary === true) return []
    return [{
      type: entry.type,
      message: entry.message,
      parent_tool_use_id: null,
      uuid: entry.uuid,
      session_id: sessionId
    }]
  })
}

const section = (n: number, title: string) => Console.log(`\n${n}. ${title}\n`)

const keptDir = (chosen: string): string => {
  fs.mkdirSync(chosen, { recursive: true })
  return path.resolve(chosen)
}

const indent = (text: string) => text.split("\n").map((line) => (line === "" ? "" : `   ${line}`)).join("\n")

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ dir, generated, json, thinking }: DemoOptions) =>
  Effect.gen(function*() {
    const root = dir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "acx-demo-")) : keptDir(dir)
    const keep = dir !== undefined
    yield* Effect.addFinalizer(() =>
      keep ? Effect.void : Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
    )
    const log = (text: string) => (json ? Effect.void : Console.log(text))
    const configDir = path.join(root, "claude")
    const sqliteFile = path.join(root, "acx.sqlite")
    const projects = yield* ClaudeProjects.make({ configDir })
    const binary = generated ? undefined : ClaudeBinary.findSync()
    const found = binary !== undefined && !(binary instanceof ClaudeBinary.ClaudeBinaryError) ? binary : undefined
    // A binary that cannot run the session (a placeholder, a broken install) is reported, and the
    // demo goes on with the generated session.
    const attempt = found === undefined
      ? undefined
      : yield* Effect.either(runRealSession({ binary: found.path, root, configDir }))
    const real = attempt?._tag === "Right" ? attempt.right : undefined
    const why = attempt?._tag === "Left"
      ? `the real Claude Code CLI at ${found!.path} could not run it: ${describeError(attempt.left)}`
      : binary instanceof ClaudeBinary.ClaudeBinaryError
      ? binary.description
      : "--generated"

    // 1. A Claude Code session in Claude Code layout: written by the real CLI, or generated and
    //    written through the same service that reads ~/.claude.
    let session: { readonly projectKey: string; readonly sessionId: string; readonly title: string }
    let sdkMessages: ReadonlyArray<unknown>
    if (real !== undefined) {
      const [file] = yield* projects.listSessionFiles()
      session = { projectKey: file!.projectKey, sessionId: real.sessionId, title: real.title }
      sdkMessages = real.messages
      yield* log(
        "acx demo: a real Claude Code session, run offline against a model double, end to end (nothing leaves this machine)"
      )
    } else {
      const made = generateDemoSession()
      session = made
      sdkMessages = sdkMessagesOf(made.entries, made.sessionId)
      yield* log(`acx demo: a generated Claude Code session, end to end (nothing leaves this machine; ${why})`)
      yield* projects.appendEntries(made.projectKey, made.sessionId, made.entries)
      yield* projects.appendEntries(
        made.projectKey,
        made.sessionId,
        made.subagent.entries,
        `subagents/agent-${made.subagent.agentId}`
      )
      yield* Effect.sync(() =>
        fs.writeFileSync(
          path.join(
            projects.projectsDir,
            made.projectKey,
            made.sessionId,
            "subagents",
            `agent-${made.subagent.agentId}.meta.json`
          ),
          JSON.stringify(made.subagent.meta)
        )
      )
    }
    const listed = yield* projects.listSessions()
    if (!json && real !== undefined) {
      yield* section(
        1,
        `Claude Code (the real CLI: ${
          found!.path
        }) ran ${real.turns} turns in ${real.projectDir}, the third in a resumed process → ${configDir}`
      )
      yield* Console.log(indent(sessionsTable(listed)))
      yield* Console.log(indent(`\ncommands it ran for real:\n${real.commands.map((c) => `  $ ${c}`).join("\n")}`))
      yield* Console.log(indent(`cost the CLI reported: $${real.costUsd.toFixed(6)} (cumulative over the session)`))
    } else if (!json) {
      yield* section(1, `Claude Code transcript written in Claude Code layout → ${configDir}`)
      yield* Console.log(indent(sessionsTable(listed)))
    }

    // 2. Into the embedded SessionStore.
    const started = Date.now()
    const imported = yield* Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const result = yield* ClaudeImport.importClaudeDir({ from: projects, to: store })
      const mainEntries = yield* store.load({ projectKey: session.projectKey, sessionId: session.sessionId })
      const summaries = yield* store.listSessionSummaries(session.projectKey)
      return { ...result, mainEntries: mainEntries?.length ?? 0, summaries: summaries.length }
    }).pipe(Effect.provide(SqliteSessionStore.layer({ filename: sqliteFile })))
    if (!json) {
      yield* section(2, `Imported into the embedded SQLite SessionStore → ${sqliteFile}`)
      yield* Console.log(
        indent(
          `${plural(imported.sessions, "session")}, ${plural(imported.subagents, "subagent transcript")}, ${
            plural(imported.entries, "entry", "entries")
          } in ${Date.now() - started} ms; load() returns ${
            plural(imported.mainEntries, "main entry", "main entries")
          }; ${plural(imported.summaries, "session summary", "session summaries")}`
        )
      )
    }

    // 3. Statistics, with the last-fragment usage rule.
    const stats = yield* SessionStats.collectStats(projects, undefined)
    if (!json) {
      yield* section(3, "Statistics (usage counted once per message, from its last fragment)")
      yield* Console.log(indent(statsReport(stats)))
    }

    // 4. Through ClaudeAgentStorage into Acontext (an emulator on 127.0.0.1), then read back.
    const pushed = yield* Effect.gen(function*() {
      const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
      const client = yield* AcontextClient.AcontextClient
      const emulator = yield* AcontextEmulator.AcontextEmulator
      const messages = sdkMessages
      const outcomes = yield* Effect.forEach(messages, (message) => storage.save(message))
      const failed = outcomes.filter((outcome) => outcome._tag === "Failed")
      const sessionId = (yield* storage.sessionId) ?? session.sessionId
      const stored = yield* Stream.runCollect(client.messages(sessionId))
      return {
        url: emulator.url,
        sessionId,
        saved: messages.length,
        failed: failed.length,
        stored: Array.from(stored)
      }
    }).pipe(
      Effect.provide(
        ClaudeAgentStorage.layer({ sessionId: session.sessionId, includeThinking: thinking, onError: "fail" }).pipe(
          Layer.provideMerge(
            Layer.unwrapEffect(
              Effect.map(
                AcontextEmulator.AcontextEmulator,
                (emulator) => acontextLayer({ apiKey: AcontextClient.apiKey(emulator.apiKey), baseUrl: emulator.url })
              )
            )
          ),
          Layer.provideMerge(AcontextEmulator.layer())
        )
      )
    )
    if (json) {
      return yield* Console.log(format.json({
        dir: keep ? root : null,
        source: real !== undefined
          ? { kind: "real-claude-code", turns: real.turns, costUsd: real.costUsd, commands: real.commands }
          : { kind: "generated", reason: why },
        session: { projectKey: session.projectKey, sessionId: session.sessionId, title: session.title },
        sessions: listed,
        imported,
        stats: stats.report.total,
        acontext: { saved: pushed.saved, failed: pushed.failed, messages: pushed.stored }
      }))
    }
    yield* section(
      4,
      `Saved through ClaudeAgentStorage into Acontext (in-process emulator at ${pushed.url}), read back in Anthropic format`
    )
    for (const { message, meta } of pushed.stored) yield* Console.log(indent(summarizeMessage(message, meta)))
    yield* Console.log(
      indent(
        `\n${pushed.saved} messages saved, ${pushed.failed} failed, ${pushed.stored.length} stored in Acontext session ${pushed.sessionId}`
      )
    )
    yield* Console.log(
      keep
        ? `\nKept in ${root}. Try:\n  acx sessions --config-dir ${configDir}\n  acx show ${
          session.sessionId.slice(0, 8)
        } --config-dir ${configDir}\n  acx stats --config-dir ${configDir}`
        : `\nRun with --dir DIR to keep the files and explore them with acx sessions / show / stats --config-dir DIR/claude.`
    )
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))
