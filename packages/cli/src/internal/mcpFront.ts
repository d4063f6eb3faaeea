/**
 * The first reader of stdin for `acx memory mcp`, started before the CLI and the server load:
 * Claude Code's `server/discover` probe times out after ~2.8 s counted from when it sent the
 * request, this process's start-up included, and loading Effect, the MCP server and SQLite takes
 * seconds on a busy machine. So the front answers `server/discover` at once, keeps every other
 * line, and hands them, in order, to the server when it asks ({@link takeFront}).
 *
 * No Effect here: this module is what loads first.
 */
import * as McpDispatcher from "@acx/memory/McpDispatcher"
import * as MemoryMcpDescription from "@acx/memory/MemoryMcpDescription"

/** The bytes of stdin the server has not read yet, and how to get the rest. */
export interface Front {
  /** Called once: the kept bytes first, then each chunk as it comes; `end` when stdin ends. */
  readonly take: (onChunk: (chunk: Buffer) => void, onEnd: () => void) => void
}

const KEY = Symbol.for("@acx/cli/mcpFront")

/** Starts reading stdin now; the server takes over with {@link takeFront}. */
export const startFront = (version: string): void => {
  const description = MemoryMcpDescription.describe(version)
  const kept: Array<Buffer> = []
  let partial = ""
  let ended = false
  let taker: { readonly onChunk: (chunk: Buffer) => void; readonly onEnd: () => void } | undefined
  const onData = (chunk: Buffer) => {
    if (taker !== undefined) return taker.onChunk(chunk)
    // answer discover lines while nobody else reads; keep every other line for the server
    partial += chunk.toString("utf8")
    const lines = partial.split("\n")
    partial = lines.pop() ?? ""
    for (const line of lines) {
      const answer = McpDispatcher.discoverAnswer(description, line)
      if (answer === undefined) kept.push(Buffer.from(`${line}\n`))
      else process.stdout.write(`${JSON.stringify(answer)}\n`)
    }
  }
  process.stdin.on("data", onData)
  process.stdin.once("end", () => {
    ended = true
    taker?.onEnd()
  })
  const front: Front = {
    take: (onChunk, onEnd) => {
      taker = { onChunk, onEnd }
      for (const chunk of kept.splice(0)) onChunk(chunk)
      if (partial !== "") onChunk(Buffer.from(partial))
      partial = ""
      if (ended) onEnd()
    }
  }
  ;(globalThis as { [KEY]?: Front })[KEY] = front
}

/** The front this process started, if any (`acx memory mcp`: its command's module starts it). */
export const takeFront = (): Front | undefined => {
  const holder = globalThis as { [KEY]?: Front }
  const front = holder[KEY]
  delete holder[KEY]
  return front
}
