/**
 * Where sessions are read from: a Claude Code config directory (`--config-dir`, else
 * `$CLAUDE_CONFIG_DIR`, else `~/.claude`), and how a session is found by id or id prefix.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as SessionIdLookup from "@acx/environment/SessionIdLookup"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CliError from "../CliError.js"
import { configDirOf } from "./configDir.js"
import * as CurrentIo from "./currentIo.js"
import { configDirectory, failureWords, listingPlace as placeOf } from "./listingWords.js"
import { projectLabel } from "./projectKey.js"
import { isStoreBacked } from "./storeBacked.js"

/** The warning line for a path a listing left out (`@acx/claude-code/ListingWarnings`). */
export const skippedWarning = ListingWarnings.skippedWarning

/**
 * The config directory as a `ClaudeProjects` layer: it must exist (else `NotFound`, before any
 * other file is opened), paths a listing leaves out are warned about once each on stderr, and
 * `listSessions` caches under `$ACX_HOME/cache`.
 */
export const projectsLayer = (
  configDir: string | undefined,
  options: { readonly followSymlinks?: boolean } = {}
): Layer.Layer<ClaudeProjects.ClaudeProjects, CliError.CliError, FileSystem.FileSystem | CurrentIo.CurrentIo> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const io = yield* CurrentIo.CurrentIo
    const { resolved } = configDirOf(configDir, io.env, io.cwd)
    const type = yield* fs.stat(resolved).pipe(
      Effect.map((info) => info.type),
      Effect.orElseSucceed(() => undefined)
    )
    const found = configDirectory(
      configDir,
      () => type === undefined ? undefined : type === "Directory",
      io.env,
      io.cwd
    )
    if ("problem" in found) return yield* CliError.notFound(found.problem)
    const warned = new Set<string>()
    return Layer.map(
      ClaudeProjects.layerNode({
        configDir: resolved,
        followSymlinks: options.followSymlinks === true,
        cacheDir: CurrentIo.acxPaths(io).cache,
        onSkipped: (skipped) =>
          Effect.suspend(() => {
            if (warned.has(skipped.path)) return Effect.void
            warned.add(skipped.path)
            return Console.error(skippedWarning(skipped))
          })
      }),
      (context) =>
        Context.add(
          context,
          ClaudeProjects.ClaudeProjects,
          namingProjects(Context.get(context, ClaudeProjects.ClaudeProjects))
        )
    )
  }))

/**
 * The listings of `projects`, with a project that has no directory said in the user's words: the
 * path `--project` was given (`no sessions for project /srv/app`), and where it was looked for.
 */
const namingProjects = (projects: ClaudeProjects.ClaudeProjects): ClaudeProjects.ClaudeProjects => {
  const named = (projectKey: string | undefined) =>
    Effect.mapError((error: ClaudeProjects.ClaudeProjectsError) =>
      projectKey === undefined || (error.reason !== "NotFound" && error.reason !== "PathEscape")
        ? error
        : new ClaudeProjects.ClaudeProjectsError({
          reason: error.reason,
          operation: error.operation,
          description: failureWords(projects.projectsDir, projectKey, error)
        })
    )
  return {
    ...projects,
    listSessions: (projectKey) => named(projectKey)(projects.listSessions(projectKey)),
    listSessionFiles: (projectKey) => named(projectKey)(projects.listSessionFiles(projectKey))
  }
}

/**
 * The one session whose id is `id` or starts with it (`SessionIdLookup`: at least 4 characters,
 * any case), in `projectKey` or in any project. Anything that is not (a prefix of) a UUID is
 * refused before touching the file system, so ids like `../../x` cannot name a path.
 */
export const findSession = (
  projects: ClaudeProjects.ClaudeProjects,
  id: string,
  projectKey: string | undefined
): Effect.Effect<ClaudeProjects.SessionFile, CliError.CliError | ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    const notAnId = () =>
      CliError.invalidArgument(`not a session id: ${JSON.stringify(id)} (expected a UUID or its prefix)`)
    if (!SessionIdLookup.isWellFormed(id)) return yield* notAnId()
    const sessions = yield* projects.listSessionFiles(projectKey)
    const found = SessionIdLookup.lookup(sessions, (session) => session.sessionId, id)
    if (found._tag === "Found") return found.value
    if (found._tag === "Malformed") return yield* notAnId()
    const where = projectKey === undefined ? projects.projectsDir : `project ${projectLabel(projectKey)}`
    if (found._tag === "NotFound") return yield* CliError.notFound(`no session ${id} in ${where}`)
    const names = found.matches.slice(0, 5).map((session) => `${session.projectKey}/${session.sessionId}`).join(", ")
    return yield* CliError.ambiguous(
      `${id} matches ${found.matches.length} sessions (${names}); pass the full id or --project`
    )
  })

/** A transcript and how many of its lines were malformed. */
export type MalformedFile = ListingWarnings.MalformedFile

/**
 * The one warning line for malformed lines skipped over several files
 * (`@acx/claude-code/ListingWarnings`); `undefined` when none were.
 */
export const malformedWarning = ListingWarnings.malformedWarning

/** Where a listing looked, for "no sessions …" (`listingWords.ts`). */
export const listingPlace = (projects: ClaudeProjects.ClaudeProjects, projectKey: string | undefined): string =>
  placeOf(projects.projectsDir, projectKey, isStoreBacked(projects))

/** The main transcript's entries plus every subagent's, for statistics. */
export const readWithSubagents = (
  projects: ClaudeProjects.ClaudeProjects,
  session: ClaudeProjects.SessionFile
) =>
  Effect.gen(function*() {
    const main = yield* projects.readSession(session.projectKey, session.sessionId)
    const subagents = yield* projects.readSubagents(session.projectKey, session.sessionId)
    const malformed: Array<MalformedFile> = [
      { file: session.file, lines: main.errors.length },
      ...subagents.map((read) => ({ file: read.file, lines: read.errors.length }))
    ].filter((file) => file.lines > 0)
    return {
      main,
      entries: [...main.entries, ...subagents.flatMap((read) => read.entries)],
      errors: main.errors.length + subagents.reduce((sum, read) => sum + read.errors.length, 0),
      malformed
    }
  })

/** `storeSource.ts`, imported when a command is given `--from` (its SQL drivers load with it). */
export const storeSource = () => import("./storeSource.js")

export { isStoreBacked } from "./storeBacked.js"

/**
 * Where a reading command reads: the store `--from` names, else the config directory
 * ({@link projectsLayer}), as the one `ClaudeProjects` service either way. The store's code
 * (`storeSource.ts`: its SQL drivers) is imported only when `--from` is given, so reading a config
 * directory loads no SQL client.
 */
export const readingLayer = (
  from: string | undefined,
  configDir: string | undefined,
  options: { readonly followSymlinks?: boolean } = {}
): Layer.Layer<
  ClaudeProjects.ClaudeProjects,
  CliError.CliError | SessionStore.SessionStoreError,
  FileSystem.FileSystem | CurrentIo.CurrentIo
> =>
  from === undefined
    ? projectsLayer(configDir, options)
    : Layer.unwrapEffect(
      Effect.map(
        Effect.promise(storeSource),
        (store) => Layer.scoped(ClaudeProjects.ClaudeProjects, Effect.map(store.openStore(from), store.storeProjects))
      )
    )
