/**
 * The hook Claude Code runs on every tool call, as `acx memory install` writes it (real processes,
 * the built bundle): the command is this Node and `dist/hook.cjs`, run directly through a shell
 * as Claude Code runs it, and it records the event; on the hot path (a live worker, a tool event)
 * it loads none of the Node modules that made a hook slow to start (the ES module loader, the
 * socket and stream modules `process.stdin` on a pipe needs, `node:child_process`,
 * `fs/promises`); `acx hook <Event>` through the bin records the same way; an install over an
 * earlier one whose command was the bin's replaces those hooks, so no event runs two.
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { acx, BIN, runWithInput, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeTreeWhenIdle, waitFor } from "./utils/memory.js"

const HOOK_BUNDLE = fileURLToPath(new URL("../dist/hook.cjs", import.meta.url))
const EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"]

const roots: Array<string> = []
afterEach(() => Promise.all(roots.splice(0).map((root) => removeTreeWhenIdle(root))), 70_000)

const makeRoot = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-hookpath-"))
  roots.push(root)
  const home = path.join(root, "home")
  const acxHome = path.join(root, "acx")
  const project = path.join(root, "project")
  for (const dir of [home, acxHome, project]) fs.mkdirSync(dir)
  // a worker started by a hook exits at once: this test is about the hook alone
  const noWorker = path.join(root, "no-worker.mjs")
  fs.writeFileSync(noWorker, "process.exit(0)\n")
  return { root, home, acxHome, project, env: { ACX_HOME: acxHome, ACX_MEMORY_WORKER_BIN: noWorker } }
}

type World = ReturnType<typeof makeRoot>

const toolEvent = (world: World, toolUseId: string) =>
  JSON.stringify({
    session_id: "hookpath-session",
    transcript_path: path.join(world.root, "transcript.jsonl"),
    cwd: world.project,
    hook_event_name: "PostToolUse",
    tool_name: "Read",
    tool_input: { file_path: path.join(world.project, "a.ts") },
    tool_response: { type: "text", file: { filePath: path.join(world.project, "a.ts"), content: "export {}\n" } },
    tool_use_id: toolUseId
  })

/** Runs `command` through `sh -c` (as Claude Code runs a hook command) with `input` on stdin. */
const shell = (command: string, input: string, env: Record<string, string>) =>
  runWithInput("sh", ["-c", command], input, env)

/** The recorded events' tool names and payloads, in order. */
const events = (world: World): Array<{ readonly tool: string; readonly payload: string }> => {
  const db = new Database(path.join(world.acxHome, "memory.db"), { readonly: true })
  try {
    return db.prepare("SELECT tool_name AS tool, payload FROM memory_events ORDER BY id").all() as Array<
      { tool: string; payload: string }
    >
  } finally {
    db.close()
  }
}

/** The worker row says this test process is a live worker: no hook starts one. */
const liveWorker = (world: World) => {
  const db = new Database(path.join(world.acxHome, "memory.db"))
  try {
    db.prepare("UPDATE memory_worker SET pid = ?, started_at = ?, heartbeat_at = ? WHERE id = 1")
      .run(process.pid, Date.now(), Date.now())
  } finally {
    db.close()
  }
}

const settingsHooks = (world: World): Record<string, Array<string>> => {
  const settings = JSON.parse(fs.readFileSync(path.join(world.home, ".claude", "settings.json"), "utf8")) as {
    hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
  }
  return Object.fromEntries(
    Object.entries(settings.hooks).map((
      [event, groups]
    ) => [event, groups.flatMap((group) => group.hooks.map((hook) => hook.command))])
  )
}

const install = (world: World) =>
  acx(["memory", "install"], { env: { ...world.env, HOME: world.home, CLAUDE_CONFIG_DIR: undefined } })

