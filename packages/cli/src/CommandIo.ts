/**
 * What a command reads and writes besides its options: stdout and stderr, the environment, the
 * working directory, stdin and whether stdout is a terminal. The binary gives the process's own
 * ({@link processIo}); a test gives its own to run a command in process.
 *
 * @since 0.6.0
 */

/**
 * A command's I/O.
 *
 * @since 0.6.0
 * @category models
 */
export interface CommandIo {
  /** Writes to stdout; resolves when the text is handed over (waits while the pipe is full). */
  readonly stdout: (text: string) => Promise<void>
  readonly stderr: (text: string) => void
  readonly env: { readonly [name: string]: string | undefined }
  readonly cwd: string
  readonly stdin: NodeJS.ReadableStream
  /** Whether stdout is a terminal (colour, live redraws). */
  readonly isTTY: boolean
  /** Whether stderr is a terminal (progress bars). */
  readonly stderrIsTTY: boolean
  /** The command line as `process.argv` has it (node, the bin, then the words). */
  readonly argv: ReadonlyArray<string>
}

/**
 * The process's own I/O.
 *
 * @since 0.6.0
 * @category constructors
 */
export const processIo = (argv: ReadonlyArray<string> = process.argv): CommandIo => ({
  stdout: (text) =>
    new Promise((resolve) => {
      if (process.stdout.write(text)) resolve()
      else process.stdout.once("drain", () => resolve())
    }),
  stderr: (text) => {
    process.stderr.write(text)
  },
  env: process.env,
  cwd: process.cwd(),
  // a getter: touching process.stdin opens it, which a command that reads none must not pay for
  get stdin() {
    return process.stdin
  },
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  argv
})
