/**
 * Where a session came from, as a team sees it: the machine (hostname, or a name given), the OS
 * user, and the project (`@acx/convert/ProjectIdentity`: the git remote of the repository its
 * working directory is in, normalised, else the working directory itself).
 *
 * The repository is found as git finds it: from the working directory up to the file system's
 * root, the first `.git` — a directory (`.git/config`), or a file `gitdir: PATH` (a worktree or a
 * submodule: its config is in the `commondir` that PATH names, else in PATH). Only the config
 * file is read, at most 256 KiB of it; a working directory that no longer exists, or a config that
 * cannot be read, names the project by its path. Never fails.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Plain from "./internal/projectOrigin.js"

/**
 * The machine and user of an origin; the plain reading ({@link remoteUrlOf},
 * {@link projectOfDirectory}, {@link projectsOfSessions}, {@link originsOfSessions},
 * {@link localOrigin}) lives in a module without Effect, which `PlainListing` imports.
 *
 * @since 0.3.0
 * @category models
 */
export type Origin = Plain.Origin

/**
 * @since 0.3.0
 * @category identity
 */
export { localOrigin, remoteUrlOf } from "./internal/projectOrigin.js"

/**
 * {@link projectOf} and {@link projectsOf} without Effect (for a reader that starts without it:
 * the CLI's plain commands), and the origins of sessions listed from this machine's config
 * directory (`StatsOrigins.ofProjects` and `PlainListing.sessionsListing` give these).
 *
 * @since 0.5.0
 * @category identity
 */
export { originsOfSessions, projectOfDirectory, projectsOfSessions } from "./internal/projectOrigin.js"

/**
 * The project a working directory belongs to, as one string (`ProjectIdentity.format`): the
 * normalised remote of its repository, else the directory.
 *
 * @since 0.3.0
 * @category identity
 */
export const projectOf = (cwd: string): Effect.Effect<string> => Effect.sync(() => Plain.projectOfDirectory(cwd))

/**
 * The project of each session (by `projectKey/sessionId`): {@link projectOf} its working
 * directory, read once per directory; the project key when the transcript names none.
 *
 * @since 0.3.0
 * @category identity
 */
export const projectsOf = (
  sessions: ReadonlyArray<
    { readonly projectKey: string; readonly sessionId: string; readonly cwd?: string | undefined }
  >
): Effect.Effect<Map<string, string>> => Effect.sync(() => Plain.projectsOfSessions(sessions))
