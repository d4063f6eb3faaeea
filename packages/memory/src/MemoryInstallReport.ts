/**
 * What `acx memory install` / `uninstall` did, as lines for the CLI.
 *
 * @since 0.1.0
 */
import type * as Merge from "@acx/claude-code/ClaudeSettingsMerge"
import type { FileReport, InstallReport } from "./MemoryInstallOptions.js"

const describeChange = (change: Merge.Change): string =>
  change.kind === "hook"
    ? `${change.event} hook (${change.command})`
    : `MCP server ${change.name} (${[change.server.command, ...change.server.args].join(" ")})`

const describeFile = (file: FileReport): ReadonlyArray<string> => {
  const lines: Array<string> = []
  if (!file.changed) {
    lines.push(`${file.path}: unchanged`)
  } else {
    const verb = file.deleted ? "removed the file" : file.created ? "created" : "updated"
    lines.push(`${file.path}: ${verb}${file.backup === undefined ? "" : ` (backup: ${file.backup})`}`)
  }
  lines.push(...file.added.map((change) => `  added ${describeChange(change)}`))
  lines.push(...file.removed.map((change) => `  removed ${describeChange(change)}`))
  lines.push(...file.notes.map((note) => `  ${note}`))
  return lines
}

/**
 * The report as lines for the CLI: one per file (created, updated, unchanged, with its backup),
 * then what was added or removed and what was left alone, indented. `what` names the installer
 * (`memory`, `sync`) when nothing was recorded.
 *
 * @since 0.1.0
 * @category report
 */
export const describeReport = (report: InstallReport, what = "memory"): Array<string> => {
  if (report.files.length === 0) {
    return [report.action === "install" ? "nothing to install" : `nothing to uninstall: no ${what} install recorded`]
  }
  const lines = report.files.flatMap(describeFile)
  if (report.manifest.changed) lines.push(`recorded in ${report.manifest.path}`)
  return lines
}
