/**
 * The `SessionStore` suites for vitest: the conformance suite (`runSessionStoreConformance`), the
 * real Claude Code CLI through the SDK's `query()` with a `sessionStore`
 * (`runSessionStoreRealClaudeSuite`), and several processes appending to one session at once
 * (`SessionStoreConcurrency`). Their type declarations name vitest and the Claude Agent SDK (the
 * suites use `expect` and the SDK's own fold), so they are this entry of their own: `@acx/testing`
 * compiles without either. Importing it loads neither: the suites load them when they run.
 *
 * @since 0.4.0
 */

export {
  CONFORMANCE_CASES,
  type ConformanceCase,
  type ConformanceOptions,
  type ConformanceStore,
  runSessionStoreConformance
} from "./SessionStoreConformance.js"

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
