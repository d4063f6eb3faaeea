/**
 * `acx sync install` / `uninstall` and the sync hook, through the BUILT binary:
 * - install adds Stop, SessionEnd and PreCompact hooks running `dist/sync-hook.cjs` beside the
 *   user's own hooks and the memory's (a backup first); twice changes nothing; uninstall removes
 *   exactly what it added (the memory's hooks stay: each install has its own manifest); twice
 *   says there is nothing to remove; a bad `--to`, or one holding a password, changes nothing;
 * - the hook reads its stdin, starts `acx sync --background` detached and exits 0, also on
 *   garbage input; with the target's lock held the sync it started marks the holder and exits;
 * - on the REAL Claude Code CLI (against the model double): a session run with the installed
 *   hooks ends up in the store, entry for entry.
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, BIN, parseableLines } from "./utils/acx.js"
import { processesUnder, removeTreeWhenIdle, waitFor } from "./utils/memory.js"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const TIMEOUT = 180_000
const SYNC_HOOK = path.resolve(path.dirname(BIN), "../dist/sync-hook.cjs")
const SYNC_EVENTS = ["Stop", "SessionEnd", "PreCompact"]

const roots: Array<string> = []
afterAll(async () => {
  await Promise.all(roots.map((root) => removeTreeWhenIdle(root)))
}, 70_000)

const sandbox = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-sync-install-"))
  roots.push(root)
  const home = path.join(root, "home")
  const acxHome = path.join(home, ".acx")
  fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
  return { root, home, acxHome, settings: path.join(home, ".claude", "settings.json") }
}

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  expect(result.stderr).toBe("")
  return result
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

const commandsOf = (settings: any, event: string): Array<string> =>
  (settings.hooks?.[event] ?? []).flatMap((group: any) => group.hooks.map((hook: any) => hook.command))

/**
 * Runs the sync hook as Claude Code does: its stdin, its environment. `keepOpen`: the input is
 * written and the pipe left open (a writer that never closes it).
 */
const runHook = (args: ReadonlyArray<string>, stdin: string, env: Record<string, string>, keepOpen = false) =>
  new Promise<{ code: number | null; stdout: string; millis: number }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [SYNC_HOOK, ...args], { env, stdio: ["pipe", "pipe", "inherit"] })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => {
      child.stdin.destroy()
      resolve({ code, stdout, millis: performance.now() - started })
    })
    if (keepOpen) child.stdin.write(stdin)
    else child.stdin.end(stdin)
  })

