/**
 * The CLI build is atomic for whoever runs the CLI meanwhile: two builds at once while a reader
 * keeps opening the bundle. The reader must never find an entry file missing (what made a CLI
 * test print "acx: not built yet" while `pnpm acx …` rebuilt), nor an entry that imports a chunk
 * not there yet (a partial bundle), and the CLI it spawns meanwhile always starts. An earlier
 * build's files are removed once stale, but never those of the build just replaced.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runWithInput } from "./utils/acx.js"

const cli = fileURLToPath(new URL("..", import.meta.url))
// a dist/ of this file's own, under the package (so the bundle resolves its dependencies as the
// real one does): rebuilding the real dist/ changed its chunks' names under the CLI tests running
// beside this one, which had loaded its acx.mjs in process and imported a chunk later (CI, a
// `Cannot find module …/dist/hub-….mjs`)
const dist = path.join(cli, "build", `test-dist-${process.pid}`)
beforeAll(() => fs.rmSync(dist, { recursive: true, force: true }))
afterAll(() => fs.rmSync(dist, { recursive: true, force: true }))
const ENTRIES = ["acx.mjs", "hook.cjs", "acx-stats-worker.mjs"]

/** What is wrong with dist/ as a reader sees it now: missing entries, or imports of missing chunks. */
const problems = (): Array<string> => {
  const found: Array<string> = []
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    let text: string
    try {
      text = fs.readFileSync(path.join(dist, file), "utf8")
    } catch {
      found.push(`missing ${file}`)
      return
    }
    if (text.length === 0) found.push(`empty ${file}`)
    for (const match of text.matchAll(/["']\.\/([\w.-]+\.mjs)["']/g)) visit(match[1]!)
    // the hook's loader names the bundle it runs
    for (const match of text.matchAll(/["'](hook-main-[\w-]+\.cjs)["']/g)) visit(match[1]!)
  }
  for (const entry of ENTRIES) visit(entry)
  return found
}

const build = () =>
  new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(cli, "build.mjs")], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ACX_CLI_OUT: dist }
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stderr }))
  })

describe("the CLI build", () => {
  /** `acx --version` from this file's dist/. */
  const version = () =>
    new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(dist, "acx.mjs"), "--version"], {
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stderr }))
    })

  it("two builds at once: a reader never sees a missing or partial bundle, the CLI always starts", async () => {
    expect((await build()).code).toBe(0)
    expect(problems()).toEqual([])
    let building = true
    const seen: Array<string> = []
    let checks = 0
    const reader = (async () => {
      while (building) {
        seen.push(...problems())
        checks++
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const runs: Array<{ code: number | null; stderr: string }> = []
    const starter = (async () => {
      while (building) {
        runs.push(await version())
      }
    })()
    const builds = await Promise.all([build(), build()])
    building = false
    await Promise.all([reader, starter])
    for (const result of builds) expect(result.code, result.stderr).toBe(0)
    expect(seen).toEqual([])
    expect(runs.filter((run) => run.code !== 0)).toEqual([])
    // the reader and the CLI really ran while the builds did
    expect(checks).toBeGreaterThan(10)
    expect(runs.length).toBeGreaterThan(0)
    expect(problems()).toEqual([])
    // no staging directory is left behind
    expect(fs.readdirSync(path.join(cli, "build")).filter((name) => name.startsWith("bundle-"))).toEqual([])
  }, 180_000)

  it("keeps the replaced build's files whatever their age; removes older ones once stale", async () => {
    // as if the build now in dist/ had replaced one with `replaced.mjs`, and that one an older
    // one with `older.mjs`, both made 20 minutes ago
    const manifest = path.join(dist, ".build-files.json")
    const current = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { files: Array<string> }).files
    const long = new Date(Date.now() - 20 * 60_000)
    for (const name of ["replaced.mjs", "older.mjs"]) {
      fs.writeFileSync(path.join(dist, name), "export {}\n")
      fs.utimesSync(path.join(dist, name), long, long)
    }
    fs.writeFileSync(manifest, JSON.stringify({ files: [...current, "replaced.mjs"] }))
    expect((await build()).code).toBe(0)
    // a process that opened the replaced build's entry just before the switch still finds its files
    expect(fs.existsSync(path.join(dist, "replaced.mjs"))).toBe(true)
    expect(fs.existsSync(path.join(dist, "older.mjs"))).toBe(false)
    expect((await build()).code).toBe(0)
    expect(fs.existsSync(path.join(dist, "replaced.mjs"))).toBe(false)
    expect(problems()).toEqual([])
  }, 180_000)
})

/**
 * `pnpm acx …` (the root script) builds only when a file the last build read changed: the
 * manifest records every input esbuild reported with its mtime (packages/cli/buildStamp.mjs).
 * Built into a directory of this test's own (ACX_CLI_OUT); the command runs the real dist/.
 */
describe("pnpm acx", () => {
  const out = path.join(cli, "build", `test-stale-${process.pid}`)
  const root = path.join(cli, "..", "..")
  beforeAll(() => fs.rmSync(out, { recursive: true, force: true }))
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }))

  /** `pnpm acx …` from the repository's root (its `acx` script), building into `out`. */
  const pnpmAcx = (args: ReadonlyArray<string>) =>
    runWithInput("pnpm", ["-s", "--dir", root, "acx", ...args], "", { ACX_CLI_OUT: out })

  /** What identifies the build in `out`: its manifest's start time and the entry's mtime. */
  const stamp = () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(out, ".build-files.json"), "utf8")) as {
      startedAt: number
      inputs: Record<string, number>
    }
    return { startedAt: manifest.startedAt, entry: fs.statSync(path.join(out, "acx.mjs")).mtimeMs, manifest }
  }

  const touch = (file: string) => {
    const now = new Date()
    fs.utimesSync(file, now, now)
  }

  it("a second --version does not rebuild; touching a file outside the bundle neither; a source does", async () => {
    const first = await pnpmAcx(["--version"])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/\d+\.\d+\.\d+/)
    const built = stamp()

    const second = await pnpmAcx(["--version"])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toBe(first.stdout)
    expect(stamp().startedAt).toBe(built.startedAt)
    expect(stamp().entry).toBe(built.entry)

    // this test file is no input of the bundle
    touch(fileURLToPath(import.meta.url))
    expect((await pnpmAcx(["--version"])).code).toBe(0)
    expect(stamp().startedAt).toBe(built.startedAt)

    // a workspace package's source the bundle was built from (not the CLI's own)
    const source = Object.keys(built.manifest.inputs).find((input) => input.startsWith("../convert/src/"))
    expect(source).toBeDefined()
    touch(path.join(cli, source!))
    const rebuilt = await pnpmAcx(["--version"])
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    expect(stamp().startedAt).toBeGreaterThan(built.startedAt)
    expect(stamp().entry).toBeGreaterThan(built.entry)
  }, 180_000)
})
