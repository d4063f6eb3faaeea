import type * as Merge from "@acx/claude-code/ClaudeSettingsMerge"
import { MEMORY_HOOK_EVENTS } from "@acx/memory/HookCapture"
import { MemoryError } from "@acx/memory/MemoryError"
import * as MemoryInstall from "@acx/memory/MemoryInstall"
import * as MemoryInstallReport from "@acx/memory/MemoryInstallReport"
import { detectClaude, realClaude, startModelDouble } from "@acx/testing"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const NOW = new Date("2026-11-24T10:15:00Z")

interface Sandbox {
  readonly root: string
  readonly home: string
  readonly project: string
  readonly acxHome: string
  readonly serverScript: string
}

const roots: Array<string> = []
afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })))

const sandbox = (): Sandbox => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-install-"))
  roots.push(root)
  const project = path.join(root, "project")
  fs.mkdirSync(project, { recursive: true })
  const serverScript = path.join(root, "server.js")
  // Exits at once: Claude Code lists it as failed to connect, which is all a listing needs.
  fs.writeFileSync(serverScript, "")
  return { root, home: path.join(root, "home"), project, acxHome: path.join(root, "acx"), serverScript }
}

const installOptions = (
  box: Sandbox,
  overrides: Partial<MemoryInstall.InstallOptions> = {}
): MemoryInstall.InstallOptions => ({
  scope: "user",
  home: box.home,
  acxHome: box.acxHome,
  env: {},
  now: NOW,
  projectDir: box.project,
  hookCommand: (event) => `acx hook ${event}`,
  mcpServer: { command: "node", args: [box.serverScript] },
  ...overrides
})

const uninstallOptions = (
  box: Sandbox,
  overrides: Partial<MemoryInstall.UninstallOptions> = {}
): MemoryInstall.UninstallOptions => ({ acxHome: box.acxHome, env: {}, now: NOW, ...overrides })

const userSettings = (box: Sandbox) => path.join(box.home, ".claude", "settings.json")
const userMcp = (box: Sandbox) => path.join(box.home, ".claude.json")
const manifestFile = (box: Sandbox) => path.join(box.acxHome, "memory-install.json")

