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
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { runRealSession } from "../../internal/realSession.js"
import type { DemoOptions } from "../args/demo.js"
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

const keptDir = (chosen: string, cwd: string): string => {
  const dir = path.resolve(cwd, chosen)
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

const indent = (text: string) => text.split("\n").map((line) => (line === "" ? "" : `   ${line}`)).join("\n")

/** Where the demo writes: `--dir` (kept), else a temporary directory removed when the demo ends. */
const demoRoot = (dir: string | undefined) =>
  Effect.gen(function*() {
    if (dir !== undefined) return keptDir(dir, (yield* CurrentIo).cwd)
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-demo-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    return root
  })

/**
 * The real Claude Code CLI's session, when it is installed (and not `--generated`) and runs it;
 * else why not. A binary that cannot run the session (a placeholder, a broken install) is
 * reported, and the demo goes on with the generated session.
 */
const realSession = (generated: boolean, root: string, configDir: string) =>
  Effect.gen(function*() {
    const binary = generated ? undefined : ClaudeBinary.findSync()
    const found = binary !== undefined && !(binary instanceof ClaudeBinary.ClaudeBinaryError) ? binary : undefined
    const attempt = found === undefined
      ? undefined
      : yield* Effect.either(runRealSession({ binary: found.path, root, configDir }))
    if (attempt?._tag === "Right") return { real: { ...attempt.right, binary: found!.path }, why: "" }
    const why = attempt?._tag === "Left"
      ? `the real Claude Code CLI at ${found!.path} could not run it: ${describeError(attempt.left)}`
      : binary instanceof ClaudeBinary.ClaudeBinaryError
      ? binary.description
      : "--generated"
    return { real: undefined, why }
  })

type RealSession = NonNullable<Effect.Effect.Success<ReturnType<typeof realSession>>["real"]>

/** The generated session, written in Claude Code's layout with its subagent and the subagent's meta. */
const writeGenerated = (projects: ClaudeProjects.ClaudeProjects) =>
  Effect.gen(function*() {
    const made = generateDemoSession()
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
    return { session: made, sdkMessages: sdkMessagesOf(made.entries, made.sessionId) }
  })

/**
 * Step 1: a Claude Code session in Claude Code's layout, written by the real CLI, or generated
 * and written through the same service that reads ~/.claude; and the SDK messages of it.
 */
const demoSession = (projects: ClaudeProjects.ClaudeProjects, real: RealSession | undefined) =>
  Effect.gen(function*() {
    if (real === undefined) return yield* writeGenerated(projects)
    const [file] = yield* projects.listSessionFiles()
    return {
      session: { projectKey: file!.projectKey, sessionId: real.sessionId, title: real.title },
      sdkMessages: real.messages as ReadonlyArray<unknown>
    }
  })

const printSession = (
  listed: ReadonlyArray<ClaudeProjects.SessionInfo>,
  real: RealSession | undefined,
  configDir: string
) =>
  Effect.gen(function*() {
    if (real === undefined) {
      yield* section(1, `Claude Code transcript written in Claude Code layout → ${configDir}`)
      return yield* Console.log(indent(sessionsTable(listed)))
    }
    yield* section(
      1,
      `Claude Code (the real CLI: ${real.binary}) ran ${real.turns} turns in ${real.projectDir}, the third in a resumed process → ${configDir}`
    )
    yield* Console.log(indent(sessionsTable(listed)))
    yield* Console.log(indent(`\ncommands it ran for real:\n${real.commands.map((c) => `  $ ${c}`).join("\n")}`))
    yield* Console.log(indent(`cost the CLI reported: $${real.costUsd.toFixed(6)} (cumulative over the session)`))
  })

interface DemoSessionKey {
  readonly projectKey: string
  readonly sessionId: string
  readonly title: string
}

/** Step 2: every session into the embedded SQLite SessionStore, and what it loads back. */
const importSessions = (projects: ClaudeProjects.ClaudeProjects, session: DemoSessionKey, sqliteFile: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const result = yield* ClaudeImport.importClaudeDir({ from: projects, to: store })
    const mainEntries = yield* store.load({ projectKey: session.projectKey, sessionId: session.sessionId })
    const summaries = yield* store.listSessionSummaries(session.projectKey)
    return { ...result, mainEntries: mainEntries?.length ?? 0, summaries: summaries.length }
  }).pipe(Effect.provide(SqliteSessionStore.layer({ filename: sqliteFile })))

