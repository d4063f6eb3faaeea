import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/** Bundles the CLI before the end-to-end tests spawn it, so they always run the current sources. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../../build.mjs", import.meta.url))], { stdio: "inherit" })
}
