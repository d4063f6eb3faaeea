// Builds the page's browser assets into dist/assets (or the directory given as the first
// argument): the app (Preact, markdown-it and uPlot bundled and minified into one script), its
// style sheet and index.html. Everything the page loads is served from there: no CDN, no remote
// font, nothing inline (the Content Security Policy forbids inline scripts).
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

/**
 * Builds the assets into `outdir`; resolves to the files written. `inputs`, when given, receives
 * the path of every file the build read (the CLI's build stamp).
 */
export const buildWeb = async (outdir = path.join(here, "dist/assets"), inputs = undefined) => {
  fs.mkdirSync(outdir, { recursive: true })
  const result = await esbuild.build({
    entryPoints: { app: path.join(here, "web/main.tsx"), style: path.join(here, "web/style.css") },
    outdir,
    bundle: true,
    minify: true,
    format: "esm",
    target: ["chrome110", "firefox110", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "linked",
    logLevel: "warning",
    tsconfig: path.join(here, "tsconfig.web.json"),
    // the workspace packages the page imports (`@acx/convert/TextDiff`) from their TypeScript
    // sources: a fresh clone builds the page before any package's dist/ exists
    conditions: ["@acx/source"],
    metafile: inputs !== undefined
  })
  if (inputs !== undefined) {
    for (const input of Object.keys(result.metafile.inputs)) inputs.add(path.resolve(input))
    for (const name of ["web/index.html", "web/favicon.svg", "tsconfig.web.json"]) inputs.add(path.join(here, name))
  }
  fs.copyFileSync(path.join(here, "web/index.html"), path.join(outdir, "index.html"))
  fs.copyFileSync(path.join(here, "web/favicon.svg"), path.join(outdir, "favicon.svg"))
  return fs.readdirSync(outdir)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildWeb(process.argv[2] === undefined ? undefined : path.resolve(process.argv[2]))
  console.log(`ui: ${files.length} asset file(s) built`)
}
