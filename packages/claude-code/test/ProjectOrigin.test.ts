/**
 * The project of a working directory, found as git finds its repository: real repositories made
 * with `git`, a linked worktree, a `.git` file, a FIFO where the config should be, a directory that
 * is gone.
 */
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-project-origin-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, { cwd, stdio: "pipe", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root } })

describe("ProjectOrigin", () => {
  it.effect("names a repository by its normalised remote, from any directory inside it", () =>
    Effect.gen(function*() {
      const repo = path.join(root, "app")
      fs.mkdirSync(path.join(repo, "src", "deep"), { recursive: true })
      git(repo, "init", "-q")
      git(repo, "remote", "add", "origin", "https://bot:ghp_SECRETtoken123@GitHub.com/Org/App.git")
      expect(yield* ProjectOrigin.projectOf(repo)).toBe("github.com/Org/App")
      expect(yield* ProjectOrigin.projectOf(path.join(repo, "src", "deep"))).toBe("github.com/Org/App")

      // a linked worktree has a `.git` file; its config is the main repository's
      git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
      const tree = path.join(root, "app-feature")
      git(repo, "worktree", "add", "-q", tree)
      expect(fs.statSync(path.join(tree, ".git")).isFile()).toBe(true)
      expect(yield* ProjectOrigin.projectOf(tree)).toBe("github.com/Org/App")
    }))

  it.effect("falls back to the path: no repository, no remote, a local remote, a gone directory", () =>
    Effect.gen(function*() {
      const plain = path.join(root, "plain")
      fs.mkdirSync(plain)
      expect(yield* ProjectOrigin.projectOf(plain)).toBe(plain)
      const local = path.join(root, "local")
      fs.mkdirSync(local)
      git(local, "init", "-q")
      expect(yield* ProjectOrigin.projectOf(local)).toBe(local)
      git(local, "remote", "add", "origin", "/srv/git/local.git")
      expect(yield* ProjectOrigin.projectOf(local)).toBe(local)
      const gone = path.join(root, "gone", "away")
      expect(yield* ProjectOrigin.projectOf(gone)).toBe(gone)
      expect(yield* ProjectOrigin.projectOf("relative/dir")).toBe("relative/dir")
    }))

  it.effect("never blocks on a FIFO or a dangling gitdir", () =>
    Effect.gen(function*() {
      const fifo = path.join(root, "fifo")
      fs.mkdirSync(path.join(fifo, ".git"), { recursive: true })
      execFileSync("mkfifo", [path.join(fifo, ".git", "config")])
      expect(yield* ProjectOrigin.projectOf(fifo)).toBe(fifo)
      const dangling = path.join(root, "dangling")
      fs.mkdirSync(dangling)
      fs.writeFileSync(path.join(dangling, ".git"), "gitdir: ../nowhere/.git/worktrees/x\n")
      expect(yield* ProjectOrigin.projectOf(dangling)).toBe(dangling)
    }))

  it("names this machine and user unless told", () => {
    expect(ProjectOrigin.localOrigin({ machine: "ci-7", user: "ana" })).toEqual({ machine: "ci-7", user: "ana" })
    const local = ProjectOrigin.localOrigin()
    expect(local.machine).toBe(os.hostname())
    expect(local.user.length).toBeGreaterThan(0)
  })
})
