/**
 * `acx` on a real terminal: util-linux `script` runs the command with its stdin and stdout on one
 * pty, so the CLI takes its interactive paths (prompts, questions, a failed turn that does not end
 * the chat).
 */
import { type ChildProcess, spawn } from "node:child_process"

/** A command on a pty: what it printed so far, waiting for a text, typing, its exit. */
export interface Terminal {
  readonly child: ChildProcess
  /** Everything the command printed so far (stdout and stderr share the pty). */
  readonly output: () => string
  /** Resolves once `text` was printed; rejects with the output after `timeoutMs`. */
  readonly waitFor: (text: string, timeoutMs?: number) => Promise<void>
  /** Types `text` (a line ends with `\r`, as a terminal sends Enter). */
  readonly type: (text: string) => void
  /** The exit code, once the command ended. */
  readonly exited: Promise<number | null>
}

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`

/** Starts `argv` on a pty in `cwd` with `env`. The caller kills `child` when done. */
export const onTerminal = (
  argv: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv }
): Terminal => {
  // `exec`: `script` runs the command through $SHELL (or /bin/sh) -c; dash, unlike bash, would
  // stay between `script` and the command, get the Ctrl-C too and die of it (exit 130)
  const child = spawn("script", ["-qfec", `exec ${argv.map(quote).join(" ")}`, "/dev/null"], options)
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  return {
    child,
    output: () => output,
    waitFor: async (text, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      while (!output.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} in: ${output}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    type: (text) => void child.stdin.write(text),
    exited
  }
}
