/**
 * One process of the migration race (`MemoryMigrate.test.ts`): told an `$ACX_HOME` on a line of
 * stdin (after the delay the line names), it opens the memory database there the way its mode does — `hook` records a prompt
 * through the real hook function (better-sqlite3, synchronous), `layer` opens the Effect layer
 * the worker and the CLI use and reads through `MemoryRepo` — and answers one line: `ok`, or
 * `fail <why>`. It stays up for the next line, so every round races processes already loaded.
 * `hold` is the process killed mid-migration: it creates the file, applies half of the first
 * migration inside the runner's kind of transaction (`BEGIN IMMEDIATE`), answers `holding` and
 * waits to be killed.
 */
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import * as HookRunner from "../../src/HookRunner.js"
import { migrations } from "../../src/internal/migrations.js"
import * as MemoryConfig from "../../src/MemoryConfig.js"
import * as MemoryRepo from "../../src/MemoryRepo.js"

const mode = process.argv[2]

const openHook = (home: string): string | undefined => {
  const outcome = HookRunner.runHook(
    "UserPromptSubmit",
    JSON.stringify({
      session_id: `race-${process.pid}`,
      transcript_path: "",
      cwd: "/race",
      hook_event_name: "UserPromptSubmit",
      prompt: `prompt of ${process.pid}`
    }),
    { home, env: {} }
  )
  if (outcome.spooled) return `spooled: ${outcome.warning}`
  if (!outcome.recorded) return `not recorded: ${outcome.warning}`
  return undefined
}

const openLayer = (home: string): Promise<string | undefined> =>
  Effect.runPromise(
    Effect.flatMap(MemoryRepo.MemoryRepo, (repo) => repo.projects).pipe(
      Effect.provide(MemoryRepo.layerFile(MemoryConfig.paths(home).database)),
      Effect.match({ onFailure: (error) => error.description, onSuccess: () => undefined })
    )
  )

const holdMidMigration = (home: string): void => {
  fs.mkdirSync(home, { recursive: true })
  const db = new Database(path.join(home, "memory.db"))
  db.pragma("journal_mode = WAL")
  db.exec("BEGIN IMMEDIATE")
  const first = migrations[0]!.statements
  for (const statement of first.slice(0, Math.ceil(first.length / 2))) db.exec(statement)
  process.stdout.write("holding\n")
  setInterval(() => {}, 1_000)
}

const answer = (failure: string | undefined) =>
  process.stdout.write(failure === undefined ? "ok\n" : `fail ${failure.replace(/\s+/g, " ")}\n`)

const lines = readline.createInterface({ input: process.stdin })
lines.on("line", (line) => {
  // `<home> <delay ms>`: the parent staggers the racers so each kind is sometimes first
  const [home = "", delay = "0"] = line.split(" ")
  if (mode === "hold") return holdMidMigration(home)
  const run = async () => {
    await new Promise((resolve) => setTimeout(resolve, Number(delay)))
    try {
      answer(mode === "hook" ? openHook(home) : await openLayer(home))
    } catch (error) {
      answer(`threw ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  void run()
})
process.stdout.write("ready\n")
