/**
 * A past Claude Code session's transcript → the Anthropic blobs acx would have stored for it,
 * for pushing that session to Acontext. Conversion goes through the same rules as live storage
 * ({@link claudeUserMessageToAnthropicBlob}, {@link claudeAssistantMessageToAnthropicBlob},
 * {@link assistantMeta}).
 *
 * Inputs are `unknown`: parsed JSON lines in file order. Every function here is total.
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import type { ConversionOptions } from "./ContentBlocks.js"
import { mergeAssistantFragments } from "./Fragments.js"
import { assistantMeta, claudeAssistantMessageToAnthropicBlob, claudeUserMessageToAnthropicBlob } from "./Messages.js"

/**
 * Options of {@link transcriptToBlobs}.
 *
 * @since 0.1.0
 * @category models
 */
export interface TranscriptBlobsOptions extends ConversionOptions {
  /** Keep sidechain (subagent) entries (default `false`). */
  readonly includeSidechains?: boolean | undefined
  /** Keep `isMeta` and `isCompactSummary` entries (default `false`). */
  readonly includeMeta?: boolean | undefined
}

/**
 * One stored message: the blob, the assistant `meta` (or `null`), and the transcript entry's
 * `uuid` when it has one.
 *
 * @since 0.1.0
 * @category models
 */
export interface TranscriptBlob {
  readonly blob: AnthropicBlob.AnthropicBlob
  readonly meta: AnthropicBlob.AssistantMeta | null
  readonly uuid: string | undefined
}

/**
 * Converts transcript entries into the blobs acx stores: assistant fragments are merged first,
 * then each `user`/`assistant` entry is wrapped as `{ type, message }` (plus the entry's `error`,
 * if any) and converted; entries that convert to nothing are dropped. Sidechain and
 * meta/compact-summary entries are left out unless the options include them; every other
 * entry type and every malformed entry is skipped.
 *
 * @since 0.1.0
 * @category conversions
 */
export const transcriptToBlobs = (
  entries: ReadonlyArray<unknown>,
  options: TranscriptBlobsOptions = {}
): Array<TranscriptBlob> => {
  const opts = typeof options === "object" && options !== null ? options : {}
  const conversion: ConversionOptions = {
    includeThinking: opts.includeThinking,
    thinkingFormat: opts.thinkingFormat
  }
  const out: Array<TranscriptBlob> = []
  for (const entry of mergeAssistantFragments(entries)) {
    if (entry.type !== "user" && entry.type !== "assistant") continue
    if (entry.isSidechain === true && opts.includeSidechains !== true) continue
    if ((entry.isMeta === true || entry.isCompactSummary === true) && opts.includeMeta !== true) continue
    const uuid = typeof entry.uuid === "string" ? entry.uuid : undefined
    const wrapped = entry.error === undefined
      ? { type: entry.type, message: entry.message }
      : { type: entry.type, message: entry.message, error: entry.error }
    if (entry.type === "user") {
      const blob = claudeUserMessageToAnthropicBlob(wrapped)
      if (blob !== null) out.push({ blob, meta: null, uuid })
    } else {
      const { blob, hasThinking } = claudeAssistantMessageToAnthropicBlob(wrapped, conversion)
      if (blob !== null) out.push({ blob, meta: assistantMeta(wrapped, hasThinking), uuid })
    }
  }
  return out
}
