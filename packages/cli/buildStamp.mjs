// The CLI build's stamp: which files a build read, so `pnpm acx …` rebuilds only when one changed.
// build.mjs records, in dist/'s manifest (.build-files.json), the time the build started and the
// mtime of every input esbuild reported in its metafiles (the CLI's and the workspace packages'
// TypeScript sources, the dependencies' JavaScript), of the files it copies (the observer's
// prompts, the page's index.html) and of the build scripts themselves. The bundle is fresh while
// every entry file is in dist/ and every input still exists with the mtime recorded, none of them
// changed after the build started (an edit while esbuild ran is not in the bundle). A new source
// file matters only once a recorded one imports it, and that one's mtime then changed; a
// reinstalled dependency of another version lives under another path, which is missing.
import * as fs from "node:fs"
import * as path from "node:path"

/** dist/'s manifest: the build's files, and its inputs with their mtimes. */
export const MANIFEST = ".build-files.json"

/** The mtime of every input, keyed by its path relative to `base`. */
export const stampInputs = (base, inputs) => {
  const stamped = {}
  for (const input of inputs) {
    try {
      stamped[path.relative(base, input)] = fs.statSync(input).mtimeMs
    } catch {
      // a virtual module of esbuild's (not a file): nothing to watch
    }
  }
  return stamped
}

/**
 * Why dist/ must be built again, or undefined when the build there is current: a missing entry or
 * manifest, a manifest of a build before stamps, or the first input that changed.
 */
export const staleReason = (dist, base, entries) => {
  for (const entry of entries) {
    if (!fs.existsSync(path.join(dist, entry))) return `${entry} is missing`
  }
  let manifest
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dist, MANIFEST), "utf8"))
  } catch {
    return "no build manifest"
  }
  if (typeof manifest.startedAt !== "number" || typeof manifest.inputs !== "object" || manifest.inputs === null) {
    return "the last build recorded no inputs"
  }
  for (const [input, mtimeMs] of Object.entries(manifest.inputs)) {
    let now
    try {
      now = fs.statSync(path.resolve(base, input)).mtimeMs
    } catch {
      return `${input} is gone`
    }
    if (now !== mtimeMs || now >= manifest.startedAt) return `${input} changed`
  }
  return undefined
}
