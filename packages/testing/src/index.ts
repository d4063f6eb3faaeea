/**
 * Test kits for acx users and acx's own tests: a faithful Acontext emulator on 127.0.0.1 with
 * fault injection (`AcontextEmulator.make` / `layer` for Effect code, `startAcontextEmulator`
 * for Promise code), a model double and the real Claude Code CLI offline against it, and a
 * scriptable stand-in for the Claude Code CLI that drives the real SDK's `query()` offline
 * (`prepareStandInCli`, `makeStandInCli`, `realisticConversation`, …).
 *
 * Neither this module nor its type declarations need an optional peer (vitest, the Claude Agent
 * SDK, `@effect/sql-sqlite-node`, `@acx/environment`, `@anthropic-ai/claude-code`): a project
 * without them compiles with `skipLibCheck: false`. The SessionStore suites for vitest, whose
 * declarations name vitest and the SDK, are `@acx/testing/vitest`.
 *
 * @since 0.1.0
 */

/**
 * The Acontext emulator: `AcontextEmulator.AcontextEmulator` (tag), `make`, `layer` and types.
 *
 * @since 0.1.0
 */
export * as AcontextEmulator from "./AcontextEmulator.js"

export {
  AcontextEmulatorError,
  type AcontextEmulatorHandle,
  type AcontextEmulatorOptions,
  type AcontextFault,
  type AcontextRequestLogEntry,
  type AcontextRoute,
  startAcontextEmulator
} from "./AcontextEmulator.js"

/**
 * A model double: the Anthropic Messages API on 127.0.0.1 with scripted replies, so the real
 * Claude Code CLI runs offline.
 *
 * @since 0.1.0
 */
export * as ModelDouble from "./ModelDouble.js"

export {
  type ModelAnswer,
  type ModelDoubleHandle,
  type ModelDoubleOptions,
  type ModelReply,
  type ModelRequest,
  type Script,
  startModelDouble
} from "./ModelDouble.js"

/**
 * The real Claude Code CLI, offline against a model double: locate, run in print mode, or hand
 * to the SDK's `query()`.
 *
 * @since 0.1.0
 */
export * as RealClaude from "./RealClaude.js"

export { detectClaude, realClaude } from "./RealClaude.js"

export * from "./StandInCli.js"

/**
 * A synthetic Claude Code config directory of any size, for benchmarks at a heavy user's scale.
 *
 * @since 0.1.0
 */
export { type BigConfigDir, type BigConfigDirOptions, generateBigConfigDir } from "./BigConfigDir.js"

/**
 * Read-only files and directories for tests, also as root (`chattr +i`).
 *
 * @since 0.1.0
 */
export * as ReadOnlyPath from "./ReadOnlyPath.js"

/**
 * A seeded pseudo-random source for tests and generated data.
 *
 * @since 0.4.0
 */
export * as SeededRandom from "./SeededRandom.js"

/**
 * A process whose parent never waits for it: once killed it stays a zombie (Linux).
 *
 * @since 0.4.0
 */
export * as UnreapedProcess from "./UnreapedProcess.js"
