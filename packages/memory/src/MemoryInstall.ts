/**
 * `acx memory install` / `uninstall`: puts the memory's command hooks into Claude Code's
 * settings and its MCP server (`acx-memory`) into Claude Code's MCP file, and takes out exactly
 * what it put in.
 *
 * Where Claude Code reads them (checked with the real CLI, `claude mcp list`):
 * - user scope: hooks in `<config dir>/settings.json`; MCP servers in `$CLAUDE_CONFIG_DIR/.claude.json`
 *   when `CLAUDE_CONFIG_DIR` is set, else in `~/.claude.json` (beside the config dir, not in it;
 *   with the variable set there is no fallback to `~/.claude.json`).
 * - project scope: `<project>/.claude/settings.json` and `<project>/.mcp.json`; Claude Code lists
 *   a server of `.mcp.json` as pending approval until the user approves it in a session.
 *
 * Safety, in order: every file is read and every change computed before anything is written,
 * so an invalid file or a conflicting server changes nothing; a file whose content would not
 * change is not touched (installing twice writes nothing and backs up nothing); an existing file
 * is copied to `<file>.acx-backup-<UTC stamp>` before it changes; writes go to a temporary file
 * in the same directory, renamed over the target. What was added is recorded in
 * `$ACX_HOME/memory-install.json`, which is all `uninstall` removes.
 *
 * @since 0.1.0
 */
import type { ClaudeSettingsError } from "@acx/claude-code/ClaudeSettingsError"
import * as SettingsFiles from "@acx/claude-code/ClaudeSettingsFiles"
import { copyToBackup, type JsonFile, toText, writeAtomically, writeTarget } from "@acx/claude-code/ClaudeSettingsFiles"
import * as Merge from "@acx/claude-code/ClaudeSettingsMerge"
import * as AcxHome from "@acx/environment/AcxHome"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { MEMORY_HOOK_EVENTS, type MemoryHookEvent } from "./HookCapture.js"
import { MemoryError } from "./MemoryError.js"
import type {
  FileReport,
  InstallOptions,
  InstallReport,
  InstallScope,
  LocationOptions,
  TargetFiles,
  UninstallOptions
} from "./MemoryInstallOptions.js"
import { SERVER_NAME } from "./MemoryMcpDescription.js"

/**
 * The name of the memory's MCP server in Claude Code's configuration (the name the server gives
 * itself).
 *
 * @since 0.1.0
 * @category constants
 */
export const MCP_SERVER_NAME = SERVER_NAME

/**
 * Each hook's timeout in seconds: SessionStart builds the context the session starts with, the
 * others only record an event.
 *
 * @since 0.1.0
 * @category constants
 */
export const HOOK_TIMEOUTS: { readonly [E in MemoryHookEvent]: number } = {
  SessionStart: 15,
  UserPromptSubmit: 10,
  PostToolUse: 10,
  PostToolUseFailure: 10,
  Stop: 10,
  SessionEnd: 10
}

/**
 * The options and reports (`InstallOptions`, `InstallReport`, …), kept in their own module.
 *
 * @since 0.1.0
 */
export type * from "./MemoryInstallOptions.js"
const McpServerSchema = Schema.Struct({
  command: Schema.String,
  args: Schema.Array(Schema.String),
  env: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { exact: true })
})

/**
 * One thing install added: a hook (`event`, `command`) or the MCP server (`name`, `server`,
 * `command` being the server's).
 *
 * @since 0.1.0
 * @category models
 */
export const ManifestEntry = Schema.Struct({
  scope: Schema.Literal("user", "project"),
  file: Schema.String,
  kind: Schema.Literal("hook", "mcp"),
  event: Schema.optionalWith(Schema.String, { exact: true }),
  command: Schema.String,
  name: Schema.optionalWith(Schema.String, { exact: true }),
  server: Schema.optionalWith(McpServerSchema, { exact: true })
})

/**
 * @since 0.1.0
 * @category models
 */
export type ManifestEntry = typeof ManifestEntry.Type

/**
 * `$ACX_HOME/memory-install.json`: what install added, and the files it created (uninstall
 * deletes such a file when it is empty again).
 *
 * @since 0.1.0
 * @category models
 */
