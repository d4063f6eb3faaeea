/**
 * `pnpm bench` for @acx/storage, against an in-process Acontext emulator on 127.0.0.1:
 * - per-message cost of `ClaudeAgentStorage.save` against a direct `AcontextClient.storeMessage`
 *   of the already-converted blob, measured in the same run over the same messages
 *   (target: save ≤ 1.2× direct);
 * - outbox throughput: messages/s journaled, and journaled + delivered (until `flush`);
 * - exactly-once delivery: one reconciliation read (`newestMessages`, the tail read after an
 *   ambiguous failure) against one direct store, and `save` with 10 % of the stores applied and
 *   then their connection dropped (each answered by a tail read) against `save` without faults,
 *   paired rounds in the same run.
 *
 * Inputs: every user/assistant message derivable from the real-world fixtures in
 * packages/fixtures/data (as in the convert bench).
 */
import { Decider } from "@acx/convert"
import * as Fixtures from "@acx/fixtures"
import { AcontextClient, ClaudeAgentStorage, Outbox } from "@acx/storage"
import { fromAcontextClient } from "@acx/storage/Delivery"
import * as AcontextEmulator from "@acx/testing/AcontextEmulator"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Either, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

type Message = Record<string, unknown>

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const loadMessages = (): Array<Message> => [
  ...Fixtures.transcriptEntries().flatMap(({ value }) =>
    isRecord(value) && (value["type"] === "user" || value["type"] === "assistant") && isRecord(value["message"])
      ? [{ type: value["type"], message: value["message"], uuid: value["uuid"], parent_tool_use_id: null }]
      : []
  ),
  ...Fixtures.sdkMessages().flatMap(({ value }) =>
    isRecord(value) && (value["type"] === "user" || value["type"] === "assistant") ? [value] : []
  )
]

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const program = Effect.gen(function*() {
  const messages = loadMessages()
  const emulator = yield* AcontextEmulator.AcontextEmulator
  const client = yield* AcontextClient.AcontextClient
  // What `save` would store, converted once up front: the direct candidate only does the I/O.
  const state = Either.getOrThrow(Decider.initialState())
  const stores = messages.flatMap((message) => {
    const decision = Decider.decide(state, message)
    return decision._tag === "Store" ? [{ blob: decision.blob, meta: decision.meta }] : []
  })

  const direct = Effect.gen(function*() {
    const session = yield* client.createSession()
    for (const { blob, meta } of stores) yield* client.storeMessage(session.id, blob, { meta })
  })
  const viaStorage = Effect.scoped(Effect.gen(function*() {
    const storage = yield* ClaudeAgentStorage.make({}, fromAcontextClient(client))
    for (const message of messages) yield* storage.save(message)
  }))
  const timed = (effect: Effect.Effect<void, unknown>) =>
    Effect.gen(function*() {
      const start = performance.now()
      yield* effect
      return performance.now() - start
    })

  yield* Effect.all([direct, viaStorage], { discard: true }) // warm up
  const directMs: Array<number> = []
  const storageMs: Array<number> = []
  // Alternate which candidate goes first, so drift (GC, JIT, the emulator's growing store)
  // hits both alike.
  for (let round = 0; round < 12; round++) {
    if (round % 2 === 0) {
      directMs.push(yield* timed(direct))
      storageMs.push(yield* timed(viaStorage))
    } else {
      storageMs.push(yield* timed(viaStorage))
      directMs.push(yield* timed(direct))
    }
  }
  const perDirect = median(directMs) / stores.length
  const perSave = median(storageMs) / stores.length
  const ratio = perSave / perDirect
  console.log(
    `@acx/storage bench — ${new Date().toISOString()} — node ${process.version}, ${
      os.cpus()[0]?.model ?? "cpu"
    } x${os.cpus().length}`
  )
  console.log(`inputs: ${messages.length} messages, ${stores.length} stored per run, emulator at ${emulator.url}`)
  console.log(`  direct storeMessage (baseline)   ${(perDirect * 1000).toFixed(0).padStart(6)} µs/message  ratio 1.00x`)
  console.log(
    `  ClaudeAgentStorage.save          ${(perSave * 1000).toFixed(0).padStart(6)} µs/message  ratio ${
      ratio.toFixed(2)
    }x`
  )
  console.log(`save overhead ratio: ${ratio.toFixed(2)}x (target <= 1.20x) ${ratio <= 1.2 ? "MET" : "NOT MET"}`)

  // Exactly-once: what reconciliation costs when it happens, and under a 10 % store-then-drop rate.
  const long = yield* client.createSession()
  for (const { blob, meta } of stores.slice(0, 200)) yield* client.storeMessage(long.id, blob, { meta })
  const readMs: Array<number> = []
  for (let i = 0; i < 200; i++) readMs.push(yield* timed(Effect.asVoid(client.newestMessages(long.id))))
  const perRead = median(readMs)
  console.log(
    `  tail read (reconciliation)       ${(perRead * 1000).toFixed(0).padStart(6)} µs/read     ratio ${
      (perRead / perDirect).toFixed(2)
    }x a direct store (two GETs on a ${Math.min(200, stores.length)}-message session)`
  )
  const cleanMs: Array<number> = []
  const faultyMs: Array<number> = []
  let duplicates = 0
  const faulty = Effect.gen(function*() {
    yield* emulator.setFaults([{ route: "storeMessage", drop: true, afterEffect: true, rate: 0.1, seed: duplicates }])
    const start = performance.now()
    const sessionId = yield* Effect.scoped(Effect.gen(function*() {
      const storage = yield* ClaudeAgentStorage.make({}, fromAcontextClient(client))
      for (const message of messages) yield* storage.save(message)
      return yield* storage.sessionId
    }))
    const elapsed = performance.now() - start
    yield* emulator.clearFaults
    duplicates += (yield* emulator.messages(sessionId ?? "")).length - stores.length
    return elapsed
  })
  for (let round = 0; round < 6; round++) {
    if (round % 2 === 0) {
      cleanMs.push(yield* timed(viaStorage))
      faultyMs.push(yield* faulty)
    } else {
      faultyMs.push(yield* faulty)
      cleanMs.push(yield* timed(viaStorage))
    }
  }
  const perClean = median(cleanMs) / stores.length
  const perFaulty = median(faultyMs) / stores.length
  console.log(
    `  save, 10% store-then-drop        ${(perFaulty * 1000).toFixed(0).padStart(6)} µs/message  ratio ${
      (perFaulty / perClean).toFixed(2)
    }x save without faults (${(perClean * 1000).toFixed(0)} µs/message); duplicates stored: ${duplicates}`
  )

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-outbox-bench-"))
  yield* Effect.scoped(Effect.gen(function*() {
    const outbox = yield* Outbox.make({ filename: path.join(dir, "outbox.sqlite") }, fromAcontextClient(client))
    const storage = yield* ClaudeAgentStorage.make({}, fromAcontextClient(client), Option.some(outbox))
    const start = performance.now()
    for (const message of messages) yield* storage.save(message)
    const journaled = performance.now() - start
    yield* storage.flush
    const delivered = performance.now() - start
    console.log(
      `  outbox: journal ${(stores.length / (journaled / 1000)).toFixed(0)} msg/s; journal + deliver ${
        (stores.length / (delivered / 1000)).toFixed(0)
      } msg/s`
    )
  }))
  fs.rmSync(dir, { recursive: true, force: true })
})

const Emulator = AcontextEmulator.layer()
const Client = Layer.unwrapEffect(
  Effect.map(
    AcontextEmulator.AcontextEmulator,
    (emulator) => AcontextClient.layer({ apiKey: AcontextClient.apiKey(emulator.apiKey), baseUrl: emulator.url })
  )
).pipe(Layer.provide(NodeHttpClient.layerUndici))
Effect.runPromise(program.pipe(Effect.provide(Client.pipe(Layer.provideMerge(Emulator))))).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
