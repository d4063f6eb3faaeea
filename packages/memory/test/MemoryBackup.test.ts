/**
 * MemoryBackup on real files: a backup taken while another process writes is one consistent
 * snapshot, pruning keeps the newest N and nothing else is touched, a restore round trip keeps
 * the replaced database, a live worker or a file that is not a memory database stops a restore
 * with nothing changed, a damaged database names the command that restores the newest backup,
 * and when a backup is due.
 */
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import { type MemoryPaths, paths as memoryPaths } from "@acx/memory/MemoryConfig"
import type { MemoryError } from "@acx/memory/MemoryError"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { LATEST_MIGRATION, open } from "../src/internal/sqlite.js"

const HOUR = 60 * 60 * 1000
const T0 = new Date("2026-03-01T12:00:00Z")
const at = (hours: number): Date => new Date(T0.getTime() + hours * HOUR)

const homes: Array<string> = []
const children: Array<ChildProcess> = []

afterEach(async () => {
  for (const child of children.splice(0)) await stop(child)
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})

const makePaths = (): MemoryPaths => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-backup-"))
  homes.push(home)
  return memoryPaths(home)
}

const run = <A>(effect: Effect.Effect<A, MemoryError>): Promise<A> => Effect.runPromise(effect)

const failure = (effect: Effect.Effect<unknown, MemoryError>): Promise<MemoryError> =>
  Effect.runPromise(Effect.flip(effect))

const INSERT_OBSERVATION = `INSERT INTO memory_observations
  (session_id, project, type, title, narrative, source, created_at)
  VALUES ('s1', '/work/p', 'note', ?, ?, 'local', ?)`

/** Adds `count` observations, each with a narrative of `size` characters. */
const addObservations = (file: string, count: number, label: string, size = 100): void => {
  const db = open(file)
  try {
    const insert = db.prepare(INSERT_OBSERVATION)
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        insert.run(`${label} ${i}`, `${label} narrative ${i} `.padEnd(size, "x"), Date.now())
      }
    })()
  } finally {
    db.close()
  }
}

const withDb = <A>(file: string, body: (db: Database.Database) => A): A => {
  const db = new Database(file, { fileMustExist: true })
  try {
    return body(db)
  } finally {
    db.close()
  }
}

const countObservations = (file: string): number =>
  withDb(file, (db) => (db.prepare("SELECT count(*) AS n FROM memory_observations").get() as { n: number }).n)

const titles = (file: string): Array<string> =>
  withDb(
    file,
    (db) =>
      (db.prepare("SELECT title FROM memory_observations ORDER BY id").all() as Array<{ title: string }>).map((row) =>
        row.title
      )
  )

const setWorker = (file: string, pid: number, heartbeatAt: number): void =>
  withDb(file, (db) => {
    db.prepare("UPDATE memory_worker SET pid = ?, heartbeat_at = ? WHERE id = 1").run(pid, heartbeatAt)
  })

// A second process, so that its writes really run while this process copies the database.
const WRITER = `
const Database = require(process.env.SQLITE_MODULE)
const db = new Database(process.env.DB)
db.pragma("busy_timeout = 5000")
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
const insert = db.prepare(${JSON.stringify(INSERT_OBSERVATION)})
let n = 0
const tick = () => {
  db.transaction(() => {
    for (let i = 0; i < 10; i++) insert.run("writer " + n++, "written while backing up ".repeat(20), Date.now())
  })()
  if (n === 50) process.stdout.write("ready\\n")
  setImmediate(tick)
}
tick()
`

const startWriter = (file: string): Promise<ChildProcess> => {
  const child = spawn(process.execPath, ["-e", WRITER], {
    env: { ...process.env, DB: file, SQLITE_MODULE: createRequire(import.meta.url).resolve("better-sqlite3") },
    stdio: ["ignore", "pipe", "inherit"]
  })
  children.push(child)
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child)
    })
    child.once("exit", (code) => reject(new Error(`the writer exited early (${code})`)))
  })
}

const stop = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => {
      child.once("exit", () => resolve())
      child.kill("SIGKILL")
    })

/** The FTS index must match its table row for row: a torn copy would fail this. */
const ftsIntegrity = (file: string): void =>
  withDb(file, (db) => {
    db.prepare("INSERT INTO memory_observations_fts(memory_observations_fts) VALUES ('integrity-check')").run()
  })

