/**
 * The Promise facade and `AcontextClient.layerConfig` as an app meets them: a real script
 * (spawned, its own environment) and a real emulator on 127.0.0.1.
 * - `ACONTEXT_API_KEY` / `ACONTEXT_BASE_URL` are read as Acontext's own client reads them
 *   (option, then environment, then default); an explicit option wins over the environment;
 * - no key at all, or a blank one, throws at construction with one line naming the variable,
 *   before any request;
 * - a failed store with no `onError` is ONE warning line per failure, naming its cause, and no
 *   stack trace (it was four object dumps of ~28 lines each).
 */
import { bundleWorker, type WorkerBundle } from "@acx/fixtures/workerBundle"
import { AcontextClient } from "@acx/storage"
import { StorageError } from "@acx/storage/StorageError"
import { type AcontextEmulatorHandle, startAcontextEmulator } from "@acx/testing"
import { FetchHttpClient } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, FastCheck, Layer } from "effect"
import { execFile } from "node:child_process"
import { createServer } from "node:net"
import * as FailureLine from "../src/internal/failureLine.js"

// scripts/saveWithFacade.ts bundled (beforeAll), run by plain Node: through tsx's hooks each
// start cost seconds of CPU
let script: WorkerBundle | undefined
beforeAll(async () => {
  script = await bundleWorker(new URL("./scripts/saveWithFacade.ts", import.meta.url))
})
afterAll(() => script?.remove())
const SESSION = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

/** The script, with exactly the given Acontext variables (none inherited from this process). */
const runScript = (options: unknown, env: Record<string, string>) => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ACONTEXT_")))
  // asynchronous: the emulator it talks to runs in this process
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [script!.file, JSON.stringify(options), SESSION],
      { env: { ...inherited, ...env }, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ status: error === null ? 0 : (error.code as number | null) ?? 1, stdout, stderr })
    )
  })
}

/** A port nothing listens on (bound, then released): connections are refused at once. */
const deadUrl = () =>
  new Promise<string>((resolve, reject) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("no port"))
      server.close(() => resolve(`http://127.0.0.1:${address.port}/api/v1`))
    })
  })

/** The session's stored messages on `emulator`, one string each. */
const storedTexts = async (emulator: AcontextEmulatorHandle, sessionId: string) => {
  const messages = await emulator.messages(sessionId)
  return messages.map((message) => JSON.stringify(message.parts ?? message))
}

describe("the Promise facade reads Acontext's environment variables", () => {
  // every app of this block in ONE script process, one after another, each with exactly its own
  // Acontext variables set before its facade is built (spawning a script per app cost seconds each)
  const apps = {
    fromEnv: "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a51",
    keyOnly: "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a52",
    explicit: "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a53",
    noKey: "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a54",
    blankKey: "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a55"
  }
  let emulator: AcontextEmulatorHandle
  // where the apps without a key point: it must see no request at all
  let untouched: AcontextEmulatorHandle
  let run: { status: number | null; stdout: string; stderr: string }
  let answers: Map<string, { readonly sessionId?: string; readonly error?: string }>

  beforeAll(async () => {
    emulator = await startAcontextEmulator()
    untouched = await startAcontextEmulator()
    const order = [
      {
        sessionId: apps.fromEnv,
        options: {},
        env: { ACONTEXT_API_KEY: emulator.apiKey, ACONTEXT_BASE_URL: emulator.url }
      },
      {
        sessionId: apps.keyOnly,
        options: { client: { apiKey: emulator.apiKey } },
        env: { ACONTEXT_BASE_URL: emulator.url }
      },
      {
        sessionId: apps.explicit,
        options: { client: { apiKey: emulator.apiKey, baseUrl: emulator.url } },
        env: { ACONTEXT_API_KEY: "sk-ac-wrong", ACONTEXT_BASE_URL: await deadUrl() }
      },
      { sessionId: apps.noKey, options: {}, env: {} },
      { sessionId: apps.blankKey, options: { client: { apiKey: "  " } }, env: { ACONTEXT_BASE_URL: untouched.url } }
    ]
    run = await runScript(order, {})
    const lines = run.stdout.split("\n").filter((line) => line !== "")
    answers = new Map(order.map((app, i) => [app.sessionId, JSON.parse(lines[i] ?? "{}")]))
  }, 90_000)
  afterAll(async () => {
    await emulator?.close()
    await untouched?.close()
  })

  it("the script ran every app, warning nothing", () => {
    expect(run.status).toBe(0)
    expect(run.stderr).toBe("")
    expect(answers.size).toBe(5)
  })

  it("no client settings: ACONTEXT_API_KEY and ACONTEXT_BASE_URL are used", async () => {
    expect(answers.get(apps.fromEnv)).toEqual({ sessionId: apps.fromEnv })
    const texts = await storedTexts(emulator, apps.fromEnv)
    expect(texts).toHaveLength(2)
    expect(texts[0]).toContain("What is 1+1?")
  })

  it("client: { apiKey } only: the base URL still comes from ACONTEXT_BASE_URL", async () => {
    expect(answers.get(apps.keyOnly)).toEqual({ sessionId: apps.keyOnly })
    expect(await storedTexts(emulator, apps.keyOnly)).toHaveLength(2)
  })

  it("explicit settings win over the environment", async () => {
    expect(answers.get(apps.explicit)).toEqual({ sessionId: apps.explicit })
    expect(await storedTexts(emulator, apps.explicit)).toHaveLength(2)
  })

  it("no key anywhere, or a blank one: the constructor throws one line naming ACONTEXT_API_KEY", async () => {
    for (const sessionId of [apps.noKey, apps.blankKey]) {
      const error = answers.get(sessionId)?.error
      expect(error).toContain("ACONTEXT_API_KEY")
      expect(error).not.toMatch(/[\n\r]/)
    }
    expect(await untouched.requests()).toEqual([])
    expect(await emulator.messages(apps.noKey)).toEqual([])
  })
})

