/**
 * The `acx` executable's entry point.
 *
 * @since 0.1.0
 */
import { run } from "./Cli.js"

// A closed pipe (`acx show … | head`) is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

run(process.argv).then((code) => {
  process.exitCode = code
})
