/**
 * Test kits for acx users and acx's own tests: a faithful Acontext emulator on 127.0.0.1 with
 * fault injection (`AcontextEmulator.make` / `layer` for Effect code, `startAcontextEmulator`
 * for Promise code), a scriptable stand-in for the Claude Code CLI that drives the real SDK's
 * `query()` offline (`prepareStandInCli`, `makeStandInCli`, `realisticConversation`, …), and the
 * SessionStore conformance and concurrency suites for vitest (`runSessionStoreConformance`,
 * `SessionStoreConcurrency`).
 *
 * Importing this module loads neither vitest nor the Claude Agent SDK (both optional peers):
 * the suites load them when they run.
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

export {
  CONFORMANCE_CASES,
  type ConformanceCase,
  type ConformanceOptions,
  type ConformanceStore,
  runSessionStoreConformance
} from "./SessionStoreConformance.js"

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

/**
 * The real Claude Code CLI through the SDK's `query()` with a `sessionStore`: mirroring and
 * resume, checked on any store.
 *
 * @since 0.1.0
 */
export * as SessionStoreRealClaude from "./SessionStoreRealClaude.js"

export { runSessionStoreRealClaudeSuite } from "./SessionStoreRealClaude.js"

/**
 * Several processes appending to one session at once: workers, runner and the check.
 *
 * @since 0.1.0
 */
export * as SessionStoreConcurrency from "./SessionStoreConcurrency.js"

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
