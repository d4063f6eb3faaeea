// The resolve hook of sdkHooks.mjs: every import of the SDK but sdkForSnippets.mjs's own.
const wrapper = new URL("./sdkForSnippets.mjs", import.meta.url).href

export const resolve = async (specifier, context, next) =>
  specifier === "@anthropic-ai/claude-agent-sdk" && context.parentURL !== wrapper
    ? { url: wrapper, shortCircuit: true }
    : next(specifier, context)
