/**
 * The options and reports of `MemoryInstall` (`acx memory install` / `uninstall`, and
 * `acx sync install`, which puts its own hooks through the same merge).
 *
 * @since 0.1.0
 */
import type { InstallScope, LocationOptions } from "@acx/claude-code/ClaudeSettingsFiles"
import type * as Merge from "@acx/claude-code/ClaudeSettingsMerge"

/**
 * Where Claude Code's settings files are, per scope (`@acx/claude-code/ClaudeSettingsFiles`).
 *
 * @since 0.1.0
 * @category models
 */
export type { InstallScope, LocationOptions, TargetFiles } from "@acx/claude-code/ClaudeSettingsFiles"

/**
 * @since 0.1.0
 * @category models
 */
export interface InstallOptions extends LocationOptions {
  readonly scope: InstallScope
  /** The command Claude Code runs for an event, e.g. `acx hook PostToolUse`. */
  readonly hookCommand: (event: string) => string
  /**
   * The events to hook, each with its timeout in seconds; default the memory's
   * (`MEMORY_HOOK_EVENTS`, {@link HOOK_TIMEOUTS}). `acx sync install` hooks its own.
   */
  readonly hookEvents?: { readonly [event: string]: number } | undefined
  /**
   * How Claude Code starts the MCP server, e.g. `{ command: "acx", args: ["memory", "mcp"] }`;
   * `undefined`: hooks only, no MCP file is touched.
   */
  readonly mcpServer?: { readonly command: string; readonly args: ReadonlyArray<string> } | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface UninstallOptions extends LocationOptions {
  /**
   * Only what was installed in this scope; default everything in the manifest. With `scope`, a
   * `projectDir` (project) or a `claudeConfigDir`/`home` (user) narrows it to those files.
   */
  readonly scope?: InstallScope | undefined
}

/**
 * What happened to one file.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileReport {
  readonly path: string
  readonly changed: boolean
  /** The copy taken before the change; `undefined` when the file did not exist or did not change. */
  readonly backup: string | undefined
  readonly created: boolean
  /** Uninstall removed a file that install had created and that is empty again. */
  readonly deleted: boolean
  readonly added: ReadonlyArray<Merge.Change>
  readonly removed: ReadonlyArray<Merge.Change>
  /** What was left alone, and why. */
  readonly notes: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface InstallReport {
  readonly action: "install" | "uninstall"
  readonly files: ReadonlyArray<FileReport>
  readonly manifest: { readonly path: string; readonly changed: boolean }
}
