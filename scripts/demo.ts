/**
 * The README's main job (until the `acx` CLI exists): decode a realistic generated SDK message
 * stream with @acx/schema, run it through @acx/convert's storage decider, and print what acx
 * would store in Acontext — every request body, in order.
 *
 * Usage: pnpm demo [--thinking] [--native] [--json]
 */
import { Decider } from "@acx/convert"
import { SdkMessage, SessionId } from "@acx/schema"
import { Either, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { generateStream } from "./demo-stream.js"

const args = new Set(process.argv.slice(2))
const options: Decider.DeciderOptions = {
  includeThinking: args.has("--thinking") || args.has("--native"),
  thinkingFormat: args.has("--native") ? "native" : "text"
}
const decode = Schema.decodeUnknownEither(SdkMessage.SdkMessage)

const stream = generateStream("The foo test fails: expected 4, got 0. Please fix it.")
let state = Either.getOrThrow(Decider.initialState())
const requests: Array<{ method: string; path: string; body: unknown }> = []

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

console.log(`acx demo: ${stream.length} SDK messages → Acontext (format "anthropic")\n`)
for (const message of stream) {
  const decision = Decider.decide(state, message, options)
  const summary = Decider.Decision.$match(decision, {
    ResolveSession: ({ id }) => {
      state = Decider.evolve(state, Decider.StorageEvent.SessionResolved({ id }))
      return `session id ${id}`
    },
    Skip: ({ detail, reason }) => `skip (${reason}): ${detail}`,
    Store: ({ blob, meta, role, uuid }) => {
      if (!state.ensured) {
        const id = state.sessionId ?? SessionId.unsafeMake(randomUUID())
        requests.push({ method: "POST", path: "/api/v1/session", body: { use_uuid: id } })
        state = Decider.evolve(state, Decider.StorageEvent.SessionEnsured({ id }))
      }
      requests.push({
        method: "POST",
        path: `/api/v1/session/${state.sessionId}/messages`,
        body: meta === null ? { format: "anthropic", blob } : { format: "anthropic", meta, blob }
      })
      state = Decider.evolve(state, Decider.StorageEvent.MessageStored({ role, uuid }))
      return `store ${role} message (${blob.content.map((b) => b.type).join(", ")})`
    }
  })
  console.log(`  ${label(message).padEnd(36)} → ${summary}`)
}

console.log(`\n${requests.length} requests acx would send:\n`)
for (const request of requests) {
  console.log(`${request.method} ${request.path}`)
  console.log(args.has("--json") ? JSON.stringify(request.body) : JSON.stringify(request.body, null, 2))
}
