// pack-check step 2: the Effect API of @acx/storage, @acx/session-store, @acx/agent and @acx/environment, type-checked against
// the installed declarations (tsc --noEmit, moduleResolution node16 and bundler).
import type { AgentError } from "@acx/agent"
import { AgentPool, AgentSession } from "@acx/agent"
import { createAgentSession, type Turn } from "@acx/agent/promise"
import { AcxHome, DatabaseSpec, SessionIdLookup } from "@acx/environment"
import { findClaudeBinary } from "@acx/environment/ClaudeBinary"
import { MemorySessionStore, SessionStore, SqliteSessionStore } from "@acx/session-store"
import { createPostgresSessionStore, createSqliteSessionStore } from "@acx/session-store/promise"
import { AcontextClient, ClaudeAgentStorage } from "@acx/storage"
import { ClaudeAgentStorage as ClaudeAgentStoragePromise } from "@acx/storage/promise"
import type { SessionStore as SdkSessionStore } from "@anthropic-ai/claude-agent-sdk"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const acontext: Layer.Layer<AcontextClient.AcontextClient> = AcontextClient.layer({
  apiKey: Redacted.make("sk-test"),
  baseUrl: "http://127.0.0.1:8029/api/v1"
}).pipe(Layer.provide(FetchHttpClient.layer))

const save = Effect.gen(function*() {
  const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
  const outcome = yield* storage.save({ type: "user", message: { role: "user", content: "hi" } })
  return outcome
}).pipe(
  Effect.provide(ClaudeAgentStorage.layer({ includeThinking: true }).pipe(Layer.provide(acontext))),
  Effect.catchTag("StorageError", (error) => Effect.succeed(error.reason))
)

const roundTrip = Effect.gen(function*() {
  const store = yield* SessionStore.SessionStore
  const key = { projectKey: "p", sessionId: "s" }
  yield* store.append(key, [{ type: "user", uuid: "u1" }])
  const entries: ReadonlyArray<SessionStore.SessionStoreEntry> | null = yield* store.load(key)
  return entries?.length ?? 0
})
const inMemory: Effect.Effect<number, SessionStore.SessionStoreError> = roundTrip.pipe(
  Effect.provide(MemorySessionStore.layer)
)
const onSqlite: Effect.Effect<number, SessionStore.SessionStoreError> = roundTrip.pipe(
  Effect.provide(SqliteSessionStore.layer({ filename: "sessions.db" }))
)

const sdkStore: SdkSessionStore = createSqliteSessionStore({ filename: "sessions.db" })
const pgStore: SdkSessionStore = createPostgresSessionStore({ url: "postgres://127.0.0.1/acx" })
const facade = new ClaudeAgentStoragePromise({ client: { apiKey: "sk-test" } })

const conversation: Effect.Effect<number, AgentError.AgentError> = Effect.scoped(Effect.gen(function*() {
  const session = yield* AgentSession.make({ cwd: ".", model: "claude-sonnet-4-5" })
  const turn: AgentSession.Turn = yield* session.ask("Hello")
  return turn.usage.costUsd
}))
const pooled: Effect.Effect<string, AgentError.AgentError> = Effect.scoped(Effect.gen(function*() {
  const pool = yield* AgentPool.make({ maxWarm: 2 })
  const turn = yield* pool.ask("chat-1", "Hello")
  return turn.result.subtype
})).pipe(Effect.provide(AgentPool.layerDatabase("sqlite:agent.db")))
const promised: Promise<Turn> = createAgentSession({ model: "claude-sonnet-4-5" }).then((session) => session.ask("Hi"))

const shown: string = Either.match(DatabaseSpec.parse("postgres://u:pw@127.0.0.1/acx?schema=team"), {
  onLeft: (error: DatabaseSpec.DatabaseSpecError) => error.reason,
  onRight: DatabaseSpec.display
})
const found: SessionIdLookup.LookupResult<string> = SessionIdLookup.lookupId(["1f3a0000-0000"], "1F3A")
const agentDatabase: string = AcxHome.paths().agentDatabase
const binary: Promise<string> = findClaudeBinary().then((found) => found.path)

export {
  agentDatabase,
  binary,
  conversation,
  facade,
  found,
  inMemory,
  onSqlite,
  pgStore,
  pooled,
  promised,
  save,
  sdkStore,
  shown
}