const quickCheck = (file: string): string => withDb(file, (db) => db.pragma("quick_check", { simple: true }) as string)

// A read-only connection to a WAL database creates its (empty) -wal and -shm and cannot remove
// them; they hold nothing, so they are not counted as a change.
const filesOf = (dir: string): Array<string> => fs.readdirSync(dir).filter((name) => !/-(wal|shm)$/.test(name)).sort()

const backupNames = (paths: MemoryPaths): Array<string> => fs.readdirSync(paths.backups).sort()

describe("MemoryBackup.backup", () => {
  it("takes a consistent copy while another process keeps writing", async () => {
    const paths = makePaths()
    addObservations(paths.database, 3000, "seed", 400)
    const writer = await startWriter(paths.database)

    const first = await run(MemoryBackup.backup(paths, { now: at(0) }))
    const second = await run(MemoryBackup.backup(paths, { now: at(1) }))
    // the writer goes on after the copy, so the database has rows the copy must not have (on a
    // loaded machine the writer, starved, had written none more before it was stopped)
    while (countObservations(paths.database) <= countObservations(second.path)) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await stop(writer)

    for (const info of [first, second]) {
      expect(path.dirname(info.path)).toBe(paths.backups)
      expect(info.size).toBe(fs.statSync(info.path).size)
      expect(quickCheck(info.path)).toBe("ok")
      ftsIntegrity(info.path)
      // the seed plus some of the writer's rows, which it wrote before and during the copy
      expect(countObservations(info.path)).toBeGreaterThan(3000)
    }
    expect(path.basename(first.path)).toBe("memory-20260301T120000Z.db")
    expect(first.createdAt).toEqual(at(0))
    expect(countObservations(second.path)).toBeGreaterThanOrEqual(countObservations(first.path))
    // a backup is one self-contained file, never a half-written temporary
    expect(backupNames(paths)).toEqual(["memory-20260301T120000Z.db", "memory-20260301T130000Z.db"])
    expect(countObservations(paths.database)).toBeGreaterThan(countObservations(second.path))
  }, 60_000)

  it("keeps exactly the newest N backups and leaves other files alone", async () => {
    const paths = makePaths()
    addObservations(paths.database, 5, "seed")
    fs.mkdirSync(paths.backups, { recursive: true })
    const unrelated = ["notes.txt", "memory-old.db", "pre-restore-20200101T000000Z.db", "memory-20200101T000000Z.db.gz"]
    for (const name of unrelated) fs.writeFileSync(path.join(paths.backups, name), "keep me")

    for (let day = 0; day < 6; day++) await run(MemoryBackup.backup(paths, { keep: 3, now: at(24 * day) }))

    const listed = await run(MemoryBackup.list(paths))
    expect(listed.map((info) => path.basename(info.path))).toEqual([
      "memory-20260306T120000Z.db",
      "memory-20260305T120000Z.db",
      "memory-20260304T120000Z.db"
    ])
    expect(listed.map((info) => info.createdAt)).toEqual([at(120), at(96), at(72)])
    for (const name of unrelated) expect(fs.readFileSync(path.join(paths.backups, name), "utf8")).toBe("keep me")
    expect(backupNames(paths)).toHaveLength(unrelated.length + 3)
  })

  it("keeps 7 by default and refuses a keep that is not a positive whole number", async () => {
    const paths = makePaths()
    addObservations(paths.database, 1, "seed")
    for (let day = 0; day < 9; day++) await run(MemoryBackup.backup(paths, { now: at(24 * day) }))
    expect(await run(MemoryBackup.list(paths))).toHaveLength(7)

    const error = await failure(MemoryBackup.backup(paths, { keep: 0, now: at(500) }))
    expect(error.reason).toBe("InvalidArgument")
    expect(await run(MemoryBackup.list(paths))).toHaveLength(7)
  })

  it("fails with NotFound when there is no database, and lists nothing without a backup directory", async () => {
    const paths = makePaths()
    expect((await failure(MemoryBackup.backup(paths))).reason).toBe("NotFound")
    expect(await run(MemoryBackup.list(paths))).toEqual([])
  })
})

