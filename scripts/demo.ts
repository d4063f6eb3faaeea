/**
 * The README's main job: a generated, realistic Claude Agent SDK conversation goes through
 * ClaudeAgentStorage (Effect service, acx's HTTP client) into an embedded Acontext emulator on
 * 127.0.0.1; then the stored conversation is read back in Anthropic format and printed.
 *
 * Usage: pnpm demo [--thinking] [--native] [--json]
 */
import { SdkMessage } from "@acx/schema"
import { AcontextClient, ClaudeAgentStorage } from "@acx/storage"
import { AcontextEmulator } from "@acx/storage/testing"
import { Effect, Either, Layer, Stream } from "effect"
import { generateStream } from "./demo-stream.js"

const args = new Set(process.argv.slice(2))
const decode = SdkMessage.decode

const label = (message: Record<string, unknown>): string => {
  const decoded = decode(message)
  if (Either.isLeft(decoded)) return "invalid"
  const msg = decoded.right
  const subtype = typeof message["subtype"] === "string" ? `/${message["subtype"]}` : ""
  if (!SdkMessage.isKnown(msg)) return `${msg.type}${subtype} (Unknown)`
  switch (msg.type) {
    case "assistant":
      return `assistant [${msg.message.content.map((block) => block.type).join(", ")}]`
    case "user":
      return "isReplay" in msg && msg.isReplay ? "user (replay)" : "user"
    default:
      return `${msg.type}${subtype}`
  }
}

const describeOutcome = (outcome: ClaudeAgentStorage.SaveOutcome): string => {
  switch (outcome._tag) {
    case "Stored":
      return "stored"
    case "Queued":
      return "queued"
    case "SessionResolved":
      return `session id ${outcome.sessionId}`
    case "Skipped":
      return `skipped (${outcome.reason})`
    case "Failed":
      return `FAILED: ${outcome.error.message}`
  }
}

const summarize = (block: Record<string, unknown>): string => {
  const clip = (text: string) => (text.length > 90 ? `${text.slice(0, 87)}...` : text).replace(/\n/g, " ⏎ ")
  switch (block["type"]) {
    case "text":
      return clip(String(block["text"]))
    case "thinking":
      return `(thinking) ${clip(String(block["thinking"]))}`
    case "tool_use":
      return `→ ${String(block["name"])}(${clip(JSON.stringify(block["input"]))})`
    case "tool_result": {
      const content = block["content"]
      const text = Array.isArray(content)
        ? content.map((item: { text?: unknown }) => String(item.text ?? "")).join("")
        : String(content)
      return `← ${block["is_error"] ? "error: " : ""}${clip(text)}`
    }
    default:
      return `[${String(block["type"])}]`
  }
}

const program = Effect.gen(function*() {
  const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
  const client = yield* AcontextClient.AcontextClient
  const emulator = yield* AcontextEmulator.AcontextEmulator
  const stream = generateStream("The foo test fails: expected 4, got 0. Please fix it.")

  console.log(
    `acx demo: ${stream.length} Claude Agent SDK messages → ClaudeAgentStorage → Acontext emulator at ${emulator.url}\n`
  )
  yield* Stream.fromIterable(stream).pipe(
    Stream.mapEffect((message) => Effect.map(storage.save(message), (outcome) => [message, outcome] as const)),
    Stream.runForEach(([message, outcome]) =>
      Effect.sync(() => console.log(`  ${label(message).padEnd(36)} → ${describeOutcome(outcome)}`))
    )
  )

  const sessionId = yield* storage.sessionId
  if (sessionId === null) return yield* Effect.die("no session was created")
  const stored = yield* Stream.runCollect(client.messages(sessionId))
  console.log(
    `\nStored in Acontext session ${sessionId}: ${stored.length} messages (read back with format=anthropic)\n`
  )
  for (const { message, meta } of stored) {
    if (args.has("--json")) {
      console.log(JSON.stringify({ message, meta }))
      continue
    }
    const { content, role } = message as { role: string; content: Array<Record<string, unknown>> }
    const model = typeof meta["model"] === "string" ? `  (${meta["model"]})` : ""
    console.log(`${role.padEnd(10)} ${content.map(summarize).join("\n           ")}${model}`)
  }
})

const Emulator = AcontextEmulator.layer()
const Client = Layer.unwrapEffect(
  Effect.map(
    AcontextEmulator.AcontextEmulator,
    (emulator) => AcontextClient.layerNode({ apiKey: AcontextClient.apiKey(emulator.apiKey), baseUrl: emulator.url })
  )
)
const Storage = ClaudeAgentStorage.layer({
  includeThinking: args.has("--thinking") || args.has("--native"),
  thinkingFormat: args.has("--native") ? "native" : "text"
})

Effect.runPromise(
  program.pipe(Effect.provide(Storage.pipe(Layer.provideMerge(Client), Layer.provideMerge(Emulator))))
).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