export const Manifest = Schema.Struct({
  version: Schema.Literal(1),
  entries: Schema.Array(ManifestEntry),
  createdFiles: Schema.Array(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Manifest = typeof Manifest.Type

const emptyManifest: Manifest = { version: 1, entries: [], createdFiles: [] }

// ---------------------------------------------------------------------------------------------
// paths
// ---------------------------------------------------------------------------------------------

/**
 * The manifest's path under acx's home.
 *
 * @since 0.1.0
 * @category paths
 */
export const manifestPath = (acxHome: string): string => AcxHome.paths(acxHome).memoryInstallManifest

const acxHomeOf = (options: LocationOptions): string =>
  options.acxHome !== undefined ? path.resolve(options.acxHome) : AcxHome.acxHome(options.env ?? process.env)

const manifestOf = (options: LocationOptions): string =>
  options.manifest !== undefined ? path.resolve(options.manifest) : manifestPath(acxHomeOf(options))

/**
 * The files of a scope, resolved as Claude Code resolves them (`ClaudeSettingsFiles.targetFiles`).
 *
 * @since 0.1.0
 * @category paths
 */
export const targetFiles: (scope: InstallScope, options?: LocationOptions) => TargetFiles = SettingsFiles.targetFiles

// ---------------------------------------------------------------------------------------------
// files
// ---------------------------------------------------------------------------------------------

// Reading a JSON file and replacing it safely are `@acx/claude-code/ClaudeSettingsFiles`'s: read
// whole before any write, backed up before it changes, written to a temporary file renamed over
// the target. Its errors become the memory's, with the same reason and description.

const asMemoryError = (error: ClaudeSettingsError): MemoryError =>
  new MemoryError({
    reason: error.reason,
    description: error.description,
    ...(error.cause === undefined ? {} : { cause: error.cause })
  })

const settingsError = (description: string, cause?: unknown): MemoryError =>
  asMemoryError(SettingsFiles.settingsError(description, cause))

const attempt = <A>(what: string, run: () => A): Effect.Effect<A, MemoryError> =>
  Effect.mapError(SettingsFiles.attempt(what, run), asMemoryError)

const readJsonFile = (file: string): Effect.Effect<JsonFile, MemoryError> =>
  Effect.mapError(SettingsFiles.readJsonFile(file), asMemoryError)

// ---------------------------------------------------------------------------------------------
// plans: every change computed before anything is written
// ---------------------------------------------------------------------------------------------

interface FilePlan {
  readonly file: JsonFile
  readonly value: unknown
  readonly added: ReadonlyArray<Merge.Change>
  readonly removed: ReadonlyArray<Merge.Change>
  readonly notes: ReadonlyArray<string>
  /** Uninstall deletes a file install created once it is an empty object again. */
  readonly deleteFile: boolean
  /** The mode of a file created now. */
  readonly newFileMode: number | undefined
}

const isChanged = (plan: FilePlan): boolean => plan.added.length > 0 || plan.removed.length > 0

const accept = <A>(file: string, result: Merge.MergeResult<A>): Effect.Effect<Merge.Merged<A>, MemoryError> =>
  result.ok ? Effect.succeed(result) : Effect.fail(settingsError(`${file}: ${result.problem}; nothing was changed`))

const applyPlan = (plan: FilePlan, now: Date): Effect.Effect<FileReport, MemoryError> =>
  Effect.gen(function*() {
    const { file } = plan
    const changed = isChanged(plan)
    const backup = changed && file.exists
      ? yield* attempt(`cannot back up ${file.path}`, () => copyToBackup(file.path, now))
      : undefined
    if (changed && plan.deleteFile) {
      yield* attempt(`cannot remove ${file.path}`, () => fs.rmSync(writeTarget(file.path), { force: true }))
    } else if (changed) {
      yield* attempt(
        `cannot write ${file.path}`,
        () => writeAtomically(file.path, toText(plan.value), file.mode ?? plan.newFileMode)
      )
    }
    return {
      path: file.path,
      changed,
      backup,
      created: changed && !file.exists,
      deleted: changed && plan.deleteFile,
      added: plan.added,
      removed: plan.removed,
      notes: plan.notes
    }
  }).pipe(Effect.withSpan("MemoryInstall.applyPlan", { attributes: { file: plan.file.path } }))

// ---------------------------------------------------------------------------------------------
// manifest
// ---------------------------------------------------------------------------------------------

const readManifest = (file: string): Effect.Effect<Manifest, MemoryError> =>
  Effect.gen(function*() {
    const json = yield* readJsonFile(file)
    if (json.value === undefined) return emptyManifest
    const decoded = Schema.decodeUnknownEither(Manifest)(json.value)
    return Either.isRight(decoded)
      ? decoded.right
      : yield* Effect.fail(settingsError(`${file} is not an acx install manifest; nothing was changed`, decoded.left))
  })

// under acx's home: owner-only like everything there (it names the user's settings files)
const writeManifest = (file: string, manifest: Manifest): Effect.Effect<void, MemoryError> =>
  attempt(`cannot write ${file}`, () => AcxHome.writePrivateFile(file, toText(manifest)))

const withoutDuplicates = <A>(items: ReadonlyArray<A>): Array<A> =>
  items.filter((item, index) => items.findIndex((other) => Merge.jsonEqual(other, item)) === index)

// ---------------------------------------------------------------------------------------------
// install
// ---------------------------------------------------------------------------------------------

const invalid = (description: string): MemoryError => new MemoryError({ reason: "InvalidArgument", description })

const hookEventsOf = (options: InstallOptions): ReadonlyArray<readonly [string, number]> =>
  options.hookEvents === undefined
    ? MEMORY_HOOK_EVENTS.map((event: MemoryHookEvent) => [event, HOOK_TIMEOUTS[event]] as const)
    : Object.entries(options.hookEvents)

const hookEntries = (options: InstallOptions): Effect.Effect<ReadonlyArray<Merge.HookEntry>, MemoryError> =>
  Effect.forEach(hookEventsOf(options), ([event, timeout]) => {
    const command = options.hookCommand(event)
    return typeof command === "string" && command.trim() !== ""
      ? Effect.succeed({ event, command, timeout })
      : Effect.fail(invalid(`hookCommand("${event}") must be a command, not ${JSON.stringify(command)}`))
  })

const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

const requireDirectory = (dir: string): Effect.Effect<void, MemoryError> =>
  isDirectory(dir) ? Effect.void : Effect.fail(invalid(`the project directory ${dir} does not exist`))

const validateInstall = (options: InstallOptions): Effect.Effect<void, MemoryError> => {
  if (options.scope !== "user" && options.scope !== "project") {
    return Effect.fail(invalid(`scope must be "user" or "project", not ${JSON.stringify(options.scope)}`))
  }
  const { args, command } = options.mcpServer ?? { command: "-", args: [] }
  if (typeof command !== "string" || command.trim() === "") {
    return Effect.fail(invalid("mcpServer.command must be a command"))
  }
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    return Effect.fail(invalid("mcpServer.args must be a list of strings"))
  }
  const cwd = options.cwd ?? process.cwd()
  return options.scope === "project" ? requireDirectory(path.resolve(cwd, options.projectDir ?? cwd)) : Effect.void
}

const plan = (file: JsonFile, merged: Merge.Merged<unknown>, direction: "add" | "remove"): FilePlan => ({
  file,
  value: merged.value,
  added: direction === "add" ? merged.changes : [],
  removed: direction === "remove" ? merged.changes : [],
  notes: merged.notes,
  deleteFile: false,
  newFileMode: undefined
})

const recordedServer = (server: Merge.McpServer): NonNullable<ManifestEntry["server"]> =>
  server.env === undefined
    ? { command: server.command, args: [...server.args] }
    : { command: server.command, args: [...server.args], env: { ...server.env } }

const manifestEntries = (scope: InstallScope, file: string, changes: ReadonlyArray<Merge.Change>) =>
  changes.map((change): ManifestEntry =>
    change.kind === "hook"
      ? { scope, file, kind: "hook", event: change.event, command: change.command }
      : {
        scope,
        file,
        kind: "mcp",
        command: change.server.command,
        name: change.name,
        server: recordedServer(change.server)
      }
  )

/**
 * The MCP server an earlier install recorded in `mcpFile` under acx's name with another command or
 * arguments (an upgraded acx, or another `--sessions-from`): this install replaces it.
 *
 * @since 0.3.0
 * @category install
 */
export const supersededServers = (
  manifest: Manifest,
  scope: InstallScope,
  mcpFile: string,
  server: { readonly command: string; readonly args: ReadonlyArray<string> }
): Array<ManifestEntry> =>
  manifest.entries.filter((entry) =>
    entry.scope === scope && entry.file === mcpFile && entry.kind === "mcp" && entry.name === MCP_SERVER_NAME &&
    entry.server !== undefined &&
    !Merge.jsonEqual(entry.server, recordedServer({ command: server.command, args: server.args }))
  )

/**
 * The hooks an earlier install recorded in `settingsFile` for an event this install writes under
 * another command: an upgraded acx whose command moved (to `dist/hook.cjs`, say) replaces them,
 * so no event runs two acx hooks.
 */
const supersededHooks = (
  manifest: Manifest,
  scope: InstallScope,
  settingsFile: string,
  entries: ReadonlyArray<Merge.HookEntry>
): ReadonlyArray<ManifestEntry> =>
  manifest.entries.filter((entry) =>
    entry.kind === "hook" && entry.scope === scope && entry.file === settingsFile &&
    entries.some((hook) => hook.event === entry.event && hook.command !== entry.command)
  )

/** The settings file's plan: the superseded hooks out, then this install's hooks in. */
const planHooks = (
  settings: JsonFile,
  entries: ReadonlyArray<Merge.HookEntry>,
  replaced: ReadonlyArray<ManifestEntry>
): Effect.Effect<FilePlan, MemoryError> =>
  Effect.gen(function*() {
    const removed = yield* accept(
      settings.path,
      Merge.removeHooks(settings.value, replaced.map((entry) => entry.command))
    )
    const added = yield* accept(settings.path, Merge.addHooks(removed.value, entries))
    return {
      ...plan(settings, added, "add"),
      removed: removed.changes,
      notes: [...removed.notes, ...added.notes]
    }
  })

const recordInstall = (manifest: Manifest, scope: InstallScope, plans: ReadonlyArray<FilePlan>): Manifest => ({
  version: 1,
  entries: withoutDuplicates([
    ...manifest.entries,
    ...plans.flatMap((plan) => manifestEntries(scope, plan.file.path, plan.added))
  ]),
  createdFiles: withoutDuplicates([
    ...manifest.createdFiles,
    ...plans.filter((plan) => isChanged(plan) && !plan.file.exists).map((plan) => plan.file.path)
  ])
})

/**
 * Installs the memory's hooks (every event of `MEMORY_HOOK_EVENTS`, with {@link HOOK_TIMEOUTS})
 * and its MCP server `acx-memory` in the scope's files ({@link targetFiles}), and records what it
 * added in the manifest. Idempotent. Fails with `Settings` (nothing changed) when a file is not
 * valid JSON, is not in a shape Claude Code reads, or already names a different `acx-memory`
 * server; with `InvalidArgument` for unusable options.
 *
 * @since 0.1.0
 * @category install
 */
export const install: (options: InstallOptions) => Effect.Effect<InstallReport, MemoryError> = Effect.fn(
  "MemoryInstall.install"
)(function*(options: InstallOptions) {
  yield* validateInstall(options)
  const entries = yield* hookEntries(options)
  const targets = targetFiles(options.scope, options)
  const manifestFile = manifestOf(options)
  yield* Effect.annotateCurrentSpan({ scope: options.scope, settings: targets.settings, mcp: targets.mcp })

  const settings = yield* readJsonFile(targets.settings)
  const mcp = yield* readJsonFile(targets.mcp)
  const recorded = yield* readManifest(manifestFile)
  const replaced = supersededHooks(recorded, options.scope, targets.settings, entries)
  const mcpServer = options.mcpServer
  const oldServers = mcpServer === undefined ? [] : supersededServers(recorded, options.scope, targets.mcp, mcpServer)
  const manifest = {
    ...recorded,
    entries: recorded.entries.filter((entry) => !replaced.includes(entry) && !oldServers.includes(entry))
  }
  // the server an earlier install registered with other arguments (`--sessions-from`) goes first,
  // so one server stays registered; one the user changed since is theirs, and adding is refused
  let servers: unknown = mcp.value
  for (const old of oldServers) {
    servers = (yield* accept(mcp.path, Merge.removeMcpServer(servers, old.name!, old.server!))).value
  }
  const plans: ReadonlyArray<FilePlan> = [
    yield* planHooks(settings, entries, replaced),
    ...(mcpServer === undefined ? [] : [{
      ...plan(
        mcp,
        yield* accept(
          mcp.path,
          Merge.addMcpServer(servers, MCP_SERVER_NAME, { command: mcpServer.command, args: [...mcpServer.args] })
        ),
        "add"
      ),
      // Claude Code keeps its own `.claude.json` private; one created here starts the same way.
      newFileMode: options.scope === "user" ? 0o600 : undefined
    }])
  ]

  // The manifest first: should a later write fail, it names a change that did not happen, which
  // uninstall finds absent and skips; the other order could leave a hook nothing knows about.
  const nextManifest = recordInstall(manifest, options.scope, plans)
  const manifestChanged = !Merge.jsonEqual(nextManifest, recorded)
  if (manifestChanged) yield* writeManifest(manifestFile, nextManifest)
  const now = options.now ?? new Date()
  const files = yield* Effect.forEach(plans, (plan) => applyPlan(plan, now))
  return { action: "install", files, manifest: { path: manifestFile, changed: manifestChanged } }
})

// ---------------------------------------------------------------------------------------------
// uninstall
// ---------------------------------------------------------------------------------------------

const locationGiven = (scope: InstallScope, options: UninstallOptions): boolean =>
  scope === "project"
    ? options.projectDir !== undefined
    : options.claudeConfigDir !== undefined || options.home !== undefined

const selector = (options: UninstallOptions): (entry: ManifestEntry) => boolean => {
  const scope = options.scope
  if (scope === undefined) return () => true
  if (!locationGiven(scope, options)) return (entry) => entry.scope === scope
  const targets = targetFiles(scope, options)
  return (entry) => entry.scope === scope && (entry.file === targets.settings || entry.file === targets.mcp)
}

const removeEntries = (
  file: JsonFile,
  entries: ReadonlyArray<ManifestEntry>
): Effect.Effect<Merge.Merged<unknown>, MemoryError> =>
  Effect.gen(function*() {
    const commands = entries.flatMap((entry) => entry.kind === "hook" ? [entry.command] : [])
    let current = yield* accept(file.path, Merge.removeHooks(file.value, commands))
    const changes: Array<Merge.Change> = [...current.changes]
    const notes: Array<string> = [...current.notes]
    for (const entry of entries) {
      if (entry.kind !== "mcp" || entry.name === undefined || entry.server === undefined) continue
      current = yield* accept(file.path, Merge.removeMcpServer(current.value, entry.name, entry.server))
      changes.push(...current.changes)
      notes.push(...current.notes)
    }
    return { ok: true, value: current.value, changes, notes }
  })

const isEmptyObject = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0

const planRemoval = (
  file: string,
  entries: ReadonlyArray<ManifestEntry>,
  manifest: Manifest
): Effect.Effect<FilePlan, MemoryError> =>
  Effect.gen(function*() {
    const json = yield* readJsonFile(file)
    const merged = yield* removeEntries(json, entries)
    return {
      ...plan(json, merged, "remove"),
      deleteFile: manifest.createdFiles.includes(file) && isEmptyObject(merged.value)
    }
  })

const recordUninstall = (manifest: Manifest, selected: ReadonlyArray<ManifestEntry>): Manifest => {
  const entries = manifest.entries.filter((entry) => !selected.includes(entry))
  return {
    version: 1,
    entries,
    createdFiles: manifest.createdFiles.filter((file) => entries.some((entry) => entry.file === file))
  }
}

/**
 * Removes what the manifest says install added (in `scope`, or everything), backing up each file
 * before it changes, then forgets those entries. A hook or server already gone is skipped; a
 * server changed since install is the user's and stays (a note says so). Running it twice changes
 * nothing the second time. Fails with `Settings` (nothing changed) when a file or the manifest
 * cannot be read.
 *
 * @since 0.1.0
 * @category install
 */
export const uninstall: (options?: UninstallOptions) => Effect.Effect<InstallReport, MemoryError> = Effect.fn(
  "MemoryInstall.uninstall"
)(function*(options: UninstallOptions = {}) {
  if (options.scope !== undefined && options.scope !== "user" && options.scope !== "project") {
    return yield* Effect.fail(invalid(`scope must be "user" or "project", not ${JSON.stringify(options.scope)}`))
  }
  const manifestFile = manifestOf(options)
  const manifest = yield* readManifest(manifestFile)
  const selected = manifest.entries.filter(selector(options))
  const files = withoutDuplicates(selected.map((entry) => entry.file))
  yield* Effect.annotateCurrentSpan({ entries: selected.length, files: files.join(", ") })
  const plans = yield* Effect.forEach(
    files,
    (file) => planRemoval(file, selected.filter((entry) => entry.file === file), manifest)
  )

  const now = options.now ?? new Date()
  const reports = yield* Effect.forEach(plans, (plan) => applyPlan(plan, now))
  // The manifest last: should a write fail, its entries stay, and the next uninstall retries.
  const nextManifest = recordUninstall(manifest, selected)
  const manifestChanged = !Merge.jsonEqual(nextManifest, manifest)
  if (manifestChanged) yield* writeManifest(manifestFile, nextManifest)
  return { action: "uninstall", files: reports, manifest: { path: manifestFile, changed: manifestChanged } }
})
