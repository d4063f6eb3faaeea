/**
 * A Claude Code assistant transcript line with usage, at a given time: the unit the statistics
 * and the 5-hour windows count (the blocks and "now" panel tests write transcripts of them).
 */
export const assistantLine = (
  { cwd, i, ms, output, sessionId }: {
    readonly sessionId: string
    /** Numbers the line's uuid, request and message ids. */
    readonly i: number
    readonly ms: number
    readonly output: number
    readonly cwd?: string | undefined
  }
): string =>
  JSON.stringify({
    type: "assistant",
    sessionId,
    ...(cwd === undefined ? {} : { cwd }),
    uuid: `a${i}`,
    timestamp: new Date(ms).toISOString(),
    requestId: `req_${i}`,
    message: {
      id: `msg_${i}`,
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: "ok" }],
      usage: { input_tokens: 100, output_tokens: output }
    }
  })
