/**
 * The durable outbox (SQLite journal in a temp file) with `ClaudeAgentStorage` and the Acontext
 * emulator over real HTTP: journaled then delivered in order, `flush`, an outage that only
 * delays, permanent failures (`failed`, `failures`, `retryFailed`), the delivering fiber killed
 * mid-stream and a new outbox started on the same file, and the Promise facade's `outbox`
 * option.
 */
import {
  assistantBlob,
  create,
  MODEL,
  store,
  textBlock,
  userBlob,
  UUID_DEFAULT,
  UUID_FLOW
} from "@acx/fixtures/acontextVectors"
import * as F from "@acx/fixtures/acontextVectors"
import * as CAS from "@acx/storage/ClaudeAgentStorage"
import * as Outbox from "@acx/storage/Outbox"
import { ClaudeAgentStorage as PromiseStorage } from "@acx/storage/promise"
import { StorageError } from "@acx/storage/StorageError"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import { AcontextEmulator } from "@acx/testing/AcontextEmulator"
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { fetchClient } from "./utils/fetchClient.js"
import { client, type ClientOptions, emulator, tempDir, wire } from "./utils/harness.js"
import { TEXT_OUT } from "./utils/shapes.js"

/** Delivery retries every 10 ms (forever, as the default does, only faster). */
const fastBackoff = Schedule.spaced("10 millis")

/** Outbox + storage on the emulator in context (the emulator outlives them). */
const durableStorage = (
  filename: string,
  options: CAS.ClaudeAgentStorageOptions = {},
  clientOptions: ClientOptions = { retry: false }
) =>
  Layer.orDie(CAS.layer(options)).pipe(
    Layer.provideMerge(Layer.orDie(Outbox.layer({ filename, backoff: fastBackoff }))),
    Layer.provide(client(clientOptions))
  )

/** Runs `body` with a fresh temp dir, removed afterwards. */
const withTempDir = <A, E, R>(body: (file: (name: string) => string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => tempDir("outbox")),
    (dir) => body(dir.file),
    (dir) => Effect.sync(dir.cleanup)
  )

/** Polls `read` every 10 ms until `done` holds (at most ~5 s). */
const waitUntil = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  read.pipe(
    Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: done }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("waitUntil: timed out") })
  )

const storedTexts = (sessionId: string) =>
  Effect.flatMap(AcontextEmulator, (e) => e.messages(sessionId)).pipe(
    Effect.map((messages) => messages.map((m) => m.parts.map((p) => p.text ?? "").join("|")))
  )

const texts = (n: number, prefix = "m") => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

