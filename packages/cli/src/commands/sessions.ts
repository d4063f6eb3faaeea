/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, last
 * active first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/PlainListing.sessionsListing`,
 * no Effect). `--from STORE`: a store's sessions (`run/sessions.ts`).
 *
 * @since 0.1.0
 */
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import type * as FastRead from "../fastRead.js"
import { requireBundled } from "../internal/bundled.js"
import { effectCommand } from "../internal/effectCommand.js"
import * as format from "../internal/format.js"
import { configDirectory, failureWords, listingPlace } from "../internal/listingWords.js"
import { withProjectKey } from "../internal/options.js"
import { sessionsTable } from "../internal/sessionsTable.js"
import { errorLine } from "../internal/userMessage.js"

/**
 * What `acx sessions` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SessionsOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly json: boolean
  readonly followSymlinks: boolean
}

// The fast answer over a store (`fastRead.ts`: no Effect) comes first; it answers only when it is
// sure to print what the full path prints, else the full path runs. `ACX_NO_FAST=1`: always the
// full path. Built, it is a CommonJS bundle of its own beside the entry.

/**
 * The fast answer to `acx sessions --from` or `acx stats --from`, if one was printed.
 *
 * @since 0.6.0
 * @category commands
 */
export const fastAnswer = async (io: CommandIo): Promise<boolean> => {
  if (io.env["ACX_NO_FAST"] === "1") return false
  const fast = requireBundled<typeof FastRead>("fast-read.cjs", import.meta.url) ?? await import("../fastRead.js")
  return fast.main(io.argv, io.env as NodeJS.ProcessEnv)
}

const isDirectory = (dir: string): boolean | undefined => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()

/**
 * `acx sessions` over a config directory: the one listing (`PlainListing.sessionsListing`), each
 * path it left out warned about once on stderr (`ListingWarnings.skippedWarning`), a failure as
 * one `acx:` line (exit 1).
 *
 * @since 0.6.0
 * @category commands
 */
export const listConfigDir = async (options: SessionsOptions, io: CommandIo): Promise<number> => {
  const found = configDirectory(options.configDir, isDirectory)
  if ("problem" in found) {
    io.stderr(`acx: ${errorLine({ _tag: "CliError", message: found.problem })}\n`)
    return 1
  }
  const projectsDir = path.join(found.resolved, "projects")
  const { project } = options
  const { failure, rows, skipped } = PlainListing.sessionsListing(found.resolved, {
    project,
    followSymlinks: options.followSymlinks,
    cacheDir: AcxHome.paths().cache
  })
  for (const item of skipped) io.stderr(`${ListingWarnings.skippedWarning(item)}\n`)
  if (failure !== undefined) {
    const description = failureWords(projectsDir, project, failure)
    io.stderr(`acx: ${errorLine({ _tag: "ClaudeProjectsError", description, cause: failure.cause })}\n`)
    return 1
  }
  await io.stdout(`${
    options.json
      ? format.json(rows)
      : rows.length === 0
      ? `no sessions ${listingPlace(projectsDir, project, false)}`
      : sessionsTable(rows, { sizes: true })
  }\n`)
  return 0
}

const fromStore = effectCommand<SessionsOptions & { readonly from: string }>(async (options) =>
  (await import("./run/sessions.js")).run(options)
)

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SessionsOptions> = async (options, io) =>
  options.from === undefined
    ? listConfigDir(withProjectKey(options), io)
    : (await fastAnswer(io))
    ? 0
    : fromStore(withProjectKey({ ...options, from: options.from }), io)
