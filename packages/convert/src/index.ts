/**
 * @since 0.1.0
 */

/**
 * Claude Code's command markup read: a slash command as typed, its output as text without terminal escapes.
 *
 * @since 0.1.0
 */
export * as CommandMarkup from "./CommandMarkup.js"

/**
 * Content block conversion and its options.
 *
 * @since 0.1.0
 */
export * as ContentBlocks from "./ContentBlocks.js"

/**
 * The storage decider: `decide(state, message)` and `evolve(state, event)`.
 *
 * @since 0.1.0
 */
export * as Decider from "./Decider.js"

/**
 * Message conversion: user and assistant messages to Anthropic blobs and meta.
 *
 * @since 0.1.0
 */
export * as Messages from "./Messages.js"

/**
 * Python-SDK message shapes normalised to TypeScript SDK shapes.
 *
 * @since 0.1.0
 */
export * as PythonShape from "./PythonShape.js"

/**
 * A count and its noun in agreement: `plural(1, "session")` is `1 session`.
 *
 * @since 0.4.0
 */
export * as Plural from "./Plural.js"

/**
 * Session-id resolution from SDK messages.
 *
 * @since 0.1.0
 */
export * as SessionIds from "./SessionIds.js"

/**
 * `tool_result.content` normalisation, and the one text of a tool result.
 *
 * @since 0.1.0
 */
export * as ToolResult from "./ToolResult.js"

/**
 * `tool_use.input` normalisation.
 *
 * @since 0.1.0
 */
export * as ToolUse from "./ToolUse.js"

/**
 * A line diff of two texts as unified-diff hunks, bounded work and output.
 *
 * @since 0.1.0
 */
export * as TextDiff from "./TextDiff.js"

/**
 * A tool call's input as shown: edits as diffs, a write as its content, todos as a checklist.
 *
 * @since 0.1.0
 */
export * as ToolDisplay from "./ToolDisplay.js"

/**
 * Assistant fragments sharing `message.id` merged into one message.
 *
 * @since 0.1.0
 */
export * as Fragments from "./Fragments.js"

/**
 * The session page's items: prompts, turns, tool calls and results, texts cut with a reference.
 *
 * @since 0.1.0
 */
export * as SessionItem from "./SessionItem.js"

/**
 * A transcript entry's blocks as the session page shows them, and cut texts in full.
 *
 * @since 0.1.0
 */
export * as SessionBlocks from "./SessionBlocks.js"

/**
 * The session page's incremental fold of transcript lines into items.
 *
 * @since 0.1.0
 */
export * as SessionFold from "./SessionFold.js"

/**
 * A session's turns as plain text for a model (masked fields, each cut with the cut said).
 *
 * @since 0.3.0
 */
export * as SessionTurns from "./SessionTurns.js"

/**
 * Session and project statistics over transcripts.
 *
 * @since 0.1.0
 */
export * as Stats from "./Stats.js"

/**
 * Claude model prices (USD per MTok, source and date stated), model-id normalisation, the cost of
 * one response, and the user's pricing file.
 *
 * @since 0.1.0
 */
export * as Pricing from "./Pricing.js"

/**
 * The user's pricing file (`$ACX_HOME/pricing.json`), validated with Schema, applied to a table.
 *
 * @since 0.1.0
 */
export * as PricingFile from "./PricingFile.js"

/**
 * The user's pricing file checked and applied without Effect: the one set of rules `acx stats` loads it by.
 *
 * @since 0.4.0
 */
export * as UserPricing from "./UserPricing.js"

/**
 * A resumable, cacheable fold of one transcript file into statistics by local day and model.
 *
 * @since 0.1.0
 */
export * as StatsFold from "./StatsFold.js"

/**
 * Reports of folded transcript files by session, day, week, month, model or project.
 *
 * @since 0.1.0
 */
export * as StatsReport from "./StatsReport.js"

/**
 * 5-hour billing windows of folded transcripts: the window rule, burn rate and projection.
 *
 * @since 0.3.0
 */
