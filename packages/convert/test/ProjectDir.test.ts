import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { createRequire } from "node:module"

// The SDK's own encoder is not exported: read it out of sdk.mjs (the function that cuts the
// name at 200 and appends the base-36 hash), so our encoding is compared with the real one.
const sdkEncoder = (): ((p: string) => string) | undefined => {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk")
  const source = fs.readFileSync(entry, "utf8")
  const hash =
    /function (\w+)\(e\)\{let t=0;for\(let n=0;n<e\.length;n\+\+\)t=\(t<<5\)-t\+e\.charCodeAt\(n\)\|0;return t\}/
      .exec(source)
  const encode =
    /var (\w+)=200;function (\w+)\(e\)\{return Math\.abs\((\w+)\(e\)\)\.toString\(36\)\}function (\w+)\(e\)\{return e\.replace\(\/\[\^a-zA-Z0-9\]\/g,"-"\)\}function (\w+)\(e\)\{let t=\4\(e\);if\(t\.length<=\1\)return t;return`\$\{t\.slice\(0,\1\)\}-\$\{\2\(e\)\}`\}/
      .exec(source)
  if (hash === null || encode === null || encode[3] !== hash[1]) return undefined
  const body = `${hash[0]};${encode[0]};return ${encode[5]}`
  return new Function(body)() as (p: string) => string
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