const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(value))
}
const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))
const backupsOf = (file: string) =>
  fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${path.basename(file)}.acx-backup-`)).sort()

/** Every file under a directory with its bytes, to show that nothing changed. */
const snapshot = (dir: string): Record<string, string> => {
  if (!fs.existsSync(dir)) return {}
  return Object.fromEntries(
    fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((name) => path.join(dir, name))
      .filter((file) => fs.statSync(file).isFile())
      .map((file) => [path.relative(dir, file), fs.readFileSync(file, "utf8")])
  )
}

const ourHooks = Object.fromEntries(
  MEMORY_HOOK_EVENTS.map((event) => [event, [{
    hooks: [{ type: "command", command: `acx hook ${event}`, timeout: MemoryInstall.HOOK_TIMEOUTS[event] }]
  }]])
)

// A user's settings with their own hooks (one on an event acx also uses) and unrelated keys.
const usersSettings = {
  model: "opus",
  hooks: {
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./lint.sh", timeout: 5 }] }],
    PreToolUse: [{ matcher: "*", hooks: [{ type: "prompt", prompt: "be careful" }] }]
  },
  permissions: { allow: ["Bash(ls:*)"] }
}
const usersClaudeJson = {
  numStartups: 3,
  mcpServers: { github: { type: "stdio", command: "gh-mcp", args: [], env: { TOKEN: "x" } } },
  projects: { "/somewhere": { allowedTools: [] } }
}

describe("MemoryInstall.install", () => {
  it.effect("user scope: creates settings.json, ~/.claude.json and the manifest", () =>
    Effect.gen(function*() {
      const box = sandbox()
      const report = yield* MemoryInstall.install(installOptions(box))

      expect(readJson(userSettings(box))).toEqual({ hooks: ourHooks })
      expect(readJson(userMcp(box))).toEqual({
        mcpServers: { "acx-memory": { type: "stdio", command: "node", args: [box.serverScript] } }
      })
      expect(fs.readFileSync(userSettings(box), "utf8")).toBe(`${JSON.stringify({ hooks: ourHooks }, null, 2)}\n`)
      expect(fs.statSync(userMcp(box)).mode & 0o777).toBe(0o600)
      expect(report.files.map((file) => [file.path, file.changed, file.created, file.backup])).toEqual([
        [userSettings(box), true, true, undefined],
        [userMcp(box), true, true, undefined]
      ])
      const manifest = readJson(manifestFile(box))
      expect(manifest.entries).toHaveLength(7)
      expect(manifest.entries[0]).toEqual({
        scope: "user",
        file: userSettings(box),
        kind: "hook",
        event: "SessionStart",
        command: "acx hook SessionStart"
      })
      expect(manifest.entries[6]).toEqual({
        scope: "user",
        file: userMcp(box),
        kind: "mcp",
        command: "node",
        name: "acx-memory",
        server: { command: "node", args: [box.serverScript] }
      })
      expect(manifest.createdFiles).toEqual([userSettings(box), userMcp(box)])
      expect(MemoryInstallReport.describeReport(report)).toEqual([
        `${userSettings(box)}: created`,
        ...MEMORY_HOOK_EVENTS.map((event) => `  added ${event} hook (acx hook ${event})`),
        `${userMcp(box)}: created`,
        `  added MCP server acx-memory (node ${box.serverScript})`,
        `recorded in ${manifestFile(box)}`
      ])
    }))

  it.effect("keeps the user's own hooks, servers and keys, in order", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      writeJson(userMcp(box), usersClaudeJson)
      yield* MemoryInstall.install(installOptions(box))

      const settings = readJson(userSettings(box))
      expect(Object.keys(settings)).toEqual(["model", "hooks", "permissions"])
      expect(settings.hooks.PostToolUse).toEqual([...usersSettings.hooks.PostToolUse, ...ourHooks.PostToolUse!])
      expect(settings.hooks.PreToolUse).toEqual(usersSettings.hooks.PreToolUse)
      expect(settings.permissions).toEqual(usersSettings.permissions)
      const claudeJson = readJson(userMcp(box))
      expect(Object.keys(claudeJson.mcpServers)).toEqual(["github", "acx-memory"])
      expect(claudeJson.projects).toEqual(usersClaudeJson.projects)
    }))

  it.effect("installing twice writes the same bytes and backs up once", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      writeJson(userMcp(box), usersClaudeJson)
      const first = yield* MemoryInstall.install(installOptions(box))
      const afterFirst = snapshot(box.root)
      const second = yield* MemoryInstall.install(installOptions(box, { now: new Date("2026-11-24T11:00:00Z") }))

      expect(snapshot(box.root)).toEqual(afterFirst)
      expect(backupsOf(userSettings(box))).toEqual(["settings.json.acx-backup-20261124T101500Z"])
      expect(backupsOf(userMcp(box))).toEqual([".claude.json.acx-backup-20261124T101500Z"])
      expect(first.files.map((file) => file.backup)).toEqual([
        `${userSettings(box)}.acx-backup-20261124T101500Z`,
        `${userMcp(box)}.acx-backup-20261124T101500Z`
      ])
      expect(fs.readFileSync(first.files[0]!.backup!, "utf8")).toBe(JSON.stringify(usersSettings))
      expect(second.files.every((file) => !file.changed && file.backup === undefined)).toBe(true)
      expect(second.manifest.changed).toBe(false)
      expect(MemoryInstallReport.describeReport(second)).toEqual([
        `${userSettings(box)}: unchanged`,
        ...MEMORY_HOOK_EVENTS.map((event) => `  ${event} hook already present: acx hook ${event}`),
        `${userMcp(box)}: unchanged`,
        "  MCP server acx-memory already present"
      ])
    }))

  it.effect("an install whose hook command moved replaces the earlier install's hooks, not the user's", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      yield* MemoryInstall.install(installOptions(box))
      const moved = (event: string) => `node /opt/acx/dist/hook.cjs ${event}`
      const report = yield* MemoryInstall.install(
        installOptions(box, { hookCommand: moved, now: new Date("2026-11-24T11:00:00Z") })
      )

      const settings = readJson(userSettings(box))
      for (const event of MEMORY_HOOK_EVENTS) {
        const commands = (settings.hooks[event] as Array<{ hooks: Array<{ command: string }> }>)
          .flatMap((group) => group.hooks.map((hook) => hook.command))
        const users =
          ((usersSettings.hooks as unknown as Record<string, Array<{ hooks: Array<{ command?: string }> }>>)[event] ??
            [])
            .flatMap((group) => group.hooks.map((hook) => hook.command))
        expect(commands).toEqual([...users, moved(event)])
      }
      // in the settings file's order
      expect(report.files[0]!.removed.map((change) => change.kind === "hook" ? change.command : "").sort()).toEqual(
        MEMORY_HOOK_EVENTS.map((event) => `acx hook ${event}`).sort()
      )
      const manifest = readJson(manifestFile(box))
      expect(
        manifest.entries.filter((entry: { kind: string }) => entry.kind === "hook").map((entry: { command: string }) =>
          entry.command
        )
      )
        .toEqual(MEMORY_HOOK_EVENTS.map(moved))

      // uninstall then removes what the second install wrote: the user's settings are back
      yield* MemoryInstall.uninstall(uninstallOptions(box))
      expect(readJson(userSettings(box))).toEqual(usersSettings)
    }))

  it.effect("an install whose server arguments changed (--sessions-from) replaces its own server: one stays", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userMcp(box), { mcpServers: { github: { command: "gh-mcp", args: [] } } })
      yield* MemoryInstall.install(installOptions(box))
      const withFrom = { command: "node", args: [box.serverScript, "--from", "sqlite:/srv/s.db"] }
      yield* MemoryInstall.install(installOptions(box, { mcpServer: withFrom }))
      const servers = readJson(userMcp(box)).mcpServers
      expect(Object.keys(servers)).toEqual(["github", "acx-memory"])
      expect(servers["acx-memory"].args).toEqual(withFrom.args)
      const recorded = readJson(manifestFile(box)).entries.filter((entry: { kind: string }) => entry.kind === "mcp")
      expect(recorded.map((entry: { server: { args: Array<string> } }) => entry.server.args)).toEqual([withFrom.args])
      // a server the user changed since is theirs: replacing it is refused, nothing written
      servers["acx-memory"].args.push("--verbose")
      writeJson(userMcp(box), { mcpServers: servers })
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.install(installOptions(box)))
      expect(error.reason).toBe("Settings")
      expect(snapshot(box.root)).toEqual(before)
      // uninstall removes what install recorded; the user's server stays
      yield* MemoryInstall.uninstall(uninstallOptions(box))
      expect(Object.keys(readJson(userMcp(box)).mcpServers)).toEqual(["github", "acx-memory"])
    }))

  it.effect("project scope: <project>/.claude/settings.json and <project>/.mcp.json", () =>
    Effect.gen(function*() {
      const box = sandbox()
      yield* MemoryInstall.install(installOptions(box, { scope: "project" }))
      expect(readJson(path.join(box.project, ".claude", "settings.json"))).toEqual({ hooks: ourHooks })
      expect(readJson(path.join(box.project, ".mcp.json")).mcpServers["acx-memory"]).toBeDefined()
      expect(fs.existsSync(box.home)).toBe(false)
    }))

  it.effect("with CLAUDE_CONFIG_DIR both user files are in that directory", () =>
    Effect.gen(function*() {
      const box = sandbox()
      const configDir = path.join(box.root, "claude-config")
      const report = yield* MemoryInstall.install(installOptions(box, { env: { CLAUDE_CONFIG_DIR: configDir } }))
      expect(report.files.map((file) => file.path)).toEqual([
        path.join(configDir, "settings.json"),
        path.join(configDir, ".claude.json")
      ])
      expect(MemoryInstall.targetFiles("user", { home: box.home, claudeConfigDir: configDir, env: {} })).toEqual({
        settings: path.join(configDir, "settings.json"),
        mcp: path.join(configDir, ".claude.json")
      })
    }))

  it.effect("writes through a symlinked settings file, which stays a symlink", () =>
    Effect.gen(function*() {
      const box = sandbox()
      const real = path.join(box.root, "dotfiles", "settings.json")
      writeJson(real, usersSettings)
      fs.mkdirSync(path.dirname(userSettings(box)), { recursive: true })
      fs.symlinkSync(real, userSettings(box))
      yield* MemoryInstall.install(installOptions(box))
      expect(fs.lstatSync(userSettings(box)).isSymbolicLink()).toBe(true)
      expect(readJson(real).hooks.SessionStart).toEqual(ourHooks.SessionStart)
    }))

  it.effect("invalid JSON: a Settings error naming the file, and every file byte-identical", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      fs.writeFileSync(userMcp(box), "{ \"mcpServers\": { ")
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.install(installOptions(box)))
      expect(error).toBeInstanceOf(MemoryError)
      expect(error.reason).toBe("Settings")
      expect(error.description).toContain(`${userMcp(box)} is not valid JSON; nothing was changed`)
      expect(snapshot(box.root)).toEqual(before)
    }))

  it.effect("a different acx-memory server: a Settings error, nothing written", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      writeJson(userMcp(box), { mcpServers: { "acx-memory": { command: "my-own-memory", args: [] } } })
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.install(installOptions(box)))
      expect(error.reason).toBe("Settings")
      expect(error.description).toBe(
        `${userMcp(box)}: a different MCP server named "acx-memory" is already configured: ` +
          `{"command":"my-own-memory","args":[]}; nothing was changed`
      )
      expect(snapshot(box.root)).toEqual(before)
    }))

  it.effect("hooks in a shape Claude Code does not read: a Settings error, nothing written", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), { hooks: { Stop: "not a list" } })
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.install(installOptions(box)))
      expect(error.message).toBe(
        `Settings: ${userSettings(box)}: hooks.Stop is not a list of matcher groups; nothing was changed`
      )
      expect(snapshot(box.root)).toEqual(before)
    }))

  it.effect("an unreadable manifest: a Settings error, nothing written", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(manifestFile(box), { version: 2 })
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.install(installOptions(box)))
      expect(error.reason).toBe("Settings")
      expect(error.description).toContain(`${manifestFile(box)} is not an acx install manifest`)
      expect(snapshot(box.root)).toEqual(before)
    }))

  it.effect("unusable options: InvalidArgument", () =>
    Effect.gen(function*() {
      const box = sandbox()
      const attempts = [
        installOptions(box, { scope: "global" as "user" }),
        installOptions(box, { hookCommand: () => " " }),
        installOptions(box, { mcpServer: { command: "", args: [] } }),
        installOptions(box, { scope: "project", projectDir: path.join(box.root, "missing") })
      ]
      for (const options of attempts) {
        const error = yield* Effect.flip(MemoryInstall.install(options))
        expect(error.reason).toBe("InvalidArgument")
      }
      expect(fs.existsSync(box.home) || fs.existsSync(box.acxHome)).toBe(false)
    }))
})

describe("MemoryInstall.uninstall", () => {
  it.effect("restores the original settings structurally; the user's hooks and servers survive", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userSettings(box), usersSettings)
      writeJson(userMcp(box), usersClaudeJson)
      yield* MemoryInstall.install(installOptions(box))
      // Claude Code writes to its files between the two; those changes are not acx's to undo.
      const claudeJson = readJson(userMcp(box))
      writeJson(userMcp(box), { ...claudeJson, numStartups: 4 })

      const report = yield* MemoryInstall.uninstall(uninstallOptions(box))

      expect(readJson(userSettings(box))).toEqual(usersSettings)
      expect(readJson(userMcp(box))).toEqual({ ...usersClaudeJson, numStartups: 4 })
      expect(report.files.map((file) => [file.changed, file.removed.length])).toEqual([[true, 6], [true, 1]])
      // The install's backup is kept; the uninstall's, taken in the same second, gets its own name.
      expect(backupsOf(userSettings(box))).toEqual([
        "settings.json.acx-backup-20261124T101500Z",
        "settings.json.acx-backup-20261124T101500Z-2"
      ])
      expect(readJson(manifestFile(box))).toEqual({ version: 1, entries: [], createdFiles: [] })

      const afterFirst = snapshot(box.root)
      const again = yield* MemoryInstall.uninstall(uninstallOptions(box))
      expect(snapshot(box.root)).toEqual(afterFirst)
      expect(again.files).toEqual([])
      expect(MemoryInstallReport.describeReport(again)).toEqual(["nothing to uninstall: no memory install recorded"])
    }))

  it.effect("deletes the files install created once they are empty again", () =>
    Effect.gen(function*() {
      const box = sandbox()
      yield* MemoryInstall.install(installOptions(box, { scope: "project" }))
      const report = yield* MemoryInstall.uninstall(uninstallOptions(box, { scope: "project" }))
      expect(fs.existsSync(path.join(box.project, ".mcp.json"))).toBe(false)
      expect(fs.existsSync(path.join(box.project, ".claude", "settings.json"))).toBe(false)
      expect(report.files.every((file) => file.deleted)).toBe(true)
      expect(MemoryInstallReport.describeReport(report)[0]).toBe(
        `${path.join(box.project, ".claude", "settings.json")}: removed the file ` +
          `(backup: ${path.join(box.project, ".claude", "settings.json")}.acx-backup-20261124T101500Z)`
      )
    }))

  it.effect("removes only the scope asked for", () =>
    Effect.gen(function*() {
      const box = sandbox()
      yield* MemoryInstall.install(installOptions(box, { scope: "user" }))
      yield* MemoryInstall.install(installOptions(box, { scope: "project" }))
      yield* MemoryInstall.uninstall(uninstallOptions(box, { scope: "project", projectDir: box.project }))
      expect(fs.existsSync(path.join(box.project, ".mcp.json"))).toBe(false)
      expect(readJson(userSettings(box))).toEqual({ hooks: ourHooks })
      const manifest = readJson(manifestFile(box))
      expect(new Set(manifest.entries.map((entry: MemoryInstall.ManifestEntry) => entry.scope))).toEqual(
        new Set(["user"])
      )
      yield* MemoryInstall.uninstall(uninstallOptions(box))
      expect(fs.existsSync(userSettings(box))).toBe(false)
      expect(readJson(manifestFile(box)).entries).toEqual([])
    }))

  it.effect("leaves a server the user changed since install, and says so", () =>
    Effect.gen(function*() {
      const box = sandbox()
      writeJson(userMcp(box), usersClaudeJson)
      yield* MemoryInstall.install(installOptions(box))
      const claudeJson = readJson(userMcp(box))
      claudeJson.mcpServers["acx-memory"].args.push("--verbose")
      writeJson(userMcp(box), claudeJson)
      const report = yield* MemoryInstall.uninstall(uninstallOptions(box))
      expect(readJson(userMcp(box)).mcpServers["acx-memory"].args).toContain("--verbose")
      expect(report.files[1]!.notes).toEqual([
        "MCP server acx-memory was changed since it was installed: left as it is"
      ])
    }))

  it.effect("invalid JSON: a Settings error, every file byte-identical", () =>
    Effect.gen(function*() {
      const box = sandbox()
      yield* MemoryInstall.install(installOptions(box))
      fs.writeFileSync(userMcp(box), "not json")
      const before = snapshot(box.root)
      const error = yield* Effect.flip(MemoryInstall.uninstall(uninstallOptions(box)))
      expect(error.reason).toBe("Settings")
      expect(error.description).toContain(userMcp(box))
      expect(snapshot(box.root)).toEqual(before)
    }))
})

// -- the real Claude Code CLI ------------------------------------------------------------------

const detection = await detectClaude()
const skipReason = detection.available ? "" : ` (skipped: ${detection.reason})`

const runClaude = (args: ReadonlyArray<string>, options: { cwd: string; env: Record<string, string> }) =>
  new Promise<string>((resolve, reject) => {
    if (!detection.available) return reject(new Error(detection.reason))
    execFile(
      detection.path,
      [...args],
      { ...options, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(`${stdout}${stderr}`)
    )
  })

const claudeEnv = (home: string, configDir?: string): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "",
  HOME: home,
  ...(configDir === undefined ? {} : { CLAUDE_CONFIG_DIR: configDir }),
  ANTHROPIC_API_KEY: "dummy",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  // Offline, Claude Code retries its remote-settings and policy fetches to api.anthropic.com for
  // about 18 s before it lists anything; with another API base URL it does not make them.
  ANTHROPIC_BASE_URL: "http://127.0.0.1:9"
})

describe(`the real Claude Code CLI${skipReason}`, () => {
  it.skipIf(!detection.available)(
    "lists acx-memory from the user scope, with and without CLAUDE_CONFIG_DIR",
    async () => {
      const box = sandbox()
      const elsewhere = path.join(box.root, "elsewhere")
      fs.mkdirSync(elsewhere)

      // `claude mcp list` runs the user's SessionEnd hooks: harmless commands here.
      const quietHooks = { hookCommand: (event: string) => `node ${box.serverScript} ${event}` }
      await Effect.runPromise(MemoryInstall.install(installOptions(box, quietHooks)))
      // listed with the user scope's command; its health: 2.1.332 checks it (the script is no
      // server: it fails), 2.1.337 checks no server in a folder the user has not trusted
      const userScoped = (output: string) =>
        expect(output.split("\n").find((line) => line.startsWith(`acx-memory: node ${box.serverScript} - `)))
          .toMatch(/ - (✘ Failed to connect|- Not checked \(folder not trusted; run `claude` here\))/)
      userScoped(await runClaude(["mcp", "list"], { cwd: elsewhere, env: claudeEnv(box.home) }))

      const configDir = path.join(box.root, "claude-config")
      await Effect.runPromise(
        MemoryInstall.install(installOptions(box, { ...quietHooks, env: { CLAUDE_CONFIG_DIR: configDir } }))
      )
      expect(fs.existsSync(path.join(configDir, ".claude.json"))).toBe(true)
      const listedWithConfigDir = await runClaude(["mcp", "list"], {
        cwd: elsewhere,
        env: claudeEnv(box.home, configDir)
      })
      userScoped(listedWithConfigDir)

      // And the other way round: with CLAUDE_CONFIG_DIR set, `~/.claude.json` is not read.
      const emptyConfigDir = path.join(box.root, "empty-config")
      const unlisted = await runClaude(["mcp", "list"], { cwd: elsewhere, env: claudeEnv(box.home, emptyConfigDir) })
      expect(unlisted).not.toContain("acx-memory")
    }
  )

  it.skipIf(!detection.available)("lists the project's acx-memory as pending approval", async () => {
    const box = sandbox()
    await Effect.runPromise(MemoryInstall.install(installOptions(box, { scope: "project" })))
    const env = claudeEnv(box.home)
    const listed = await runClaude(["mcp", "list"], { cwd: box.project, env })
    expect(listed).toContain(`acx-memory: node ${box.serverScript} - ⏸ Pending approval (run \`claude\` to approve)`)
    const details = await runClaude(["mcp", "get", "acx-memory"], { cwd: box.project, env })
    expect(details).toContain("Scope: Project config (shared via .mcp.json)")
  })

  it.skipIf(!detection.available)("runs the installed hooks in a session", async () => {
    const box = sandbox()
    const log = path.join(box.root, "hooks.log")
    const hookScript = path.join(box.root, "hook.js")
    fs.writeFileSync(hookScript, `require("node:fs").appendFileSync(${JSON.stringify(log)}, process.argv[2] + "\\n")\n`)
    await Effect.runPromise(MemoryInstall.install(installOptions(box, {
      claudeConfigDir: path.join(box.home, ".claude"),
      hookCommand: (event) => `node ${hookScript} ${event}`
    })))
    const model = await startModelDouble({ script: [{ content: "Done." }] })
    try {
      const claude = await realClaude({ baseUrl: model.url })
      const run = await claude.run({ prompt: "Say done", cwd: box.project, home: box.home })
      expect(run.exitCode).toBe(0)
    } finally {
      await model.close()
    }
    const fired = new Set(fs.readFileSync(log, "utf8").trim().split("\n"))
    expect(fired).toEqual(new Set(["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]))
  }, 90_000)
})

describe("describeReport", () => {
  it("names the file, its backup, and what was added", () => {
    const change: Merge.Change = { kind: "hook", event: "Stop", command: "acx hook Stop" }
    expect(MemoryInstallReport.describeReport({
      action: "install",
      files: [{
        path: "/h/.claude/settings.json",
        changed: true,
        backup: "/h/.claude/settings.json.acx-backup-20261124T101500Z",
        created: false,
        deleted: false,
        added: [change],
        removed: [],
        notes: []
      }],
      manifest: { path: "/a/memory-install.json", changed: true }
    })).toEqual([
      "/h/.claude/settings.json: updated (backup: /h/.claude/settings.json.acx-backup-20261124T101500Z)",
      "  added Stop hook (acx hook Stop)",
      "recorded in /a/memory-install.json"
    ])
  })
})
