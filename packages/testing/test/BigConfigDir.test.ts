/**
 * The generated config directory is a pure function of its options: the benchmarks compare runs
 * and machines on it, so a change to the generator that changes one byte of what it writes (a
 * draw of the seeded generator moved, an entry's field reordered) fails here. The digest covers
 * every file's path and bytes (the marker, which names the directory, left out).
 */
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-big-config-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const digestOf = (dir: string): string => {
  const hash = createHash("sha256")
  const files = (fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) as Array<string>).sort()
  for (const file of files) {
    const full = path.join(dir, file)
    if (file !== ".acx-big-config-dir.json" && fs.statSync(full).isFile()) {
      hash.update(file).update(fs.readFileSync(full))
    }
  }
  return hash.digest("hex")
}

describe("generateBigConfigDir", () => {
  it("writes the same bytes for the same options", () => {
    const options = { sessions: 13, bytes: 900_000, seed: 7, subagentEvery: 2, cwds: ["/a/b", "/c"] }
    const result = generateBigConfigDir({ dir: path.join(root, "one"), ...options })
    expect({ ...result, configDir: undefined }).toEqual({
      configDir: undefined,
      sessions: 13,
      subagents: 6,
      lines: 622,
      bytes: 1031297
    })
    expect(digestOf(result.configDir)).toBe(DIGEST)
    // another directory, the same options: the same tree
    expect(digestOf(generateBigConfigDir({ dir: path.join(root, "two"), ...options }).configDir)).toBe(DIGEST)
  })
})

const DIGEST = "890428841b217eb673a2bf72b7c4b6bef6eb0d82707e3ebd95d00a8fe0d633b2"