describe("MemoryBackup.isDue", () => {
  it("is due with no backup, not within 24 h of the newest, due again after", async () => {
    const paths = makePaths()
    expect(await Effect.runPromise(MemoryBackup.isDue(paths, at(0)))).toBe(false)
    expect(Option.isNone(await run(MemoryBackup.backupIfDue(paths, { now: at(0) })))).toBe(true)

    addObservations(paths.database, 1, "seed")
    expect(await Effect.runPromise(MemoryBackup.isDue(paths, at(0)))).toBe(true)
    const taken = await run(MemoryBackup.backupIfDue(paths, { now: at(0) }))
    expect(Option.map(taken, (info) => path.basename(info.path))).toEqual(Option.some("memory-20260301T120000Z.db"))

    expect(await Effect.runPromise(MemoryBackup.isDue(paths, at(23.9)))).toBe(false)
    expect(Option.isNone(await run(MemoryBackup.backupIfDue(paths, { now: at(23.9) })))).toBe(true)
    expect(await Effect.runPromise(MemoryBackup.isDue(paths, at(24)))).toBe(true)
    expect(Option.isSome(await run(MemoryBackup.backupIfDue(paths, { now: at(25) })))).toBe(true)
    expect(await run(MemoryBackup.list(paths))).toHaveLength(2)
    // a clock set back by days does not stop the backups
    expect(await Effect.runPromise(MemoryBackup.isDue(paths, at(-72)))).toBe(true)
  })
})

describe("MemoryBackup.restore", () => {
  it("round trip: later rows are gone after the restore, and the replaced database is kept", async () => {
    const paths = makePaths()
    addObservations(paths.database, 3, "before")
    const taken = await run(MemoryBackup.backup(paths, { now: at(0) }))
    addObservations(paths.database, 2, "after")
    expect(countObservations(paths.database)).toBe(5)

    const restored = await run(MemoryBackup.restore(paths, taken.path, { now: at(1) }))

    expect(restored.database).toBe(paths.database)
    expect(restored.restored).toBe(taken.path)
    expect(restored.previous).toBe(path.join(paths.backups, "pre-restore-20260301T130000Z.db"))
    expect(titles(paths.database)).toEqual(["before 0", "before 1", "before 2"])
    expect(titles(restored.previous!)).toEqual(["before 0", "before 1", "before 2", "after 0", "after 1"])
    expect(quickCheck(restored.previous!)).toBe("ok")
    // migrated to the current schema, back in WAL mode, and the backup itself untouched
    withDb(paths.database, (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
      const row = db.prepare("SELECT max(migration_id) AS id FROM effect_sql_migrations").get() as { id: number }
      expect(row.id).toBe(LATEST_MIGRATION)
    })
    expect(countObservations(taken.path)).toBe(3)
    // the kept copy is not a `memory-*.db` backup, so pruning never deletes it
    expect((await run(MemoryBackup.list(paths))).map((info) => info.path)).toEqual([taken.path])

    // a second restore in the same second keeps the database it replaces under its own name
    const again = await run(MemoryBackup.restore(paths, restored.previous!, { now: at(1) }))
    expect(again.previous).toBe(path.join(paths.backups, "pre-restore-20260301T130000Z-2.db"))
    expect(countObservations(paths.database)).toBe(5)
    expect(countObservations(restored.previous!)).toBe(5)
    expect(countObservations(again.previous!)).toBe(3)
  })

  it("is refused while a live worker is recorded, and goes ahead once its heartbeat is stale", async () => {
    const paths = makePaths()
    addObservations(paths.database, 3, "before")
    const taken = await run(MemoryBackup.backup(paths, { now: at(0) }))
    addObservations(paths.database, 2, "after")
    setWorker(paths.database, process.pid, Date.now())

    const error = await failure(MemoryBackup.restore(paths, taken.path))
    expect(error.reason).toBe("WorkerRunning")
    expect(error.description).toContain(String(process.pid))
    expect(countObservations(paths.database)).toBe(5)
    expect(backupNames(paths)).toEqual([path.basename(taken.path)])

    setWorker(paths.database, process.pid, Date.now() - 10 * 60_000)
    await run(MemoryBackup.restore(paths, taken.path))
    expect(countObservations(paths.database)).toBe(3)
  })

  it("refuses a file that is not a memory database, or none at all, and changes nothing", async () => {
    const paths = makePaths()
    addObservations(paths.database, 4, "current")
    await run(MemoryBackup.backup(paths, { now: at(0) }))
    const before = fs.readFileSync(paths.database)
    const backupsBefore = backupNames(paths)
    const homeBefore = filesOf(paths.home)

    const text = path.join(paths.home, "notes.txt")
    fs.writeFileSync(text, "this is not a database\n".repeat(200))
    const otherDb = path.join(paths.home, "other.db")
    const other = new Database(otherDb)
    other.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
    other.close()
    const expectedHome = [...homeBefore, "notes.txt", "other.db"].sort()

    for (const file of [text, otherDb]) {
      const error = await failure(MemoryBackup.restore(paths, file))
      expect(error.reason).toBe("InvalidArgument")
      expect(error.description).toContain(file)
    }
    const missing = await failure(MemoryBackup.restore(paths, path.join(paths.home, "nope.db")))
    expect(missing.reason).toBe("NotFound")
    const itself = await failure(MemoryBackup.restore(paths, paths.database))
    expect(itself.reason).toBe("InvalidArgument")

    expect(fs.readFileSync(paths.database).equals(before)).toBe(true)
    expect(countObservations(paths.database)).toBe(4)
    expect(backupNames(paths)).toEqual(backupsBefore)
    expect(filesOf(paths.home)).toEqual(expectedHome)
  })

  it("restores into a home without a database, with nothing to keep", async () => {
    const paths = makePaths()
    addObservations(paths.database, 2, "elsewhere")
    const taken = await run(MemoryBackup.backup(paths, { now: at(0) }))
    const fresh = makePaths()

    const restored = await run(MemoryBackup.restore(fresh, taken.path))

    expect(restored.previous).toBeUndefined()
    expect(titles(fresh.database)).toEqual(["elsewhere 0", "elsewhere 1"])
  })

  it("restores over a damaged database, keeping its bytes", async () => {
    const paths = makePaths()
    addObservations(paths.database, 3, "before")
    const taken = await run(MemoryBackup.backup(paths, { now: at(0) }))
    const garbage = Buffer.alloc(8192, 0x5a)
    fs.writeFileSync(paths.database, garbage)

    const restored = await run(MemoryBackup.restore(paths, taken.path, { now: at(2) }))

    expect(countObservations(paths.database)).toBe(3)
    expect(fs.readFileSync(restored.previous!).equals(garbage)).toBe(true)
  })
})

