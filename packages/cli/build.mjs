// Bundles the CLI (and the workspace packages it uses, which ship TypeScript sources) into
// dist/acx.mjs; third-party packages stay external and load from node_modules.
import * as esbuild from "esbuild"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

const externalDependencies = {
  name: "external-dependencies",
  setup(build) {
    build.onResolve(
      { filter: /^[^./]/ },
      (args) => args.path.startsWith("@acx/") ? undefined : { path: args.path, external: true }
    )
  }
}

await esbuild.build({
  entryPoints: [path.join(here, "src/bin.ts")],
  outfile: path.join(here, "dist/acx.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  plugins: [externalDependencies]
})