describe("Outbox with ClaudeAgentStorage", () => {
  it.live("messages are journaled (Queued), then delivered in order; flush waits for them", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const storage = yield* CAS.ClaudeAgentStorage
        const outbox = yield* Outbox.Outbox
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "storeMessage", latencyMs: 5 }])
        const outcomes = []
        outcomes.push(yield* storage.save(F.systemInit(UUID_FLOW)))
        for (const text of texts(12)) outcomes.push(yield* storage.save(F.userText(text)))
        outcomes.push(yield* storage.save(F.assistant([F.TEXT])))
        expect(outcomes[0]).toStrictEqual({ _tag: "SessionResolved", sessionId: UUID_FLOW })
        expect(outcomes.slice(1)).toStrictEqual(
          Array.from({ length: 13 }, () => ({ _tag: "Queued", sessionId: UUID_FLOW }))
        )
        // Saving returned before delivery: some entries are still pending.
        expect(yield* outbox.pending).toBeGreaterThan(0)
        yield* storage.flush
        expect(yield* outbox.pending).toBe(0)
        expect(yield* outbox.failed).toStrictEqual([])
        expect(yield* wire).toStrictEqual([
          create(UUID_FLOW),
          ...texts(12).map((t) => store(UUID_FLOW, userBlob(textBlock(t)))),
          store(UUID_FLOW, assistantBlob(TEXT_OUT), { model: MODEL })
        ])
        expect((yield* emu.messages(UUID_FLOW)).map((m) => m.meta)).toStrictEqual([
          ...texts(12).map(() => ({})),
          { model: MODEL }
        ])
      }).pipe(Effect.provide(durableStorage(file("journal.db"))))
    ).pipe(Effect.provide(emulator())))

  it.live("no session id known yet: acx names the session (a UUID) before journaling, and keeps it", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const storage = yield* CAS.ClaudeAgentStorage
        const first = yield* storage.save(F.userText("early"))
        expect(first._tag).toBe("Queued")
        const sessionId = (first as { sessionId: string }).sessionId
        expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
        // A later init does not move the journaled messages to another session.
        yield* storage.save(F.systemInit(UUID_FLOW))
        yield* storage.save(F.userText("late"))
        expect(yield* storage.sessionId).toBe(sessionId)
        yield* storage.flush
        expect(yield* wire).toStrictEqual([
          create(sessionId),
          store(sessionId, userBlob(textBlock("early"))),
          store(sessionId, userBlob(textBlock("late")))
        ])
      }).pipe(Effect.provide(durableStorage(file("journal.db"))))
    ).pipe(Effect.provide(emulator())))

  it.live("an outage (503 for a while) delays delivery but loses nothing; order kept, each stored once", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const storage = yield* CAS.ClaudeAgentStorage
        const outbox = yield* Outbox.Outbox
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "*", status: 503 }])
        for (const text of texts(10)) yield* storage.save(F.userText(text))
        // Wait for the outbox to have retried during the outage (a condition, not a timing guess:
        // on a loaded machine the backoff fires fewer times per wall-clock interval).
        yield* waitUntil(Effect.map(emu.requests, (log) => log.length), (n) => n > 3)
        expect(yield* outbox.pending).toBe(10)
        expect(yield* emu.sessions).toStrictEqual([])
        yield* emu.clearFaults
        yield* storage.flush
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(texts(10))
        expect(yield* outbox.failed).toStrictEqual([])
        expect(yield* outbox.pending).toBe(0)
      }).pipe(Effect.provide(durableStorage(file("journal.db"), { sessionId: UUID_DEFAULT })))
    ).pipe(Effect.provide(emulator())))

  it.live("a permanent failure (400) marks the entry failed (failed, failures); retryFailed requeues it", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const storage = yield* CAS.ClaudeAgentStorage
        const outbox = yield* Outbox.Outbox
        const emu = yield* AcontextEmulator
        const failuresFiber = yield* Stream.take(storage.failures, 1).pipe(Stream.runCollect, Effect.fork)
        const outboxFailuresFiber = yield* Stream.take(outbox.failures, 1).pipe(Stream.runCollect, Effect.fork)
        yield* Effect.sleep("30 millis")
        yield* emu.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
        for (const text of texts(5)) yield* storage.save(F.userText(text))
        yield* storage.flush
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(["m1", "m2", "m3", "m4"])
        const failed = yield* outbox.failed
        expect(failed).toHaveLength(1)
        expect(failed[0]).toMatchObject({
          sessionId: UUID_DEFAULT,
          user: null,
          blob: userBlob(textBlock("m0")),
          meta: null
        })
        expect(failed[0]!.lastError).toBe(
          "Acontext storeMessage failed: BadRequest 400: parameter error (fault injected by the acx emulator)"
        )
        for (const fiber of [failuresFiber, outboxFailuresFiber]) {
          const [failure] = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
          expect(failure).toBeInstanceOf(StorageError)
          expect(failure).toMatchObject({
            reason: "Delivery",
            sessionId: UUID_DEFAULT,
            blob: userBlob(textBlock("m0"))
          })
        }
        expect(yield* outbox.retryFailed).toBe(1)
        yield* storage.flush
        expect(yield* outbox.failed).toStrictEqual([])
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(["m1", "m2", "m3", "m4", "m0"])
      }).pipe(Effect.provide(durableStorage(file("journal.db"), { sessionId: UUID_DEFAULT })))
    ).pipe(Effect.provide(emulator())))

  // A permanent delivery failure reaches the storage's error policy (the handler, and so the
  // Promise facade's onError) as a `Delivery` StorageError with its blob.
  it("a permanent delivery failure reaches the storage's error policy (handler)", () =>
    withTempDir((file) => {
      const handled: Array<StorageError> = []
      return Effect.gen(function*() {
        const storage = yield* CAS.ClaudeAgentStorage
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "storeMessage", status: 400, times: 1 }])
        yield* storage.save(F.userText("m0"))
        yield* storage.flush
        expect(handled.map((e) => e.reason)).toStrictEqual(["Delivery"])
      }).pipe(
        Effect.provide(durableStorage(file("journal.db"), {
          sessionId: UUID_DEFAULT,
          onError: (error) => Effect.sync(() => void handled.push(error))
        }))
      )
    }).pipe(Effect.provide(emulator()), Effect.runPromise))

  it.live("the delivering fiber killed mid-stream: a new outbox on the same file delivers the rest, each once, in order", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        const journal = file("journal.db")
        const all = texts(30)
        yield* emu.setFaults([{ route: "storeMessage", latencyMs: 15 }])

        // First process: journal everything, let a few be delivered, then stop it while an
        // entry is in flight (the layer's scope closes: the delivery fiber is interrupted).
        const scope1 = yield* Scope.make()
        const context1 = yield* Layer.buildWithScope(durableStorage(journal, { sessionId: UUID_DEFAULT }), scope1)
        const storage1 = Context.get(context1, CAS.ClaudeAgentStorage)
        for (const text of all) yield* storage1.save(F.userText(text))
        yield* waitUntil(Effect.map(emu.messages(UUID_DEFAULT), (m) => m.length), (n) => n >= 5)
        yield* Scope.close(scope1, Exit.interrupt(FiberId.none))
        const deliveredBefore = (yield* emu.messages(UUID_DEFAULT)).length
        expect(deliveredBefore).toBeGreaterThanOrEqual(5)
        expect(deliveredBefore).toBeLessThan(all.length)
        // Nothing more arrives once it is stopped.
        yield* Effect.sleep("60 millis")
        expect((yield* emu.messages(UUID_DEFAULT)).length).toBe(deliveredBefore)

        // Second process, same journal: the rest is pending and gets delivered.
        yield* emu.clearFaults
        yield* Effect.gen(function*() {
          const outbox = yield* Outbox.Outbox
          expect(yield* outbox.pending).toBe(all.length - deliveredBefore)
          yield* (yield* CAS.ClaudeAgentStorage).flush
        }).pipe(Effect.provide(durableStorage(journal, { sessionId: UUID_DEFAULT })))

        // The stop let the attempt in flight finish and remove its entry (graceful shutdown), so
        // every message is stored exactly once, in order.
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(all)
        // The second outbox re-ensured the session: 200 (idempotent) the second time.
        expect((yield* emu.requests).filter((r) => r.route === "createSession").map((r) => r.status))
          .toStrictEqual([201, 200])
      })
    ).pipe(Effect.provide(emulator())))

  it.live("a store applied by the server whose answer was lost is not delivered again: the tail read finds it", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        // The outbox removes an entry only after Acontext acknowledged it. When the server
        // applied the store but the answer never arrived (dropped connection, or a 502 after
        // storing), the session's tail is read before the entry is delivered again: it is there,
        // so it is removed without a second store.
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([
          { route: "storeMessage", drop: true, afterEffect: true, everyNth: 3, times: 1 },
          { route: "storeMessage", status: 502, afterEffect: true, everyNth: 5, times: 1 }
        ])
        const storage = yield* CAS.ClaudeAgentStorage
        for (const text of texts(8)) yield* storage.save(F.userText(text))
        yield* storage.flush
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(texts(8))
        expect((yield* emu.requests).filter((r) => r.route === "storeMessage").map((r) => r.status))
          .toStrictEqual([201, 201, "dropped", 201, 502, 201, 201, 201])
      }).pipe(Effect.provide(durableStorage(file("journal.db"), { sessionId: UUID_DEFAULT })))
    ).pipe(Effect.provide(emulator())))

  it.live("after a restart, the entry that was in flight is checked against the tail before it is delivered again", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        const journal = file("journal.db")
        // "m2" is stored by the server, which then holds the answer for a long time; the first
        // process stops meanwhile (grace period 0: the attempt is interrupted), so its entry
        // stays journaled although Acontext holds it.
        yield* emu.setFaults([{ route: "storeMessage", latencyMs: 1000, afterEffect: true, everyNth: 3, times: 1 }])
        const scope1 = yield* Scope.make()
        const context1 = yield* Layer.buildWithScope(
          Layer.orDie(CAS.layer({ sessionId: UUID_DEFAULT })).pipe(
            Layer.provideMerge(
              Layer.orDie(Outbox.layer({ filename: journal, backoff: fastBackoff, shutdownGracePeriod: 0 }))
            ),
            Layer.provide(client({ retry: false }))
          ),
          scope1
        )
        const storage1 = Context.get(context1, CAS.ClaudeAgentStorage)
        for (const text of texts(5)) yield* storage1.save(F.userText(text))
        yield* waitUntil(Effect.map(emu.messages(UUID_DEFAULT), (m) => m.length), (n) => n >= 3)
        yield* Scope.close(scope1, Exit.void)
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(["m0", "m1", "m2"])

        yield* emu.clearFaults
        yield* emu.clearRequests
        yield* Effect.flatMap(CAS.ClaudeAgentStorage, (storage) => storage.flush).pipe(
          Effect.provide(durableStorage(journal, { sessionId: UUID_DEFAULT }))
        )
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(texts(5))
        // One tail read (two GETs) before the first delivery; m2 was found, m3 and m4 stored.
        const routes = (yield* emu.requests).map((r) => r.route).filter((r) => r !== "createSession")
        expect(routes).toStrictEqual(["getMessages", "getMessages", "storeMessage", "storeMessage"])
      })
    ).pipe(Effect.provide(emulator())))

  it.live("after a restart, a pending entry equal to the message before it is told apart by the journaled id", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        const journal = file("journal.db")
        const all = ["m0", "same", "same", "m3"]
        // The first process delivers "m0" and the first "same", then Acontext answers 503 to
        // every store and the process stops: the second "same" stays journaled, not stored. On
        // the next start it is checked against the tail as if it had been in flight, and the
        // session's newest message equals it: only the journaled id of that message says it is
        // the one before.
        const scope1 = yield* Scope.make()
        const context1 = yield* Layer.buildWithScope(durableStorage(journal, { sessionId: UUID_DEFAULT }), scope1)
        const storage1 = Context.get(context1, CAS.ClaudeAgentStorage)
        for (const text of all.slice(0, 2)) yield* storage1.save(F.userText(text))
        yield* storage1.flush
        yield* emu.setFaults([{ route: "storeMessage", status: 503 }])
        for (const text of all.slice(2)) yield* storage1.save(F.userText(text))
        yield* waitUntil(
          Effect.map(emu.requests, (log) => log.filter((r) => r.route === "storeMessage" && r.faulted).length),
          (n) => n >= 1
        )
        yield* Scope.close(scope1, Exit.void)
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(["m0", "same"])

        yield* emu.clearFaults
        yield* Effect.flatMap(CAS.ClaudeAgentStorage, (storage) => storage.flush).pipe(
          Effect.provide(durableStorage(journal, { sessionId: UUID_DEFAULT }))
        )
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(all)
      })
    ).pipe(Effect.provide(emulator())))

  // The client's per-request timeout abandons a slow request even inside the outbox, so a
  // request slower than the timeout is not completed and then redelivered (a duplicate).
  it("a request slower than the client's timeout is abandoned, not completed and redelivered", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "storeMessage", latencyMs: 300, times: 1 }])
        const storage = yield* CAS.ClaudeAgentStorage
        yield* storage.save(F.userText("slow"))
        yield* storage.flush
        yield* Effect.sleep("300 millis")
        expect(yield* storedTexts(UUID_DEFAULT)).toStrictEqual(["slow"])
      }).pipe(
        Effect.provide(
          durableStorage(file("journal.db"), { sessionId: UUID_DEFAULT }, { retry: false, timeout: "100 millis" })
        )
      )
    ).pipe(Effect.provide(emulator()), Effect.runPromise))

  // Shutdown during an outage completes: retries stop between attempts and the entry stays
  // journaled for the next start.
  it("closing the outbox during an outage completes (the entry stays journaled)", () =>
    withTempDir((file) =>
      Effect.gen(function*() {
        const emu = yield* AcontextEmulator
        yield* emu.setFaults([{ route: "*", status: 503 }])
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(
          durableStorage(file("journal.db"), { sessionId: UUID_DEFAULT }),
          scope
        )
        yield* Context.get(context, CAS.ClaudeAgentStorage).save(F.userText("m0"))
        yield* Effect.sleep("50 millis")
        const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
        const closed = yield* Fiber.await(closing).pipe(Effect.timeoutOption("1 second"))
        // Clean up either way: end the outage so that the close can finish.
        yield* emu.clearFaults
        yield* Fiber.await(closing)
        expect(Option.isSome(closed)).toBe(true)
      })
    ).pipe(Effect.provide(emulator()), Effect.runPromise))
})