describe("MemoryBackup.check", () => {
  const corruptMiddle = (file: string): void => {
    const size = fs.statSync(file).size
    const fd = fs.openSync(file, "r+")
    try {
      fs.writeSync(fd, Buffer.alloc(64 * 1024, 0xa5), 0, 64 * 1024, Math.floor(size / 2 / 4096) * 4096)
    } finally {
      fs.closeSync(fd)
    }
  }

  it("passes a sound database and a missing one", async () => {
    const paths = makePaths()
    await run(MemoryBackup.check(paths))
    addObservations(paths.database, 10, "seed")
    await run(MemoryBackup.check(paths))
  })

  it("reports a damaged middle as Corrupt, naming the command that restores the newest backup", async () => {
    const paths = makePaths()
    addObservations(paths.database, 2000, "seed", 500)
    await run(MemoryBackup.backup(paths, { now: at(0) }))
    const newest = await run(MemoryBackup.backup(paths, { now: at(24) }))
    expect(fs.statSync(paths.database).size).toBeGreaterThan(512 * 1024)
    corruptMiddle(paths.database)

    const error = await failure(MemoryBackup.check(paths))
    expect(error.reason).toBe("Corrupt")
    expect(error.description).toContain(paths.database)
    expect(error.description).toContain(`acx memory restore ${newest.path}`)
  })

  it("reports a file of garbage as Corrupt, and says when there is no backup yet", async () => {
    const paths = makePaths()
    fs.writeFileSync(paths.database, Buffer.alloc(16 * 1024, 0x42))

    const error = await failure(MemoryBackup.check(paths))
    expect(error.reason).toBe("Corrupt")
    expect(error.description).toContain("not a database")
    expect(error.description).toContain("no backup yet")
    expect(error.description).not.toContain("acx memory restore")
  })

  it("reports a truncated database as Corrupt", async () => {
    const paths = makePaths()
    addObservations(paths.database, 2000, "seed", 500)
    const newest = await run(MemoryBackup.backup(paths, { now: at(0) }))
    fs.truncateSync(paths.database, Math.floor(fs.statSync(paths.database).size / 2))

    const error = await failure(MemoryBackup.check(paths))
    expect(error.reason).toBe("Corrupt")
    expect(error.description).toContain(`acx memory restore ${newest.path}`)
  })
})
