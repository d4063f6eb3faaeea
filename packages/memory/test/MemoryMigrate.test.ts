/**
 * The memory's one migration runner, raced by real processes: hooks (better-sqlite3, synchronous)
 * and Effect layers (the worker's, the CLI's) opening the same FRESH file at the same moment,
 * round after round. Every process must succeed (no `SQLITE_BUSY`, no `SQLITE_BUSY_SNAPSHOT`, no
 * spooled hook), every migration must be recorded exactly once, and the schema must be whole
 * (one worker row: the first migration's insert ran once; every hook's prompt stored). A current
 * file is checked with one read and no write.
 */
import { bundleWorker, type WorkerBundle } from "@acx/fixtures/workerBundle"
import Database from "better-sqlite3"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { migrations } from "../src/internal/migrations.js"
import * as Sqlite from "../src/internal/sqlite.js"

const HOOKS = 4
const LAYERS = 3
const ROUNDS = 40

interface Racer {
  readonly mode: "hook" | "layer" | "hold"
  readonly child: ChildProcessWithoutNullStreams
  readonly next: () => Promise<string>
}

// utils/openRace.ts bundled (beforeAll), run by plain Node: through tsx's hooks each of the ten
// starts cost seconds of CPU
let script: WorkerBundle | undefined

const start = (mode: Racer["mode"]): Racer => {
  const child = spawn(process.execPath, [script!.file, mode], {
    cwd: path.resolve(__dirname, ".."),
    stdio: ["pipe", "pipe", "pipe"]
  })
  const waiting: Array<(line: string) => void> = []
  const queued: Array<string> = []
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const resolve = waiting.shift()
    if (resolve === undefined) queued.push(line)
    else resolve(line)
  })
  child.on("exit", (code) => {
    for (const resolve of waiting.splice(0)) resolve(`fail exited with ${code}`)
  })
  const next = () =>
    new Promise<string>((resolve) => {
      const line = queued.shift()
      if (line === undefined) waiting.push(resolve)
      else resolve(line)
    })
  return { mode, child, next }
}

/** Every migration applied once, one worker row, every racing hook's prompt stored. */
const expectMigratedWhole = (home: string) => {
  const db = new Database(path.join(home, "memory.db"), { readonly: true })
  try {
    const applied = db.prepare("SELECT migration_id AS id FROM effect_sql_migrations ORDER BY migration_id")
      .all() as Array<{ id: number }>
    expect(applied.map((row) => row.id)).toEqual(migrations.map((migration) => migration.id))
    expect(db.prepare("SELECT count(*) AS n FROM memory_worker").get()).toEqual({ n: 1 })
    expect(db.prepare("SELECT count(*) AS n FROM memory_prompts").get()).toEqual({ n: HOOKS })
  } finally {
    db.close()
  }
}

describe("the memory's migration runner", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-migrate-"))
  let racers: Array<Racer> = []

  beforeAll(async () => {
    script = await bundleWorker(path.resolve(__dirname, "utils/openRace.ts"))
    racers = [
      ...Array.from({ length: HOOKS }, () => start("hook")),
      ...Array.from({ length: LAYERS }, () => start("layer"))
    ]
    expect(await Promise.all(racers.map((racer) => racer.next()))).toEqual(racers.map(() => "ready"))
  }, 120_000)

  afterAll(() => {
    for (const racer of racers) racer.child.stdin.end()
    fs.rmSync(root, { recursive: true, force: true })
    script?.remove()
  })

  it("applies every migration once when hooks and layers open one fresh file at the same moment", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const home = path.join(root, `round-${round}`)
      // every racer gets its line in the same tick; each opens the file the moment it reads it
      // a layer takes longer to reach its first statement than a hook: delays (0–40 ms, varied
      // by round) let either kind be first
      racers.forEach((racer, index) => {
        const delay = racer.mode === "hook" ? ((round * 7 + index * 13) % 41) : 0
        racer.child.stdin.write(`${home} ${delay}\n`)
      })
      const answers = await Promise.all(racers.map((racer) => racer.next()))
      const failures: Array<string> = []
      answers.forEach((answer, index) => {
        if (answer !== "ok") failures.push(`round ${round}, ${racers[index]!.mode}: ${answer}`)
      })
      expect(failures).toEqual([])
      expectMigratedWhole(home)
    }
  }, 240_000)

  it("a process killed (-9) in the middle of migrating leaves a file the next ones migrate whole", async () => {
    for (let round = 0; round < 3; round++) {
      const home = path.join(root, `killed-${round}`)
      const holder = start("hold")
      expect(await holder.next()).toBe("ready")
      holder.child.stdin.write(`${home} 0\n`)
      expect(await holder.next()).toBe("holding")
      const exited = new Promise((resolve) => holder.child.on("exit", resolve))
      holder.child.kill("SIGKILL")
      await exited
      racers.forEach((racer) => racer.child.stdin.write(`${home} 0\n`))
      expect(await Promise.all(racers.map((racer) => racer.next()))).toEqual(racers.map(() => "ok"))
      expectMigratedWhole(home)
    }
  }, 120_000)

  it("checks a current file with one read and writes nothing", () => {
    const file = path.join(root, "current", "memory.db")
    Sqlite.open(file).close()
    const db = new Database(file)
    try {
      const before = db.pragma("data_version", { simple: true })
      const statements: Array<string> = []
      const traced = new Proxy(db, {
        get: (target, key) => {
          const value = Reflect.get(target, key, target)
          if (key === "prepare" || key === "exec") {
            return (text: string) => {
              statements.push(text)
              return (value as (text: string) => unknown).call(target, text)
            }
          }
          return typeof value === "function" ? value.bind(target) : value
        }
      })
      Sqlite.migrate(traced)
      expect(statements).toHaveLength(1)
      expect(statements[0]).toMatch(/^SELECT/)
      expect(db.pragma("data_version", { simple: true })).toBe(before)
    } finally {
      db.close()
    }
  })
})
