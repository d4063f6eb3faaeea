/**
 * The `acx` executable's entry point.
 *
 * @since 0.1.0
 */
import { run } from "./Cli.js"

// `pnpm acx …` from another directory: the bin (bin/acx.mjs) changed to it before loading this.

// A closed pipe (`acx show … | head`) is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

run(process.argv).then((code) => {
  process.exitCode = code
})
