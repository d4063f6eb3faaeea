/**
 * A pool process for the cross-process tests: an AgentPool on the Postgres database named by
 * ACX_TEST_DATABASE, driven by JSON lines on stdin (`{"id", "key", "prompt"}`), answering one JSON
 * line per turn on stdout (`{"id", "key", "text"}` or `{"id", "key", "error"}`); `{"ready": owner}`
 * first. `{"id", "key", "close": true}` closes the conversation (`AgentPool.close`: its process
 * ends, its lease is released) and answers `{"id", "key"}`. Run with
 * `node --conditions=@acx/source --import tsx`, or plain `node` on its bundle
 * (`@acx/fixtures/workerBundle`, as AgentPool.leases.test.ts runs it).
 */
import { AgentError } from "@acx/agent/AgentError"
import * as AgentPool from "@acx/agent/AgentPool"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as readline from "node:readline"

const config = JSON.parse(process.env["ACX_TEST_POOL"] ?? "{}") as {
  readonly database: string
  readonly owner: string
  readonly cwd: string
  readonly binary: string
  readonly model: string
  readonly env: Record<string, string>
  readonly maxWarm: number
  readonly leaseTtlMs: number
  readonly idleTimeoutMs: number
}

const write = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

const program = Effect.gen(function*() {
  const pool = yield* AgentPool.AgentPool
  write({ ready: pool.owner })
  const lines = readline.createInterface({ input: process.stdin })
  yield* Effect.async<void>((resume) => {
    lines.on("line", (line) => {
      const { close, id, key, prompt } = JSON.parse(line) as {
        id: string
        key: string
        prompt: string
        close?: boolean
      }
      if (close === true) {
        Effect.runFork(pool.close(key).pipe(Effect.tap(() => Effect.sync(() => write({ id, key })))))
        return
      }
      Effect.runFork(
        pool.ask(key, prompt).pipe(
          Effect.map((turn) => ({
            id,
            key,
            text: turn.events.flatMap((event) => (event._tag === "Text" ? [event.text] : [])).join("")
          })),
          Effect.catchAll((error: AgentError) =>
            Effect.succeed({ id, key, error: error.reason, description: error.description })
          ),
          Effect.tap((answer) => Effect.sync(() => write(answer)))
        )
      )
    })
    lines.on("close", () => resume(Effect.void))
  })
})

Effect.runPromise(
  program.pipe(
    Effect.provide(AgentPool.layer({
      owner: config.owner,
      cwd: config.cwd,
      maxWarm: config.maxWarm,
      leaseTtl: config.leaseTtlMs,
      idleTimeout: config.idleTimeoutMs,
      // no pool timer on a wait for a slot or a lease: 40 asks at once queue behind turns as long
      // as the machine makes them (under load the last ones waited past 200 s); the test's
      // timeout bounds the wait
      acquireTimeout: Duration.infinity,
      session: {
        model: config.model,
        env: config.env,
        pathToClaudeCodeExecutable: config.binary,
        allowedTools: ["Bash"]
      }
    })),
    Effect.provide(AgentPool.layerDatabase(config.database))
  )
).then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${error instanceof AgentError ? error.message : String(error)}\n`)
  process.exit(1)
})
