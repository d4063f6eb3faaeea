/**
 * The prompts `query()` takes as streaming input: an `SDKUserMessage` with a `uuid`, and the
 * async iterable of them. Its own module (re-exported by `StandInCli`) because the CLI's real
 * sessions need these few lines without the stand-in CLI around them.
 *
 * @since 0.1.0
 */
import { randomUUID, type UUID } from "node:crypto"

/**
 * A prompt for `query()`'s streaming input: an `SDKUserMessage` with a `uuid`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromptMessage {
  type: "user"
  message: { role: "user"; content: Array<{ type: "text"; text: string }> }
  parent_tool_use_id: null
  uuid: UUID
  session_id: string
}

/**
 * A prompt message for `text` (with a fresh `uuid` unless given).
 *
 * @since 0.1.0
 * @category constructors
 */
export const promptMessage = (text: string, uuid: UUID = randomUUID()): PromptMessage => ({
  type: "user",
  message: { role: "user", content: [{ type: "text", text }] },
  parent_tool_use_id: null,
  uuid,
  session_id: ""
})

/**
 * `messages` as the async iterable `query({ prompt })` takes for streaming input. The iterable
 * ends (so the SDK closes the CLI's stdin) after the last message, once `holdOpen` settles if
 * given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const promptStream = async function*(
  messages: ReadonlyArray<PromptMessage>,
  holdOpen?: Promise<unknown>
): AsyncGenerator<PromptMessage, void> {
  for (const message of messages) yield message
  if (holdOpen !== undefined) await holdOpen
}
