/**
 * `acx demo`: the whole toolkit end to end on a machine with nothing set up. A realistic Claude
 * Code session (prompt, thinking, tool turns, a subagent, a compaction) is written in Claude Code
 * layout to a temporary config directory with `ClaudeProjects`, imported into the embedded
 * SQLite SessionStore, pushed through `ClaudeAgentStorage` into an in-process Acontext emulator
 * on 127.0.0.1, and read back; every step prints what it did.
 *
 * @since 0.1.0
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Fragments from "@acx/convert/Fragments"
import * as Reconstruct from "@acx/convert/Reconstruct"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import * as AcontextEmulator from "@acx/testing/AcontextEmulator"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateDemoSession } from "../DemoSession.js"
import { summarizeMessage } from "../internal/blocks.js"
import * as format from "../internal/format.js"
import { acontextLayer, jsonOption } from "../internal/source.js"
import { sessionsTable } from "./sessions.js"
import { collectStats, statsReport } from "./stats.js"

const dirOption = Options.text("dir").pipe(
  Options.withDescription("Keep the generated config directory and SQLite file here (default: a temp dir, removed)"),
  Options.optional
)

const thinkingOption = Options.boolean("thinking").pipe(
  Options.withDescription("Store thinking blocks too (as text; Acontext's default rule leaves them out)")
)

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

const indent = (text: string) => text.split("\n").map((line) => (line === "" ? "" : `   ${line}`)).join("\n")

/**
 * @since 0.1.0
 * @category commands
 */
export const demo = Command.make(
  "demo",
  { dir: dirOption, thinking: thinkingOption, json: jsonOption },
  ({ dir, json, thinking }) =>
    Effect.gen(function*() {
      const root = Option.match(dir, {
        onNone: () => fs.mkdtempSync(path.join(os.tmpdir(), "acx-demo-")),
        onSome: (chosen) => {
          fs.mkdirSync(chosen, { recursive: true })
          return path.resolve(chosen)
        }
      })
      const keep = Option.isSome(dir)
      yield* Effect.addFinalizer(() =>
        keep ? Effect.void : Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
      )
      const log = (text: string) => (json ? Effect.void : Console.log(text))
      const configDir = path.join(root, "claude")
      const sqliteFile = path.join(root, "acx.sqlite")
      const session = generateDemoSession()

      yield* log("acx demo: a generated Claude Code session, end to end (nothing leaves this machine)")

      // 1. Claude Code layout, written through the same service that reads ~/.claude.
      const projects = yield* ClaudeProjects.make({ configDir })
      yield* projects.appendEntries(session.projectKey, session.sessionId, session.entries)
      yield* projects.appendEntries(
        session.projectKey,
        session.sessionId,
        session.subagent.entries,
        `subagents/agent-${session.subagent.agentId}`
      )
      yield* Effect.sync(() =>
        fs.writeFileSync(
          path.join(
            projects.projectsDir,
            session.projectKey,
            session.sessionId,
            "subagents",
            `agent-${session.subagent.agentId}.meta.json`
          ),
          JSON.stringify(session.subagent.meta)
        )
      )
      const listed = yield* projects.listSessions()
      if (!json) {
        yield* section(1, `Claude Code transcript written in Claude Code layout → ${configDir}`)
        yield* Console.log(indent(sessionsTable(listed)))
        yield* Console.log(
          indent(
            `\nmain transcript: ${session.entries.length} lines (one content block per assistant line, as the CLI writes them); subagent agent-${session.subagent.agentId}: ${session.subagent.entries.length} lines`
          )
        )
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
            `${imported.sessions} session, ${imported.subagents} subagent transcript, ${imported.entries} entries in ${
              Date.now() - started
            } ms; load() returns ${imported.mainEntries} main entries; ${imported.summaries} session summary`
          )
        )
      }

      // 3. Statistics, with the last-fragment usage rule.
      const stats = yield* collectStats(projects, undefined)
      if (!json) {
        yield* section(3, "Statistics (usage counted once per message, from its last fragment)")
        yield* Console.log(indent(statsReport(stats.rows, stats.total)))
      }

      // 4. Through ClaudeAgentStorage into Acontext (an emulator on 127.0.0.1), then read back.
      const pushed = yield* Effect.gen(function*() {
        const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
        const client = yield* AcontextClient.AcontextClient
        const emulator = yield* AcontextEmulator.AcontextEmulator
        const messages = sdkMessagesOf(session.entries, session.sessionId)
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
          session: { projectKey: session.projectKey, sessionId: session.sessionId, title: session.title },
          sessions: listed,
          imported,
          stats: stats.total,
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
).pipe(
  Command.withDescription(
    "Generate a realistic session in Claude Code layout, import it into SQLite, push it into an in-process Acontext, print the results"
  )
)
