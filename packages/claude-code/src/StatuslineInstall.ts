/**
 * `acx statusline install` / `uninstall`: sets Claude Code's `statusLine` in the scope's
 * `settings.json` (`ClaudeSettingsFiles.targetFiles`) to acx's command, the way `acx memory install`
 * edits that file (read whole first, backed up before it changes, replaced atomically, twice
 * changes nothing), and keeps the statusline it replaced in a manifest of its own
 * (`$ACX_HOME/statusline-install.json`): uninstall puts it back, `--wrap` runs it. The merge
 * itself is `StatuslineSettings`' (pure).
 *
 * @since 0.4.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { ClaudeSettingsError } from "./ClaudeSettingsError.js"
import {
  attempt,
  copyToBackup,
  type InstallScope,
  type LocationOptions,
  readJsonFile,
  settingsError,
  targetFiles,
  toText,
  writeAtomically
} from "./ClaudeSettingsFiles.js"
import type { JsonObject } from "./ClaudeSettingsMerge.js"
import * as StatuslineSettings from "./StatuslineSettings.js"

const JsonObjectSchema = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The manifest: per settings file, the `statusLine` installed and the one it replaced.
 *
 * @since 0.4.0
 * @category models
 */
export const Manifest = Schema.Struct({
  version: Schema.Literal(1),
  files: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ installed: JsonObjectSchema, previous: Schema.NullOr(JsonObjectSchema) })
  })
})

/**
 * @since 0.4.0
 * @category models
 */
export type Manifest = typeof Manifest.Type

/**
 * What to install: the scope's files, and acx's command given the replaced statusline's command
 * (for `--wrap`; `undefined` when there is none).
 *
 * @since 0.4.0
 * @category models
 */
export interface StatuslineInstallOptions extends LocationOptions {
  readonly scope: InstallScope
  readonly command: (previous: string | undefined) => string
}

/**
 * What an install or uninstall did to the settings file.
 *
 * @since 0.4.0
 * @category models
 */
export interface StatuslineReport {
  readonly settings: string
  readonly changed: boolean
  readonly backup: string | undefined
  /** The command now in the file (install), or the one put back (uninstall); `undefined`: none. */
  readonly command: string | undefined
  readonly note: string | undefined
}

const manifestFile = (options: LocationOptions): string =>
  options.manifest !== undefined
    ? path.resolve(options.manifest)
    : AcxHome.paths(
      options.acxHome !== undefined ? path.resolve(options.acxHome) : AcxHome.acxHome(options.env ?? process.env)
    ).statuslineInstallManifest

const readManifest = (file: string): Effect.Effect<Manifest, ClaudeSettingsError> =>
  Effect.gen(function*() {
    const json = yield* readJsonFile(file)
    if (json.value === undefined) return { version: 1, files: {} } as const
    const decoded = Schema.decodeUnknownEither(Manifest)(json.value)
    return Either.isRight(decoded)
      ? decoded.right
      : yield* Effect.fail(
        settingsError(`${file} is not an acx statusline manifest; nothing was changed`, decoded.left)
      )
  })

const apply = (
  options: LocationOptions & { readonly scope: InstallScope },
  merge: (settings: unknown, record: StatuslineSettings.Installed | undefined) => StatuslineSettings.Outcome
): Effect.Effect<StatuslineReport, ClaudeSettingsError> =>
  Effect.gen(function*() {
    const settingsPath = targetFiles(options.scope, options).settings
    const manifestPath = manifestFile(options)
    const manifest = yield* readManifest(manifestPath)
    const file = yield* readJsonFile(settingsPath)
    const recorded = Object.hasOwn(manifest.files, settingsPath) ? manifest.files[settingsPath] : undefined
    const outcome = merge(file.value, recorded)
    if (!outcome.ok) {
      return yield* Effect.fail(settingsError(`${settingsPath}: ${outcome.problem}; nothing was changed`))
    }
    const now = new Date()
    const backup = outcome.changed && file.exists
      ? yield* attempt(`cannot back up ${settingsPath}`, () => copyToBackup(settingsPath, now))
      : undefined
    if (outcome.changed) {
      yield* attempt(
        `cannot write ${settingsPath}`,
        () =>
          writeAtomically(
            settingsPath,
            toText(outcome.value),
            file.mode ?? (options.scope === "user" ? 0o600 : undefined)
          )
      )
    }
    const files: { [file: string]: StatuslineSettings.Installed } = { ...manifest.files }
    if (outcome.record === undefined) delete files[settingsPath]
    else files[settingsPath] = outcome.record
    yield* attempt(`cannot write ${manifestPath}`, () => {
      if (Object.keys(files).length === 0) fs.rmSync(manifestPath, { force: true })
      else AcxHome.writePrivateFile(manifestPath, toText({ version: 1, files }))
    })
    const after = outcome.value as JsonObject | undefined
    const line = after !== undefined && Object.hasOwn(after, "statusLine") ? after["statusLine"] as JsonObject : null
    return {
      settings: settingsPath,
      changed: outcome.changed,
      backup,
      command: StatuslineSettings.commandOf(line),
      note: outcome.note
    }
  })

/**
 * Sets acx's statusline in the scope's settings (the replaced one kept for uninstall and
 * `--wrap`).
 *
 * @since 0.4.0
 * @category install
 */
export const install: (options: StatuslineInstallOptions) => Effect.Effect<StatuslineReport, ClaudeSettingsError> =
  Effect
    .fn("StatuslineInstall.install")(function*(options: StatuslineInstallOptions) {
      if (options.scope !== "user" && options.scope !== "project") {
        return yield* Effect.fail(
          new ClaudeSettingsError({ reason: "InvalidArgument", description: `scope must be "user" or "project"` })
        )
      }
      return yield* apply(options, (settings, record) =>
        StatuslineSettings.install(
          settings,
          (previous) =>
            StatuslineSettings.statusLineOf(options.command(StatuslineSettings.commandOf(previous)), previous),
          record
        ))
    })

/**
 * Puts back the statusline acx's replaced (or removes acx's when there was none), if the file
 * still holds acx's.
 *
 * @since 0.4.0
 * @category install
 */
export const uninstall: (
  options: LocationOptions & { readonly scope: InstallScope }
) => Effect.Effect<StatuslineReport, ClaudeSettingsError> = Effect.fn("StatuslineInstall.uninstall")(
  function*(options: LocationOptions & { readonly scope: InstallScope }) {
    return yield* apply(options, StatuslineSettings.uninstall)
  }
)
