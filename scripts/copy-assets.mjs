// Copies the files of each library package's `src/` that tsc does not emit (scripts such as the
// stand-in CLI's `cli.mjs`, SQL, assets) into its `dist/`, at the same relative path, so the
// installed package finds them next to the compiled module that uses them.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const packagesDir = fileURLToPath(new URL("../packages/", import.meta.url))

const walk = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? walk(full) : [full]
  })

let copied = 0
for (const name of fs.readdirSync(packagesDir)) {
  const src = path.join(packagesDir, name, "src")
  const dist = path.join(packagesDir, name, "dist")
  if (!fs.existsSync(src) || !fs.existsSync(dist)) continue
  for (const file of walk(src)) {
    if (file.endsWith(".ts")) continue
    const target = path.join(dist, path.relative(src, file))
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(file, target)
    copied++
  }
}
console.log(`copy-assets: ${copied} file(s) copied into dist/`)
