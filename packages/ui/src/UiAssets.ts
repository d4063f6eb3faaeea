/**
 * The page's built browser assets (app script, style sheet, index.html, icon), read into memory
 * when the server starts: a handful of files, served without touching the disk again.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { UiError } from "./UiError.js"

/**
 * One asset: its bytes and content type.
 *
 * @since 0.1.0
 * @category models
 */
export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json"
}

/**
 * Where the assets are looked for by default: `assets/` beside this module (the installed
 * package's `dist/`, or a bundle that copied them next to itself), else the package's
 * `dist/assets` (this module run from its sources).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultDirs = (): Array<string> => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  return [path.join(here, "assets"), path.join(here, "..", "dist", "assets")]
}

/**
 * Reads every asset of the first of `dirs` that holds an `index.html`; fails with `UiError`
 * (`Assets`) when none does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = (dirs: ReadonlyArray<string> = defaultDirs()): Effect.Effect<ReadonlyMap<string, Asset>, UiError> =>
  Effect.try({
    try: () => {
      const dir = dirs.find((candidate) => fs.existsSync(path.join(candidate, "index.html")))
      if (dir === undefined) return undefined
      const assets = new Map<string, Asset>()
      for (const name of fs.readdirSync(dir)) {
        const file = path.join(dir, name)
        if (!fs.statSync(file).isFile()) continue
        const contentType = CONTENT_TYPES[path.extname(name)] ?? "application/octet-stream"
        assets.set(name, { body: fs.readFileSync(file), contentType })
      }
      return assets
    },
    catch: (cause) => new UiError({ reason: "Assets", description: `cannot read the page's assets: ${cause}`, cause })
  }).pipe(
    Effect.flatMap((assets) =>
      assets === undefined
        ? Effect.fail(
          new UiError({
            reason: "Assets",
            description: `the page's assets are not built (looked in ${dirs.join(", ")}): run pnpm build`
          })
        )
        : Effect.succeed(assets)
    ),
    Effect.withSpan("UiAssets.load")
  )