export * as BillingWindows from "./BillingWindows.js"

/**
 * A past transcript as the Anthropic blobs acx would store.
 *
 * @since 0.1.0
 */
export * as TranscriptBlobs from "./TranscriptBlobs.js"

/**
 * Token usage, counted once per message with the last fragment's usage.
 *
 * @since 0.1.0
 */
export * as Usage from "./Usage.js"

/**
 * Claude Code's project-directory name for a path.
 *
 * @since 0.1.0
 */
export * as ProjectDir from "./ProjectDir.js"

/**
 * Who a project is across machines: its git remote, normalised (`github.com/org/repo` from every
 * ssh and https spelling, credentials dropped), else its path.
 *
 * @since 0.3.0
 */
export * as ProjectIdentity from "./ProjectIdentity.js"

/**
 * Conversation reconstruction from transcript entries: chains, compactions, sidechains, ancestry.
 *
 * @since 0.1.0
 */
export * as Reconstruct from "./Reconstruct.js"

/**
 * Lenient, streaming JSONL transcript parsing.
 *
 * @since 0.1.0
 */
export * as TranscriptParse from "./TranscriptParse.js"

/**
 * Fork a transcript into a new session (fresh uuids, remapped chain), as the SDK's forkSession does.
 *
 * @since 0.1.0
 */
export * as Fork from "./Fork.js"

/**
 * Transcript entries back to JSONL.
 *
 * @since 0.1.0
 */
export * as TranscriptWrite from "./TranscriptWrite.js"

// The function names of Acontext's TypeScript integration, importable directly.
export { assistantMeta, claudeAssistantMessageToAnthropicBlob, claudeUserMessageToAnthropicBlob } from "./Messages.js"
export { fromPythonMessage } from "./PythonShape.js"
export { getSessionIdFromMessage } from "./SessionIds.js"
export { normalizeToolResultContent } from "./ToolResult.js"
export { normalizeToolUseInput } from "./ToolUse.js"

/**
 * A transcript's conversation as Markdown.
 *
 * @since 0.1.0
 */
export * as TranscriptMarkdown from "./TranscriptMarkdown.js"

/**
 * Agent events: every SDK message as what a conversation shows a caller (`mapSdkMessage`, total).
 *
 * @since 0.1.0
 */
export * as AgentEvent from "./AgentEvent.js"

/**
 * Usage of an agent conversation per turn and in total: tokens by model, and dollars read from the cumulative totals.
 *
 * @since 0.1.0
 */
export * as AgentUsage from "./AgentUsage.js"

/**
 * A memory observer's reply: `<observation>` blocks and the session `<summary>`, read tolerantly.
 *
 * @since 0.1.0
 */
export * as ObserverReply from "./ObserverReply.js"

/**
 * Private parts removed and secrets redacted, before anything is stored or shown to a model.
 *
 * @since 0.1.0
 */
export * as Redact from "./Redact.js"

/**
 * How a user prompt reads in a session listing: slash-command tags as `/name args`, command output not a prompt.
 *
 * @since 0.1.0
 */
export * as SessionTitle from "./SessionTitle.js"

/**
 * A session's listing metadata (title, first/last prompt, cwd, branch, times) folded from any run of its entries.
 *
 * @since 0.1.0
 */
export * as SessionMetadata from "./SessionMetadata.js"

/**
 * The quota readings file (`$ACX_HOME/quota/readings.jsonl`): Claude Code's `rate_limits`
 * readings as recorded by the statusline, decoded, deduplicated and summarised.
 *
 * @since 0.3.0
 */
export * as QuotaReadings from "./QuotaReadings.js"

/**
 * The one rule for text written where a terminal may read it: control characters shown as `?`.
 *
 * @since 0.5.0
 */
export * as TerminalText from "./TerminalText.js"

/**
 * Dollars as acx shows them everywhere: `$1,234.56`, `<$0.01`.
 *
 * @since 0.5.0
 */
export * as Money from "./Money.js"
