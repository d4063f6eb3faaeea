/**
 * The `acx` executable's entry point.
 *
 * @since 0.1.0
 */
import { run } from "./Cli.js"

// `pnpm acx …` runs the root script in the repository root; relative paths on the command line
// (`--to sqlite:./x.db`, `--dir out`) mean the directory pnpm was called from.
const callerDir = process.env["INIT_CWD"]
if (process.env["npm_lifecycle_event"] === "acx" && callerDir !== undefined && callerDir !== "") {
  process.chdir(callerDir)
}

// A closed pipe (`acx show … | head`) is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

run(process.argv).then((code) => {
  process.exitCode = code
})