describe("acx sync install / uninstall", () => {
  it("adds the three hooks beside the user's and the memory's; twice changes nothing; uninstall removes exactly them", {
    timeout: TIMEOUT
  }, async () => {
    const box = sandbox()
    const own = { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo mine" }] }] }, model: "opus" }
    fs.writeFileSync(box.settings, JSON.stringify(own, null, 2))
    const env = { HOME: box.home, ACX_HOME: box.acxHome }
    ok(await acx(["memory", "install"], { env }))
    const withMemory = readJson(box.settings)

    const installed = ok(await acx(["sync", "install"], { env }))
    expect(installed.stdout).toContain(`${box.settings}: updated (backup: `)
    const settings = readJson(box.settings)
    for (const event of SYNC_EVENTS) {
      const synced = commandsOf(settings, event).filter((command) => command.includes("sync-hook.cjs"))
      expect(synced, event).toEqual([`"${process.execPath}" "${SYNC_HOOK}"`])
    }
    expect(commandsOf(settings, "Stop")).toContain("echo mine")
    expect(commandsOf(settings, "Stop")).toEqual(expect.arrayContaining(commandsOf(withMemory, "Stop")))
    expect(settings.model).toBe("opus")
    const manifest = readJson(path.join(box.acxHome, "sync-install.json"))
    expect(manifest.entries.map((entry: any) => entry.event).sort()).toEqual([...SYNC_EVENTS].sort())

    // twice: nothing written, no backup taken
    const backups = () => fs.readdirSync(path.dirname(box.settings)).filter((name) => name.includes(".acx-backup-"))
    const before = { text: fs.readFileSync(box.settings, "utf8"), backups: backups() }
    expect(ok(await acx(["sync", "install"], { env })).stdout).toContain(`${box.settings}: unchanged`)
    expect({ text: fs.readFileSync(box.settings, "utf8"), backups: backups() }).toEqual(before)

    // a bad --to: one line, nothing changed
    const bad = await acx(["sync", "install", "--to", "mysql://x"], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderrLines).toHaveLength(1)
    expect(fs.readFileSync(box.settings, "utf8")).toBe(before.text)
    // a password would be written into settings.json (a project's may be committed): refused, not echoed
    for (const spec of ["postgres://acx:Pw-S3cretQ@db.example/acx", "postgres://acx@db/acx?password=Pw-S3cretQ"]) {
      const secret = await acx(["sync", "install", "--to", spec], { env })
      expect(secret.code, spec).toBe(2)
      expect(secret.stderrLines, spec).toHaveLength(1)
      expect(secret.stderr).toContain("~/.pgpass")
      expect(secret.stderr + secret.stdout).not.toContain("Pw-S3cretQ")
      expect(fs.readFileSync(box.settings, "utf8")).toBe(before.text)
    }

    // uninstall: exactly what sync install added; the memory's hooks and the user's stay
    ok(await acx(["sync", "uninstall"], { env }))
    expect(readJson(box.settings)).toEqual(withMemory)
    expect(readJson(path.join(box.acxHome, "memory-install.json")).entries.length).toBeGreaterThan(0)
    const twice = ok(await acx(["sync", "uninstall"], { env }))
    expect(twice.stdout.trim()).toBe("nothing to uninstall: no sync install recorded")
    expect(readJson(box.settings)).toEqual(withMemory)

    // --to is passed on to the sync the hook starts
    const target = `sqlite:${path.join(box.root, "store.db")}`
    ok(await acx(["sync", "install", "--to", target], { env }))
    expect(commandsOf(readJson(box.settings), "Stop")).toContain(
      `"${process.execPath}" "${SYNC_HOOK}" --to "${target}"`
    )
  })

  it(
    "the hook starts the sync detached and returns; the sync defers to a held lock",
    { timeout: TIMEOUT },
    async () => {
      const box = sandbox()
      const configDir = path.join(box.home, ".claude")
      const sessionId = "66666666-6666-4666-8666-666666666666"
      const transcript = path.join(configDir, "projects", "-p", `${sessionId}.jsonl`)
      fs.mkdirSync(path.dirname(transcript), { recursive: true })
      fs.writeFileSync(transcript, `${JSON.stringify({ type: "user", uuid: "u-1", sessionId })}\n`)
      const file = path.join(box.root, "hooked.db")
      const env = { PATH: process.env["PATH"] ?? "", HOME: box.home, ACX_HOME: box.acxHome }
      const input = JSON.stringify({ hook_event_name: "Stop", session_id: sessionId, transcript_path: transcript })

      const hooked = await runHook(["--to", `sqlite:${file}`], input, env)
      expect(hooked).toMatchObject({ code: 0, stdout: "" })
      console.log(`[acx] the sync hook returned in ${hooked.millis.toFixed(0)} ms`)
      const stored = async () => {
        if (!fs.existsSync(file)) return []
        const store = createSqliteSessionStore({ filename: file })
        try {
          return (await store.load({ projectKey: "-p", sessionId })) ?? []
        } finally {
          await store.close()
        }
      }
      let entries: Array<unknown> = []
      for (let i = 0; i < 600 && entries.length === 0; i++) {
        entries = await stored()
        if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(entries).toEqual(parseableLines(transcript))

      // garbage, or nothing, on stdin: still exit 0, nothing printed
      expect(await runHook(["--to", `sqlite:${file}`], "not json", env)).toMatchObject({ code: 0, stdout: "" })
      expect(await runHook(["--to", `sqlite:${file}`], "", env)).toMatchObject({ code: 0, stdout: "" })
      // a writer that never closes the pipe, with a whole input or a part of one: the hook still returns
      expect(await runHook(["--to", `sqlite:${file}`], input, env, true)).toMatchObject({ code: 0, stdout: "" })
      expect(await runHook(["--to", `sqlite:${file}`], input.slice(0, 20), env, true)).toMatchObject({ code: 0 })
      // the syncs those started are done before the lock is taken below
      await waitFor("the hooks' syncs to end", () => processesUnder(box.acxHome).length === 0)

      // a sync holds the target: the one the hook starts marks it and exits
      const locks = path.join(box.acxHome, "sync")
      const { lockName } = await import("@acx/claude-code/ClaudeSync")
      const lockDir = path.join(locks, lockName(`sqlite:${file}`, fs.realpathSync(path.join(configDir, "projects"))))
      fs.mkdirSync(lockDir, { recursive: true })
      fs.writeFileSync(path.join(lockDir, ".acx-lock"), `${process.pid}:${os.hostname()}:held-by-the-test`)
      fs.appendFileSync(transcript, `${JSON.stringify({ type: "user", uuid: "u-2", sessionId })}\n`)
      expect(await runHook(["--to", `sqlite:${file}`], input, env)).toMatchObject({ code: 0 })
      await waitFor("the again mark", () => fs.existsSync(path.join(lockDir, "again")))
      expect(await stored()).toHaveLength(1)
      fs.rmSync(path.join(lockDir, ".acx-lock"))
    }
  )

  it.skipIf(!claude.available)("a real Claude Code session run with the installed hooks ends up in the store", {
    timeout: TIMEOUT
  }, async () => {
    const box = sandbox()
    const project = path.join(box.root, "app")
    fs.mkdirSync(project)
    const double = await ModelDouble.startModelDouble({ script: [{ content: "Done." }] })
    try {
      const real = await realClaude({ baseUrl: double.url, path: claude.available ? claude.path : undefined })
      const env = { ...real.env(box.home), ACX_HOME: box.acxHome }
      ok(await acx(["sync", "install"], { env }))
      const run = await real.run({ prompt: "Say done", cwd: project, home: box.home })
      expect(run.exitCode, run.stderr).toBe(0)
      const projectKey = fs.readdirSync(path.join(run.configDir, "projects"))[0]!
      const transcript = path.join(run.configDir, "projects", projectKey, `${run.sessionId}.jsonl`)
      const file = path.join(box.acxHome, "sessions.db")
      let stored: Array<unknown> = []
      const expected = () => parseableLines(transcript)
      for (let i = 0; i < 600; i++) {
        if (fs.existsSync(file)) {
          const store = createSqliteSessionStore({ filename: file })
          try {
            stored = (await store.load({ projectKey, sessionId: run.sessionId! })) ?? []
          } finally {
            await store.close()
          }
          if (stored.length > 0 && stored.length === expected().length) break
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(stored.length).toBeGreaterThan(0)
      expect(stored).toEqual(expected())
    } finally {
      await double.close()
    }
  })
})