type Imported = Effect.Effect.Success<ReturnType<typeof importSessions>>

const printImported = (imported: Imported, sqliteFile: string, ms: number) =>
  Effect.gen(function*() {
    yield* section(2, `Imported into the embedded SQLite SessionStore → ${sqliteFile}`)
    yield* Console.log(
      indent(
        `${plural(imported.sessions, "session")}, ${plural(imported.subagents, "subagent transcript")}, ${
          plural(imported.entries, "entry", "entries")
        } in ${ms} ms; load() returns ${plural(imported.mainEntries, "main entry", "main entries")}; ${
          plural(imported.summaries, "session summary", "session summaries")
        }`
      )
    )
  })

/** Step 4: the SDK messages through ClaudeAgentStorage into Acontext (an emulator on 127.0.0.1), read back. */
const pushToAcontext = (session: DemoSessionKey, messages: ReadonlyArray<unknown>, thinking: boolean) =>
  Effect.gen(function*() {
    const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
    const client = yield* AcontextClient.AcontextClient
    const emulator = yield* AcontextEmulator.AcontextEmulator
    const outcomes = yield* Effect.forEach(messages, (message) => storage.save(message))
    const failed = outcomes.filter((outcome) => outcome._tag === "Failed")
    const sessionId = (yield* storage.sessionId) ?? session.sessionId
    const stored = yield* Stream.runCollect(client.messages(sessionId))
    return { url: emulator.url, sessionId, saved: messages.length, failed: failed.length, stored: Array.from(stored) }
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

type Pushed = Effect.Effect.Success<ReturnType<typeof pushToAcontext>>

const printPushed = (pushed: Pushed) =>
  Effect.gen(function*() {
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
  })

const closingLine = (kept: string | undefined, configDir: string, session: DemoSessionKey) =>
  kept !== undefined
    ? `\nKept in ${kept}. Try:\n  acx sessions --config-dir ${configDir}\n  acx show ${
      session.sessionId.slice(0, 8)
    } --config-dir ${configDir}\n  acx stats --config-dir ${configDir}`
    : `\nRun with --dir DIR to keep the files and explore them with acx sessions / show / stats --config-dir DIR/claude.`

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ dir, generated, json, thinking }: DemoOptions) =>
  Effect.gen(function*() {
    const root = yield* demoRoot(dir)
    const configDir = path.join(root, "claude")
    const sqliteFile = path.join(root, "acx.sqlite")
    const projects = yield* ClaudeProjects.make({ configDir })
    const { real, why } = yield* realSession(generated, root, configDir)
    if (!json) {
      yield* Console.log(
        real !== undefined
          ? "acx demo: a real Claude Code session, run offline against a model double, end to end (nothing leaves this machine)"
          : `acx demo: a generated Claude Code session, end to end (nothing leaves this machine; ${why})`
      )
    }
    const { sdkMessages, session } = yield* demoSession(projects, real)
    const listed = yield* projects.listSessions()
    if (!json) yield* printSession(listed, real, configDir)
    const started = Date.now()
    const imported = yield* importSessions(projects, session, sqliteFile)
    if (!json) yield* printImported(imported, sqliteFile, Date.now() - started)
    // 3. Statistics, with the last-fragment usage rule.
    const stats = yield* SessionStats.collectStats(projects, undefined)
    if (!json) {
      yield* section(3, "Statistics (usage counted once per message, from its last fragment)")
      yield* Console.log(indent(statsReport(stats)))
    }
    const pushed = yield* pushToAcontext(session, sdkMessages, thinking)
    if (json) {
      return yield* Console.log(format.json({
        dir: dir === undefined ? null : root,
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
    yield* printPushed(pushed)
    yield* Console.log(closingLine(dir === undefined ? undefined : root, configDir, session))
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))
