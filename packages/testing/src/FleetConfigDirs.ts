/**
 * A fleet of simulated machines for a team's hub: one home per machine, each with a Claude Code
 * config directory (`<home>/.claude`, {@link BigConfigDir.generateBigConfigDir} with a seed of
 * its own, so no two machines share a session id) whose sessions sit in project directories
 * chosen to exercise the project identity (docs/design.md, "A project across machines"):
 *
 * - `/home/dev/app`: the same path on every machine and no repository there (it need not exist):
 *   one project named by its path, its sessions recorded under each machine;
 * - `<home>/src/app`: a repository whose `origin` is the one shared remote, spelled the ssh way
 *   on even machines and the https way on odd ones: one project `github.com/org/app` across
 *   the fleet, at a different path on each machine;
 * - `<home>/work/tool-<n>`: a repository whose remote is one of four (`ssh://` URLs), shared by
 *   every fourth machine;
 * - `<home>/scratch`: a directory of the machine's own without a repository.
 *
 * Each repository is a `.git/config` only (all a project's identity reads). Deterministic, and
 * reused like a big config dir: the same options write the same bytes.
 *
 * @since 0.3.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { type BigConfigDir, generateBigConfigDir } from "./BigConfigDir.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface FleetOptions {
  /** The directory that holds every machine's home (created). */
  readonly root: string
  /** How many machines; named `m01`, `m02`, … */
  readonly machines: number
  /** Main sessions per machine; default 200. */
  readonly sessions?: number | undefined
  /** Approximate transcript bytes per machine; default 5 MB. */
  readonly bytes?: number | undefined
  /** Added to every machine's seed: another fleet of the same shape, other sessions. */
  readonly seed?: number | undefined
}

/**
 * A working directory the sessions of a machine name, and the project a sync must record for it.
 *
 * @since 0.3.0
 * @category models
 */
export interface FleetProject {
  readonly cwd: string
  /** `github.com/org/…` for a repository with a remote, else the directory itself. */
  readonly project: string
}

/**
 * @since 0.3.0
 * @category models
 */
export interface FleetMachine {
  readonly name: string
  readonly home: string
  /** `<home>/.claude` */
  readonly configDir: string
  readonly generated: BigConfigDir
  /** Session `i` of the machine is in `projects[i % projects.length]`. */
  readonly projects: ReadonlyArray<FleetProject>
}

/**
 * The one remote the fleet's `app` repositories share, as a project is named after it.
 *
 * @since 0.3.0
 * @category constants
 */
export const SHARED_PROJECT = "github.com/org/app"

/**
 * The directory without a repository every machine's sessions name.
 *
 * @since 0.3.0
 * @category constants
 */
export const SHARED_PATH = "/home/dev/app"

const writeRepository = (dir: string, remote: string): void => {
  fs.mkdirSync(path.join(dir, ".git"), { recursive: true })
  fs.writeFileSync(
    path.join(dir, ".git", "config"),
    `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`
  )
}

/**
 * The machine's name: `m01` for machine 0.
 *
 * @since 0.3.0
 * @category constructors
 */
export const machineName = (index: number): string => `m${String(index + 1).padStart(2, "0")}`

/**
 * Writes (or reuses) every machine's home; see the module docs.
 *
 * @since 0.3.0
 * @category constructors
 */
export const generateFleet = (options: FleetOptions): ReadonlyArray<FleetMachine> =>
  Array.from({ length: Math.max(1, Math.floor(options.machines)) }, (_, index) => {
    const name = machineName(index)
    const home = path.resolve(options.root, name)
    const tool = index % 4
    const app = path.join(home, "src", "app")
    const work = path.join(home, "work", `tool-${tool}`)
    writeRepository(app, index % 2 === 0 ? "git@github.com:org/app.git" : "https://github.com/org/app")
    writeRepository(work, `ssh://git@github.com/org/tool-${tool}.git`)
    const scratch = path.join(home, "scratch")
    fs.mkdirSync(scratch, { recursive: true })
    const projects: ReadonlyArray<FleetProject> = [
      { cwd: SHARED_PATH, project: SHARED_PATH },
      { cwd: app, project: SHARED_PROJECT },
      { cwd: work, project: `github.com/org/tool-${tool}` },
      { cwd: scratch, project: scratch }
    ]
    const configDir = path.join(home, ".claude")
    const generated = generateBigConfigDir({
      dir: configDir,
      sessions: options.sessions ?? 200,
      bytes: options.bytes ?? 5_000_000,
      seed: (options.seed ?? 0) + index + 1,
      cwds: projects.map((project) => project.cwd)
    })
    return { name, home, configDir, generated, projects }
  })
