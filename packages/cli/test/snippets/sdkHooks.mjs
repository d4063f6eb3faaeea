// Registered with `--import` for the docs snippets: `@anthropic-ai/claude-agent-sdk`, as a
// snippet (or acx's storage.query()) imports it, resolves to sdkForSnippets.mjs — the real SDK
// whose query() defaults to the real Claude Code CLI, offline against the test's model double.
// The snippet's own text is run unchanged; only where the SDK finds Claude Code is decided here
// (the SDK's bundled binary is an optional dependency this workspace does not install).
import { register } from "node:module"

register(new URL("./sdkResolve.mjs", import.meta.url))
