import * as ProjectIdentity from "@acx/convert/ProjectIdentity"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,11}$/)
const host = fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 3 })
  .map((labels) => [...labels, "com"].join("."))
const secret = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).map((s) => `Sx${s}`)

// every spelling git accepts for one remote, with a user, credentials, a port, `.git`, `/`, case
const spellings = (h: string, path: string, token: string): Array<string> => [
  `git@${h}:${path}.git`,
  `git@${h}:${path}`,
  `${h}:${path}.git`,
  `ssh://git@${h}/${path}.git`,
  `ssh://git@${h}:2222/${path}`,
  `git+ssh://git@${h}/${path}`,
  `https://${h}/${path}`,
  `https://${h.toUpperCase()}/${path}.git/`,
  `https://user:${token}@${h}/${path}.git`,
  `http://${token}@${h}:8080/${path}/`,
  `git://${h}/${path}.git`
]

describe("ProjectIdentity.normaliseRemote", () => {
  it("names every spelling of one remote the same, without user, port or credentials", () => {
    fc.assert(
      fc.property(host, fc.array(segment, { minLength: 1, maxLength: 3 }), secret, (h, parts, token) => {
        const path = parts.join("/")
        const names = spellings(h, path, token).map(ProjectIdentity.normaliseRemote)
        expect(new Set(names)).toEqual(new Set([`${h}/${path}`]))
        for (const name of names) expect(name).not.toContain(token)
      })
    )
  })

  it("is total: any text gives a name or undefined, and never throws", () => {
    fc.assert(fc.property(fc.fullUnicodeString({ maxLength: 200 }), (text) => {
      const name = ProjectIdentity.normaliseRemote(text)
      expect(name === undefined || (typeof name === "string" && name.length > 0)).toBe(true)
    }))
  })

  it("names no shared project for local paths and file URLs", () => {
    for (
      const local of [
        "/srv/git/app.git",
        "../app",
        "./app.git",
        "app",
        "file:///srv/git/app.git",
        "C:\\repos\\app",
        "C:/repos/app",
        "",
        "   ",
        "https://github.com/",
        "https://github.com/../x",
        "ftp://github.com/org/repo",
        "git@github.com:",
        "git@github.com: org/repo"
      ]
    ) expect([local, ProjectIdentity.normaliseRemote(local)]).toEqual([local, undefined])
  })

  it("reads the common forms as a user pastes them", () => {
    expect(ProjectIdentity.normaliseRemote("git@github.com:Effect-TS/effect.git")).toBe("github.com/Effect-TS/effect")
    expect(ProjectIdentity.normaliseRemote("https://gitlab.example.org/group/sub/project.git"))
      .toBe("gitlab.example.org/group/sub/project")
    expect(ProjectIdentity.normaliseRemote("ssh://git@bitbucket.org:7999/team/repo.git")).toBe(
      "bitbucket.org/team/repo"
    )
    expect(ProjectIdentity.normaliseRemote("https://github.com/org/repo%20x")).toBe("github.com/org/repo x")
  })
})

describe("ProjectIdentity.remoteUrlOf", () => {
  it("takes origin's url, else the first remote's", () => {
    const config = [
      "[core]",
      "\trepositoryformatversion = 0",
      "[remote \"upstream\"]",
      "\turl = https://github.com/up/stream.git",
      "[branch \"main\"]",
      "\tremote = origin",
      "[remote \"origin\"]",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      "\turl = \"git@github.com:org/repo.git\" ; mine",
      ""
    ].join("\n")
    expect(ProjectIdentity.remoteUrlOf(config)).toBe("git@github.com:org/repo.git")
    expect(ProjectIdentity.remoteUrlOf(config.replace("\"origin\"]", "\"fork\"]"))).toBe(
      "https://github.com/up/stream.git"
    )
    expect(ProjectIdentity.remoteUrlOf("[core]\n\tbare = false\n")).toBeUndefined()
    expect(ProjectIdentity.remoteUrlOf("[remote \"origin\"]\r\n\turl = https://h.com/a/b # note\r\n")).toBe(
      "https://h.com/a/b"
    )
  })

  it("is total over any text", () => {
    fc.assert(fc.property(fc.fullUnicodeString({ maxLength: 300 }), (text) => {
      const url = ProjectIdentity.remoteUrlOf(text)
      expect(url === undefined || typeof url === "string").toBe(true)
    }))
  })
})

describe("ProjectIdentity.identify", () => {
  it("is the remote when it names a shared project, else the path", () => {
    expect(ProjectIdentity.format(ProjectIdentity.identify({ path: "/home/a/app", remoteUrl: "git@h.com:o/r.git" })))
      .toBe("h.com/o/r")
    expect(ProjectIdentity.identify({ path: "/home/a/app", remoteUrl: "/srv/r.git" })).toEqual({
      _tag: "Path",
      path: "/home/a/app"
    })
    expect(ProjectIdentity.identify({ path: "/home/a/app" })).toEqual({ _tag: "Path", path: "/home/a/app" })
  })
})
