// The Claude Agent SDK for the docs snippets: everything re-exported, and query() given the real
// Claude Code CLI (ClaudeBinary's lookup) with the environment of @acx/testing's realClaude():
// the model double at ACX_SNIPPET_MODEL_URL, a private HOME. A snippet's own options win.
import { realClaude } from "@acx/testing"
import * as Sdk from "@anthropic-ai/claude-agent-sdk"

export * from "@anthropic-ai/claude-agent-sdk"

const claude = await realClaude({ baseUrl: process.env.ACX_SNIPPET_MODEL_URL })

export const query = (params) =>
  Sdk.query({ ...params, options: { ...claude.queryOptions(process.env.HOME), ...params.options } })
