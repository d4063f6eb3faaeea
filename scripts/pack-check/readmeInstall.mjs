// The install commands of README.md's "Install (app users)" section, exactly as written there:
// line 1 the app-user line (the `npm install` line of the section's first bash block), line 2 the
// SDK's (the inline `npm install @anthropic-ai/claude-agent-sdk…` in its text). pack-check runs
// them as they are, so the documented line is the one proven.
// With a package.json after README.md, it also checks that the app-user line pins each of that
// package's (non-@acx) peers it names to exactly the peer range: a bare `effect` is whatever npm's
// `latest` is that day (Effect 4 since it was published), not the line acx is built on.
// Usage: node readmeInstall.mjs README.md [packages/storage/package.json]
import * as fs from "node:fs"

const readme = fs.readFileSync(process.argv[2] ?? "README.md", "utf8")
const start = readme.indexOf("\n## Install (app users)\n")
if (start < 0) throw new Error("README.md has no \"## Install (app users)\" section")
const rest = readme.slice(start + 1)
const next = rest.indexOf("\n## ")
const section = next < 0 ? rest : rest.slice(0, next)

const block = /```bash\n([\s\S]*?)```/.exec(section)
const appLine = block?.[1].split("\n").find((line) => line.startsWith("npm install "))
if (appLine === undefined) throw new Error("the Install section's bash block has no `npm install` line")
const sdkLine = /`(npm install @anthropic-ai\/claude-agent-sdk[^`]*)`/.exec(section)?.[1]
if (sdkLine === undefined) throw new Error("the Install section does not say how to install the SDK")
const line = appLine.replace(/\s+#.*$/, "").trim()

const manifestPath = process.argv[3]
if (manifestPath !== undefined) {
  const peers = JSON.parse(fs.readFileSync(manifestPath, "utf8")).peerDependencies ?? {}
  const specs = line.split(/\s+/).slice(2)
  for (const spec of specs) {
    const at = spec.indexOf("@", 1)
    const name = at < 0 ? spec : spec.slice(0, at)
    const range = at < 0 ? undefined : spec.slice(at + 1)
    if (name.startsWith("@acx/") || !(name in peers)) continue
    if (range !== peers[name]) {
      console.error(
        `README's install line: ${spec} must be ${name}@${peers[name]} (the range acx is built and tested on)`
      )
      process.exit(1)
    }
  }
}
console.log(line)
console.log(sdkLine)