describe("the Promise facade's outbox option", () => {
  let dir: ReturnType<typeof tempDir>

  beforeEach(() => {
    dir = tempDir("facade-outbox")
    vi.spyOn(console, "warn").mockImplementation(() => {})
    vi.spyOn(console, "log").mockImplementation(() => {})
  })

  afterEach(() => {
    vi.restoreAllMocks()
    dir.cleanup()
  })

  it("saveMessage journals; flush() delivers in order; close() flushes", async () => {
    await using emu = await startAcontextEmulator({ faults: [{ route: "storeMessage", latencyMs: 5 }] })
    const storage = new PromiseStorage({
      client: fetchClient(emu.url, emu.apiKey),
      sessionId: UUID_DEFAULT,
      outbox: dir.file("journal.db")
    })
    for (const text of texts(8)) await storage.saveMessage(F.userText(text))
    await storage.flush()
    expect((await emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(texts(8))
    for (const text of texts(4, "n")) await storage.saveMessage(F.userText(text))
    await storage.close()
    expect((await emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual([
      ...texts(8),
      ...texts(4, "n")
    ])
  })

  it("options form ({ filename }) and a session id discovered from the stream", async () => {
    await using emu = await startAcontextEmulator()
    const storage = new PromiseStorage({
      client: fetchClient(emu.url, emu.apiKey),
      outbox: { filename: dir.file("journal.db"), synchronous: "FULL" }
    })
    await storage.saveMessage(F.systemInit(UUID_FLOW))
    await storage.saveMessage(F.userText("Hi"))
    await storage.close()
    expect(storage.sessionId).toBe(UUID_FLOW)
    expect((await emu.messages(UUID_FLOW)).map((m) => m.parts[0]!.text)).toStrictEqual(["Hi"])
  })

  it("a duck client's error is permanent for the outbox: the entry is marked failed, the rest delivered", async () => {
    // Duck-typed clients own their transport (docs/design.md#behaviour-decisions-for-claudeagentstorage): acx does not retry their
    // errors, so under an outbox any failure marks the entry failed (kept in the journal).
    await using emu = await startAcontextEmulator({ faults: [{ route: "storeMessage", status: 503, times: 1 }] })
    const storage = new PromiseStorage({
      client: fetchClient(emu.url, emu.apiKey),
      sessionId: UUID_DEFAULT,
      outbox: dir.file("journal.db")
    })
    for (const text of texts(3)) await storage.saveMessage(F.userText(text))
    await storage.close()
    expect((await emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(["m1", "m2"])
  })

  // A previous "process" journals 6 messages and stops before delivering them all (its close
  // gives up flushing after 30 ms); returns a second facade on the same journal.
  const leftovers = async (emu: AcontextEmulatorHandle) => {
    const journal = dir.file("journal.db")
    const options = { client: fetchClient(emu.url, emu.apiKey), sessionId: UUID_DEFAULT, outbox: journal }
    await emu.setFaults([{ route: "storeMessage", latencyMs: 40 }])
    const first = new PromiseStorage(options)
    for (const text of texts(6)) await first.saveMessage(F.userText(text))
    await first.close(30)
    expect((await emu.messages(UUID_DEFAULT)).length).toBeLessThan(6)
    await emu.clearFaults()
    return new PromiseStorage(options)
  }

  // A new facade starts its outbox at construction: `flush()` delivers what a previous process
  // left in the journal, without a new message.
  it("a new facade on the same journal delivers the leftovers on flush(), without a new message", async () => {
    await using emu = await startAcontextEmulator()
    const second = await leftovers(emu)
    await second.flush()
    expect((await emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(texts(6))
    await second.close()
  })

  it("a new facade on the same journal delivers the leftovers before a new message", async () => {
    await using emu = await startAcontextEmulator()
    const second = await leftovers(emu)
    await second.saveMessage(F.userText("m6"))
    await second.close()
    expect((await emu.messages(UUID_DEFAULT)).map((m) => m.parts[0]!.text)).toStrictEqual(texts(7))
  })
})
