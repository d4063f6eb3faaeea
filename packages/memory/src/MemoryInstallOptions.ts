/**
 * The options and reports of `MemoryInstall` (`acx memory install` / `uninstall`, and
 * `acx sync install`, which puts its own hooks through the same merge).
 *
 * @since 0.1.0
 */
import type * as Merge from "./ClaudeSettingsMerge.js"

/**
 * `user`: every session of this user; `project`: sessions in one project directory.
 *
 * @since 0.1.0
 * @category models
 */
export type InstallScope = "user" | "project"

/**
 * Where the files are; each defaults as Claude Code resolves it.
 *
 * @since 0.1.0
 * @category models
 */
export interface LocationOptions {
  /** The project (project scope); default the current directory. */
  readonly projectDir?: string | undefined
  /** The `CLAUDE_CONFIG_DIR` Claude Code runs with; default the environment's, else `<home>/.claude`. */
  readonly claudeConfigDir?: string | undefined
  /** The user's home directory; default `os.homedir()`. */
  readonly home?: string | undefined
  /** acx's home, which keeps the manifest; default `ACX_HOME`, else `~/.acx`. */
  readonly acxHome?: string | undefined
  /** The environment read for `CLAUDE_CONFIG_DIR` and `ACX_HOME`; default `process.env`. */
  readonly env?: { readonly [name: string]: string | undefined } | undefined
  /** The time in backup names; default now. */
  readonly now?: Date | undefined
  /**
   * The manifest that records what was installed; default `$ACX_HOME/memory-install.json`. Each
   * installer keeps its own, so uninstalling one never removes another's hooks.
   */
  readonly manifest?: string | undefined
}

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
 * The two files of a scope.
 *
 * @since 0.1.0
 * @category models
 */
export interface TargetFiles {
  readonly settings: string
  readonly mcp: string
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