describe("a failed store without onError", () => {
  it("is one warning line per failure, with its cause and no stack trace", async () => {
    const run = await runScript({}, { ACONTEXT_API_KEY: "sk-ac-any", ACONTEXT_BASE_URL: await deadUrl() })
    expect(run.status).toBe(0) // saveMessage resolves: the app's loop never breaks
    const lines = run.stderr.split("\n").filter((line) => line !== "")
    // the prompt and the answer each fail to create the session (the init stores nothing)
    expect(lines).toHaveLength(2)
    for (const line of lines) {
      expect(line.startsWith(`acx: Failed to store message (session=${SESSION}): CreateSession after 5 attempts: `))
        .toBe(true)
      expect(line).toContain("Transport")
      expect(line).toContain("ECONNREFUSED") // the cause underneath, not just "fetch failed"
    }
  })
})

describe("AcontextClient.layerConfig", () => {
  const baseUrlWith = (options: Parameters<typeof AcontextClient.layerConfig>[0], env: Map<string, string>) =>
    Effect.map(AcontextClient.AcontextClient, (client) => client.baseUrl).pipe(
      Effect.provide(AcontextClient.layerConfig(options).pipe(Layer.provide(FetchHttpClient.layer))),
      Effect.withConfigProvider(ConfigProvider.fromMap(env))
    )

  it.effect("a field left out comes from the environment; a field given wins", () =>
    Effect.gen(function*() {
      const env = new Map([["ACONTEXT_API_KEY", "sk-ac-env"], ["ACONTEXT_BASE_URL", "http://127.0.0.1:1/env/"]])
      expect(yield* baseUrlWith(undefined, env)).toBe("http://127.0.0.1:1/env")
      expect(yield* baseUrlWith({ apiKey: Config.redacted("ACONTEXT_API_KEY") }, env)).toBe("http://127.0.0.1:1/env")
      expect(yield* baseUrlWith({ baseUrl: Config.succeed("http://127.0.0.1:2/given") }, env))
        .toBe("http://127.0.0.1:2/given")
      // `ACONTEXT_BASE_URL=` (empty, as .env files have it) is unset: the default, not ""
      expect(yield* baseUrlWith(undefined, new Map([["ACONTEXT_API_KEY", "sk-ac-env"], ["ACONTEXT_BASE_URL", ""]])))
        .toBe(AcontextClient.DEFAULT_BASE_URL)
    }))

  it.effect("a blank ACONTEXT_API_KEY is a ConfigError, as Acontext's own client refuses it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(baseUrlWith(undefined, new Map([["ACONTEXT_API_KEY", " "]])))
      expect(String(error)).toContain("API key is empty")
    }))
})

describe("FailureLine.describe", () => {
  const chain = FastCheck.array(FastCheck.string(), { minLength: 1, maxLength: 12 }).map((messages) =>
    messages.reduceRight<unknown>((cause, message) => new Error(message, { cause }), undefined)
  )

  it("is one line, whatever the messages and however deep the causes", () =>
    FastCheck.assert(
      FastCheck.property(
        chain,
        FastCheck.constantFrom("CreateSession" as const, "StoreMessage" as const),
        (cause, reason) => {
          const line = FailureLine.describe(
            new StorageError({ reason, sessionId: null, blob: {}, meta: null, attempts: 1, cause })
          )
          expect(line).not.toMatch(/[\n\r]/)
          expect(line.startsWith(`acx: Failed to store message (session=none): ${reason}`)).toBe(true)
          expect(line.length).toBeLessThanOrEqual(1000)
        }
      )
    ))

  it("a cycle in the causes ends", () => {
    const a = new Error("a")
    const b = new Error("b", { cause: a })
    Object.assign(a, { cause: b })
    expect(FailureLine.causeChain(a)).toBe("a: b")
  })
})
