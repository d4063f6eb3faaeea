/**
 * Test kits for acx users and acx's own tests: a faithful Acontext emulator on 127.0.0.1 with
 * fault injection, and a scriptable stand-in for the Claude Code CLI that drives the real
 * SDK's `query()` offline.
 *
 * @since 0.1.0
 */
export * from "./AcontextEmulator.js"
export * from "./StandInCli.js"
