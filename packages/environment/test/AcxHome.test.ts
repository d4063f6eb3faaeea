/**
 * `AcxHome`: the home made (or tightened) to 0700; files made, tightened and written 0600,
 * SQLite's companions included (the memory's tests open a real database on it); a write is
 * atomic and leaves no temporary file.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

const makeRoot = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-home-"))
  roots.push(root)
  return root
}

const mode = (file: string) => fs.statSync(file).mode & 0o777

describe("AcxHome", () => {
  it("acxHome: ACX_HOME resolved, else ~/.acx", () => {
    expect(AcxHome.acxHome({ ACX_HOME: "rel/home" })).toBe(path.resolve("rel/home"))
    expect(AcxHome.acxHome({ ACX_HOME: "" })).toBe(path.join(os.homedir(), ".acx"))
  })

  it("paths: every file and directory acx keeps, named under the home given", () => {
    const home = "/srv/acx"
    expect(AcxHome.paths(home)).toEqual({
      home,
      cache: "/srv/acx/cache",
      pricing: "/srv/acx/pricing.json",
      agentDatabase: "/srv/acx/agent.db",
      config: "/srv/acx/config.json",
      memoryDatabase: "/srv/acx/memory.db",
      backups: "/srv/acx/backups",
      memorySpool: "/srv/acx/memory-spool",
      observerConfigDir: "/srv/acx/observer/claude",
      observerCwd: "/srv/acx/observer/work",
      memoryWorkerLog: "/srv/acx/memory-worker.log",
      memoryInstallManifest: "/srv/acx/memory-install.json",
      sessionsDatabase: "/srv/acx/sessions.db",
      syncLocks: "/srv/acx/sync",
      syncInstallManifest: "/srv/acx/sync-install.json",
      syncLog: "/srv/acx/sync.log",
      statuslineInstallManifest: "/srv/acx/statusline-install.json",
      quotaReadings: "/srv/acx/quota/readings.jsonl"
    })
    const paths = AcxHome.paths(home)
    for (const [name, file] of Object.entries(paths)) {
      expect(file === home || file.startsWith(`${home}/`), name).toBe(true)
    }
  })

  it("makeHome creates the home and its parents 0700, and tightens one an older acx left 0755", () => {
    const root = makeRoot()
    const fresh = path.join(root, "a", "b", "acx")
    AcxHome.makeHome(fresh)
    expect(mode(fresh)).toBe(0o700)
    expect(mode(path.join(root, "a"))).toBe(0o700)
    const old = path.join(root, "old")
    fs.mkdirSync(old, { mode: 0o755 })
    fs.chmodSync(old, 0o755)
    AcxHome.makeHome(old)
    expect(mode(old)).toBe(0o700)
  })

  it("preparePrivateFile creates an empty file 0600 and its directory 0700", () => {
    const root = makeRoot()
    const file = path.join(root, "home", "memory.db")
    AcxHome.preparePrivateFile(file)
    expect(mode(file)).toBe(0o600)
    expect(mode(path.dirname(file))).toBe(0o700)
    expect(fs.statSync(file).size).toBe(0)
  })

  it("preparePrivateFile tightens an existing file and its companions, keeping their bytes", () => {
    const root = makeRoot()
    const file = path.join(root, "memory.db")
    for (const name of [file, `${file}-wal`, `${file}-shm`]) {
      fs.writeFileSync(name, "kept")
      fs.chmodSync(name, 0o644)
    }
    AcxHome.preparePrivateFile(file)
    for (const name of [file, `${file}-wal`, `${file}-shm`]) {
      expect(mode(name), name).toBe(0o600)
      expect(fs.readFileSync(name, "utf8")).toBe("kept")
    }
    AcxHome.tightenPrivateFile(path.join(root, "absent.db"))
    expect(fs.existsSync(path.join(root, "absent.db"))).toBe(false)
  })

  it("writePrivateFile replaces a file atomically, 0600, leaving no temporary file", () => {
    const root = makeRoot()
    const file = path.join(root, "cache", "stats.json")
    AcxHome.writePrivateFile(file, "one")
    fs.chmodSync(file, 0o644)
    AcxHome.writePrivateFile(file, "two")
    expect(fs.readFileSync(file, "utf8")).toBe("two")
    expect(mode(file)).toBe(0o600)
    expect(mode(path.dirname(file))).toBe(0o700)
    expect(fs.readdirSync(path.dirname(file))).toEqual(["stats.json"])
  })

  it("writePrivateFileParts writes text and bytes in order, never joined; a failing part leaves the old file", () => {
    const root = makeRoot()
    const file = path.join(root, "cache", "stats.json")
    AcxHome.writePrivateFile(file, "old")
    // a part over the 1 MB a write gathers, multi-byte characters across parts, bytes between
    const big = "é".repeat(700_000)
    AcxHome.writePrivateFileParts(file, ["{", big, "\u{1F600}", Buffer.from("x"), big, "}"])
    expect(fs.readFileSync(file, "utf8")).toBe(`{${big}\u{1F600}x${big}}`)
    expect(mode(file)).toBe(0o600)
    function* failing(): Generator<string> {
      yield "new"
      throw new Error("no more parts")
    }
    expect(() => AcxHome.writePrivateFileParts(file, failing())).toThrow("no more parts")
    expect(fs.readFileSync(file, "utf8")).toBe(`{${big}\u{1F600}x${big}}`)
    expect(fs.readdirSync(path.dirname(file))).toEqual(["stats.json"])
  })

  it("openPrivateAppend appends to a log 0600, tightening an old one", () => {
    const root = makeRoot()
    const log = path.join(root, "worker.log")
    fs.writeFileSync(log, "old\n")
    fs.chmodSync(log, 0o644)
    const fd = AcxHome.openPrivateAppend(log)
    fs.writeSync(fd, "new\n")
    fs.closeSync(fd)
    expect(fs.readFileSync(log, "utf8")).toBe("old\nnew\n")
    expect(mode(log)).toBe(0o600)
  })

  it("openPrivateAppend rotates a log over its cap to <log>.1, keeping at most two", () => {
    const root = makeRoot()
    const log = path.join(root, "sync.log")
    const append = (text: string) => {
      const fd = AcxHome.openPrivateAppend(log, 10)
      fs.writeSync(fd, text)
      fs.closeSync(fd)
    }
    append("0123456789")
    append("a\n")
    expect(fs.readFileSync(log, "utf8")).toBe("0123456789a\n")
    expect(fs.existsSync(`${log}.1`)).toBe(false)
    append("b\n")
    expect(fs.readFileSync(`${log}.1`, "utf8")).toBe("0123456789a\n")
    expect(fs.readFileSync(log, "utf8")).toBe("b\n")
    expect(mode(log)).toBe(0o600)
    append("c".repeat(20))
    append("d")
    expect(fs.readFileSync(`${log}.1`, "utf8")).toBe(`b\n${"c".repeat(20)}`)
    expect(fs.readFileSync(log, "utf8")).toBe("d")
    expect(fs.readdirSync(root).sort()).toEqual(["sync.log", "sync.log.1"])
    expect(AcxHome.LOG_MAX_BYTES).toBe(1024 * 1024)
  })
})
