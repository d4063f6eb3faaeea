/**
 * A hook's stdin read without `process.stdin` and without a read that could hold the process at
 * exit (`internal/fdInput.ts`): what `acx hook` reads, offered to the other small entries that
 * Claude Code runs and waits for (`acx statusline`).
 *
 * @since 0.4.0
 */
export {
  /**
   * @since 0.4.0
   * @category models
   */
  type StdinSource,
  /**
   * The process's stdin as an {@link HookRunner.InputSource}: a pipe polled without blocking,
   * anything else read on the thread pool (`readPending` says whether a read is still out).
   *
   * @since 0.4.0
   * @category reading
   */
  stdinSource
} from "./internal/fdInput.js"
