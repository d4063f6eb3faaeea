import { encodeProjectDir, isValidProjectDirName, projectDirName, projectDirOverride } from "@acx/convert/ProjectDir"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"

// The SDK's own encoder is not exported: read it out of sdk.mjs (the function that cuts the
// name at 200 and appends the base-36 hash), so our encoding is compared with the real one.
// Minified names may hold `$` (0.3.337 calls the hash `$Ne`), hence `[\w$]+`, never `\w+`.
const sdkEncoder = (): ((p: string) => string) | undefined => {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk")
  const source = fs.readFileSync(entry, "utf8")
  const hash =
    /function ([\w$]+)\(e\)\{let t=0;for\(let n=0;n<e\.length;n\+\+\)t=\(t<<5\)-t\+e\.charCodeAt\(n\)\|0;return t\}/
      .exec(source)
  const encode =
    /var ([\w$]+)=200;function ([\w$]+)\(e\)\{return Math\.abs\(([\w$]+)\(e\)\)\.toString\(36\)\}function ([\w$]+)\(e\)\{return e\.replace\(\/\[\^a-zA-Z0-9\]\/g,"-"\)\}function ([\w$]+)\(e\)\{let t=\4\(e\);if\(t\.length<=\1\)return t;return`\$\{t\.slice\(0,\1\)\}-\$\{\2\(e\)\}`\}/
      .exec(source)
  if (hash === null || encode === null || encode[3] !== hash[1]) return undefined
  const body = `${hash[0]};${encode[0]};return ${encode[5]}`
  return new Function(body)() as (p: string) => string
}

// The SDK's check of CLAUDE_CODE_PROJECT_DIR_NAME: its two patterns, read out of sdk.mjs.
const sdkNameCheck = (): ((name: string) => boolean) | undefined => {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk"), "utf8")
  const check = /function [\w$]+\(e\)\{if\(!e\|\|!([\w$]+)\.test\(e\)\|\|([\w$]+)\.test\(e\)\)return;return e\}/.exec(
    source
  )
  if (check === null) return undefined
  const pattern = (name: string) =>
    new RegExp(`(?<![\\w$])${name.replaceAll("$", "\\$")}=(/[^\\n]*?/[a-z]*)[,;]`).exec(source)?.[1]
  const valid = pattern(check[1]!)
  const reserved = pattern(check[2]!)
  if (valid === undefined || reserved === undefined) return undefined
  const toRegExp = (literal: string) => {
    const end = literal.lastIndexOf("/")
    return new RegExp(literal.slice(1, end), literal.slice(end + 1))
  }
  const [validRe, reservedRe] = [toRegExp(valid), toRegExp(reserved)]
  return (name) => name !== "" && validRe.test(name) && !reservedRe.test(name)
}

const long = "/" + Array.from({ length: 23 }, (_, i) => `segment-${String(i).padStart(2, "0")}`).join("/")

describe("encodeProjectDir", () => {
  it("replaces every non-alphanumeric character", () => {
    expect(encodeProjectDir("/srv/app/my.proj")).toBe("-srv-app-my-proj")
    expect(encodeProjectDir("/home/u_1/a b")).toBe("-home-u-1-a-b")
  })

  it("replaces each UTF-16 code unit of non-ASCII characters", () => {
    expect(encodeProjectDir("/tmp/café")).toBe("-tmp-caf-")
    expect(encodeProjectDir("/tmp/😀")).toBe("-tmp---")
  })

  it("cuts long names at 200 characters and appends the hash of the original path", () => {
    expect(long.length).toBe(253)
    const encoded = encodeProjectDir(long)
    expect(encoded.slice(0, 200)).toBe(long.replace(/[^a-zA-Z0-9]/g, "-").slice(0, 200))
    expect(encoded.slice(200)).toBe("-xzbr6m")
    expect(encodeProjectDir("/x".repeat(100))).toBe("-x".repeat(100))
    expect(encodeProjectDir("/x".repeat(101))).toMatch(/^(-x){100}-[0-9a-z]+$/)
  })

  it("agrees with the SDK's own encoder", () => {
    const sdk = sdkEncoder()
    expect(sdk).toBeDefined()
    if (sdk === undefined) return
    for (const p of ["/srv/app/my.proj", long, "/tmp/café/😀", "/" + "é".repeat(250), "/a".repeat(150), "/"]) {
      expect(encodeProjectDir(p)).toBe(sdk(p))
    }
  })
})

const nameChars = fc.constantFrom(..."abcXYZ019_-".split(""))
const validName = fc.array(nameChars, { minLength: 1, maxLength: 64 }).map((chars) => chars.join(""))
  .filter(isValidProjectDirName)
const anyPath = fc.array(fc.string(), { maxLength: 6 }).map((parts) => "/" + parts.join("/"))
const configured = (name: string) => ({ CLAUDE_CONFIG_DIR: "/c", CLAUDE_CODE_PROJECT_DIR_NAME: name })

describe("projectDirName (CLAUDE_CODE_PROJECT_DIR_NAME)", () => {
  it("is the variable, whatever the path, when a config dir is set and the name is valid", () => {
    expect(projectDirName("/p", configured("my_proj"))).toBe("my_proj")
    fc.assert(fc.property(anyPath, validName, (p, name) => projectDirName(p, configured(name)) === name))
  })

  it("is the path's encoding without the variable, without CLAUDE_CONFIG_DIR, or with a name Claude Code refuses", () => {
    expect(projectDirName("/p", { CLAUDE_CODE_PROJECT_DIR_NAME: "my_proj" })).toBe("-p")
    expect(projectDirName("/p", { CLAUDE_CONFIG_DIR: "", CLAUDE_CODE_PROJECT_DIR_NAME: "my_proj" })).toBe("-p")
    for (const bad of ["", "a/b", "..", "a.b", "x".repeat(65), "NUL", "com1", "Lpt9", "é", "a b"]) {
      expect(projectDirOverride(configured(bad))).toBeUndefined()
      expect(projectDirName("/p", configured(bad))).toBe("-p")
    }
    fc.assert(fc.property(anyPath, (p) => projectDirName(p, { CLAUDE_CONFIG_DIR: "/c" }) === encodeProjectDir(p)))
  })

  it("is always one safe path segment", () => {
    fc.assert(fc.property(anyPath, fc.string(), fc.boolean(), (p, name, withConfig) => {
      const dir = projectDirName(p, {
        CLAUDE_CODE_PROJECT_DIR_NAME: name,
        ...(withConfig ? { CLAUDE_CONFIG_DIR: "/c" } : {})
      })
      return dir !== "" && dir !== "." && dir !== ".." && !dir.includes("/") && !dir.includes("\\")
    }))
  })

  it("accepts exactly the names the SDK accepts", () => {
    const sdk = sdkNameCheck()
    expect(sdk).toBeDefined()
    if (sdk === undefined) return
    for (
      const name of ["my_proj", "", "a/b", "x".repeat(64), "x".repeat(65), "NUL", "nul1", "com0", "LPT5", "prn", "a.b"]
    ) {
      expect(isValidProjectDirName(name)).toBe(sdk(name))
    }
    const names = fc.oneof(fc.string({ maxLength: 70 }), validName, fc.constantFrom("con", "AUX", "com9", "lpt1"))
    fc.assert(fc.property(names, (name) => isValidProjectDirName(name) === sdk(name)))
  })
})