describe("the hook command acx memory install writes", () => {
  it("is this Node and dist/hook.cjs, run directly; through a shell it records the event", async () => {
    const world = makeRoot()
    const installed = await install(world)
    expect(installed.code, installed.stderr).toBe(0)
    const hooks = settingsHooks(world)
    for (const event of EVENTS) {
      expect(hooks[event]).toEqual([`"${process.execPath}" "${HOOK_BUNDLE}" ${event}`])
    }
    const run = await shell(hooks["PostToolUse"]![0]!, toolEvent(world, "toolu_hookpath_1"), world.env)
    expect(run).toMatchObject({ code: 0, stderr: "" })
    expect(JSON.parse(run.stdout)).toEqual({ continue: true, suppressOutput: true })
    expect(events(world)).toEqual([{ tool: "Read", payload: expect.stringContaining("a.ts") }])
  }, TEST_TIMEOUT_MS)

  it("on the hot path loads no ES module, socket, stream, child_process or fs/promises module", async () => {
    const world = makeRoot()
    // the first call creates the database
    const first = await shell(
      `"${process.execPath}" "${HOOK_BUNDLE}" PostToolUse`,
      toolEvent(world, "toolu_a"),
      world.env
    )
    expect(first.code).toBe(0)
    liveWorker(world)
    const loaded = path.join(world.root, "modules.txt")
    // the bundle run from a CommonJS script that writes down what the process loaded (a `-r`
    // preload would itself start the ES module loader)
    const runner = path.join(world.root, "run-hook.cjs")
    fs.writeFileSync(
      runner,
      `process.on("exit", () => require("node:fs").writeFileSync(${
        JSON.stringify(loaded)
      }, process.moduleLoadList.join("\\n")))\nrequire(${JSON.stringify(HOOK_BUNDLE)})\n`
    )
    const run = await shell(`"${process.execPath}" "${runner}" PostToolUse`, toolEvent(world, "toolu_b"), world.env)
    expect(run).toMatchObject({ code: 0, stderr: "" })
    expect(events(world)).toHaveLength(2)
    const modules = fs.readFileSync(loaded, "utf8").split("\n")
    const heavy = modules.filter((name) =>
      /^NativeModule (net|child_process|stream|readline|internal\/fs\/promises|internal\/modules\/esm\/(module_job|translators))$/
        .test(name)
    )
    expect(heavy).toEqual([])
  }, TEST_TIMEOUT_MS)

  it(
    "runs the hook's code from V8's code cache: written once, owner-only, per bundle and Node; a damaged one is replaced",
    async () => {
      const world = makeRoot()
      const cacheDir = path.join(world.acxHome, "cache")
      const cacheFiles = () =>
        fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((name) => name.endsWith(".v8")) : []
      const run = (id: string) =>
        shell(`"${process.execPath}" "${HOOK_BUNDLE}" PostToolUse`, toolEvent(world, id), world.env)

      expect(await run("toolu_cache_1")).toMatchObject({ code: 0, stderr: "" })
      const written = cacheFiles()
      expect(written).toHaveLength(1)
      expect(written[0]).toMatch(new RegExp(`^hook-main-\\w+-${process.version}-${process.arch}\\.v8$`))
      const cache = path.join(cacheDir, written[0]!)
      expect(fs.statSync(cache).mode & 0o777).toBe(0o600)
      const bytes = fs.readFileSync(cache)
      const mtime = fs.statSync(cache).mtimeMs

      // accepted: the next hook reads it and writes nothing
      expect(await run("toolu_cache_2")).toMatchObject({ code: 0, stderr: "" })
      expect(fs.statSync(cache).mtimeMs).toBe(mtime)
      expect(fs.readFileSync(cache).equals(bytes)).toBe(true)

      // damaged (same size, other bytes): V8 rejects it, the hook records all the same, and a good
      // cache takes its place
      fs.writeFileSync(cache, Buffer.alloc(bytes.length, 7))
      expect(await run("toolu_cache_3")).toMatchObject({ code: 0, stderr: "" })
      expect(fs.readFileSync(cache).equals(Buffer.alloc(bytes.length, 7))).toBe(false)
      expect(events(world)).toHaveLength(3)
      expect(cacheFiles()).toEqual(written)
    },
    TEST_TIMEOUT_MS
  )

  it(
    "started directly, a hook that queues work starts the worker (the acx bin beside it), which records and exits",
    async () => {
      const world = makeRoot()
      // the real worker this time, in local mode (no model), exiting soon after it is idle
      const env = { ACX_HOME: world.acxHome }
      fs.writeFileSync(
        path.join(world.acxHome, "config.json"),
        JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02 } })
      )
      const run = await shell(
        `"${process.execPath}" "${HOOK_BUNDLE}" PostToolUse`,
        toolEvent(world, "toolu_worker"),
        env
      )
      expect(run).toMatchObject({ code: 0, stderr: "" })
      const log = path.join(world.acxHome, "memory-worker.log")
      await waitFor("the worker to record the event and stop", () => {
        const db = new Database(path.join(world.acxHome, "memory.db"), { readonly: true })
        try {
          const pending = (db.prepare("SELECT count(*) AS n FROM memory_events WHERE state != 'done'").get() as {
            n: number
          }).n
          return pending === 0 && fs.existsSync(log) && /acx memory worker: done/.test(fs.readFileSync(log, "utf8"))
        } finally {
          db.close()
        }
      })
      expect(fs.readFileSync(log, "utf8")).toMatch(/acx memory worker: done \(\d+ batch(es)?, 1 events?\)/)
    },
    TEST_TIMEOUT_MS
  )

  it("acx hook <Event> through the bin records the same way", async () => {
    const world = makeRoot()
    const run = await shell(`"${process.execPath}" "${BIN}" hook PostToolUse`, toolEvent(world, "toolu_bin"), world.env)
    expect(run).toMatchObject({ code: 0, stderr: "" })
    expect(events(world)).toEqual([{ tool: "Read", payload: expect.stringContaining("a.ts") }])
  }, TEST_TIMEOUT_MS)

  it("replaces the hooks an earlier install wrote with the bin's command: one acx hook per event", async () => {
    const world = makeRoot()
    // what an earlier acx wrote: its hooks in settings.json, and its record of them
    const settingsFile = path.join(world.home, ".claude", "settings.json")
    const old = (event: string) => `"${process.execPath}" "${BIN}" hook ${event}`
    fs.mkdirSync(path.dirname(settingsFile))
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        hooks: {
          ...Object.fromEntries(
            EVENTS.map((event) => [event, [{ hooks: [{ type: "command", command: old(event) }] }]])
          ),
          // the user's own hook stays
          Stop: [{ hooks: [{ type: "command", command: old("Stop") }] }, {
            hooks: [{ type: "command", command: "say done" }]
          }]
        }
      })
    )
    fs.writeFileSync(
      path.join(world.acxHome, "memory-install.json"),
      JSON.stringify({
        version: 1,
        entries: EVENTS.map((event) => ({
          scope: "user",
          file: settingsFile,
          kind: "hook",
          event,
          command: old(event)
        })),
        createdFiles: []
      })
    )
    const installed = await install(world)
    expect(installed.code, installed.stderr).toBe(0)
    const hooks = settingsHooks(world)
    for (const event of EVENTS) {
      const expected = [`"${process.execPath}" "${HOOK_BUNDLE}" ${event}`]
      expect(hooks[event]).toEqual(event === "Stop" ? ["say done", ...expected] : expected)
    }
    // and uninstall removes the new hooks, leaving the user's
    const removed = await acx(["memory", "uninstall"], { env: { ...world.env, HOME: world.home } })
    expect(removed.code, removed.stderr).toBe(0)
    expect(settingsHooks(world)).toEqual({ Stop: ["say done"] })
  }, TEST_TIMEOUT_MS)
})
