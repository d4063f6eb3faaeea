/**
 * Type-level checks against the real SDK declarations: every `SDKMessage` member and every
 * content block type of `@anthropic-ai/sdk` is assignable to the Encoded side of the matching
 * acx schema. They run in `pnpm check` (tsc compiles the tests); the `it` below only makes the
 * file count as a test.
 *
 * The targets are the Known unions and the per-variant schemas: a union that ends with an
 * Unknown member (`type: string`) accepts any object with a string `type`, so assignability to
 * it proves nothing.
 */
import { ContentBlock, SdkMessage } from "@acx/schema"
import type {
  SDKActiveGoalMessage,
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKAuthStatusMessage,
  SDKBackgroundTasksChangedMessage,
  SDKCommandsChangedMessage,
  SDKCompactBoundaryMessage,
  SDKControlRequestProgressMessage,
  SDKConversationResetMessage,
  SDKElicitationCompleteMessage,
  SDKFilesPersistedEvent,
  SDKHookProgressMessage,
  SDKHookResponseMessage,
  SDKHookStartedMessage,
  SDKInformationalMessage,
  SDKLocalCommandOutputMessage,
  SDKMemoryRecallMessage,
  SDKMessage,
  SDKMirrorErrorMessage,
  SDKModelRefusalFallbackMessage,
  SDKModelRefusalNoFallbackMessage,
  SDKNotificationMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDeniedMessage,
  SDKPluginInstallMessage,
  SDKPromptSuggestionMessage,
  SDKRateLimitEvent,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSessionStateChangedMessage,
  SDKSessionWritesLostMessage,
  SDKStatusMessage,
  SDKSystemMessage,
  SDKTaskNotificationMessage,
  SDKTaskProgressMessage,
  SDKTaskStartedMessage,
  SDKTaskUpdatedMessage,
  SDKThinkingTokensMessage,
  SDKToolProgressMessage,
  SDKToolUseSummaryMessage,
  SDKUserMessage,
  SDKUserMessageReplay,
  SDKWorkerShuttingDownMessage
} from "@anthropic-ai/claude-agent-sdk"
import type {
  BetaAdvisorToolResultBlock,
  BetaBashCodeExecutionToolResultBlock,
  BetaCodeExecutionToolResultBlock,
  BetaCompactionBlock,
  BetaContainerUploadBlock,
  BetaContentBlock,
  BetaFallbackBlock,
  BetaMCPToolListingBlock,
  BetaMCPToolResultBlock,
  BetaMCPToolUseBlock,
  BetaMCPToolUseBlockParam,
  BetaMessage,
  BetaRawContentBlockDelta,
  BetaRawMessageStreamEvent,
  BetaRedactedThinkingBlock,
  BetaRequestMCPToolResultBlockParam,
  BetaServerToolUseBlock,
  BetaTextBlock,
  BetaTextEditorCodeExecutionToolResultBlock,
  BetaThinkingBlock,
  BetaToolSearchToolResultBlock,
  BetaToolUseBlock,
  BetaUsage,
  BetaWebFetchToolResultBlock,
  BetaWebSearchToolResultBlock
} from "@anthropic-ai/sdk/resources/beta/messages/messages.mjs"
import type {
  BashCodeExecutionToolResultBlockParam,
  CodeExecutionToolResultBlockParam,
  ContainerUploadBlockParam,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageParam,
  RedactedThinkingBlockParam,
  SearchResultBlockParam,
  ServerToolUseBlockParam,
  TextBlockParam,
  TextEditorCodeExecutionToolResultBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolSearchToolResultBlockParam,
  ToolUseBlockParam,
  WebFetchToolResultBlockParam,
  WebSearchToolResultBlockParam
} from "@anthropic-ai/sdk/resources/messages/messages.mjs"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"

type Encoded<S extends { readonly Encoded: unknown }> = S["Encoded"]

// -- the whole SDKMessage union ------------------------------------------------------------------

expectTypeOf<SDKMessage>().toExtend<Encoded<typeof SdkMessage.KnownSdkMessage>>()
expectTypeOf<SDKMessage>().toExtend<Encoded<typeof SdkMessage.DeclaredSdkMessage>>()

// -- per variant (41 shapes) ---------------------------------------------------------------------

expectTypeOf<SDKAssistantMessage>().toExtend<Encoded<typeof SdkMessage.AssistantMessage>>()
expectTypeOf<SDKUserMessage>().toExtend<Encoded<typeof SdkMessage.UserMessage>>()
expectTypeOf<SDKUserMessageReplay>().toExtend<Encoded<typeof SdkMessage.UserMessageReplay>>()
expectTypeOf<SDKResultSuccess>().toExtend<Encoded<typeof SdkMessage.ResultSuccess>>()
expectTypeOf<SDKResultError>().toExtend<Encoded<typeof SdkMessage.ResultError>>()
expectTypeOf<SDKResultMessage>().toExtend<
  Encoded<typeof SdkMessage.ResultSuccess> | Encoded<typeof SdkMessage.ResultError>
>()
expectTypeOf<SDKSystemMessage>().toExtend<Encoded<typeof SdkMessage.SystemInit>>()
expectTypeOf<SDKPartialAssistantMessage>().toExtend<Encoded<typeof SdkMessage.StreamEventMessage>>()
expectTypeOf<SDKCompactBoundaryMessage>().toExtend<Encoded<typeof SdkMessage.CompactBoundary>>()
expectTypeOf<SDKStatusMessage>().toExtend<Encoded<typeof SdkMessage.Status>>()
expectTypeOf<SDKAPIRetryMessage>().toExtend<Encoded<typeof SdkMessage.ApiRetry>>()
expectTypeOf<SDKControlRequestProgressMessage>().toExtend<Encoded<typeof SdkMessage.ControlRequestProgress>>()
expectTypeOf<SDKModelRefusalFallbackMessage>().toExtend<Encoded<typeof SdkMessage.ModelRefusalFallback>>()
expectTypeOf<SDKModelRefusalNoFallbackMessage>().toExtend<Encoded<typeof SdkMessage.ModelRefusalNoFallback>>()
expectTypeOf<SDKLocalCommandOutputMessage>().toExtend<Encoded<typeof SdkMessage.LocalCommandOutput>>()
expectTypeOf<SDKHookStartedMessage>().toExtend<Encoded<typeof SdkMessage.HookStarted>>()
expectTypeOf<SDKHookProgressMessage>().toExtend<Encoded<typeof SdkMessage.HookProgress>>()
expectTypeOf<SDKHookResponseMessage>().toExtend<Encoded<typeof SdkMessage.HookResponse>>()
expectTypeOf<SDKPluginInstallMessage>().toExtend<Encoded<typeof SdkMessage.PluginInstall>>()
expectTypeOf<SDKToolProgressMessage>().toExtend<Encoded<typeof SdkMessage.ToolProgress>>()
expectTypeOf<SDKAuthStatusMessage>().toExtend<Encoded<typeof SdkMessage.AuthStatus>>()
expectTypeOf<SDKTaskNotificationMessage>().toExtend<Encoded<typeof SdkMessage.TaskNotification>>()
expectTypeOf<SDKTaskStartedMessage>().toExtend<Encoded<typeof SdkMessage.TaskStarted>>()
expectTypeOf<SDKTaskUpdatedMessage>().toExtend<Encoded<typeof SdkMessage.TaskUpdated>>()
expectTypeOf<SDKTaskProgressMessage>().toExtend<Encoded<typeof SdkMessage.TaskProgress>>()
expectTypeOf<SDKBackgroundTasksChangedMessage>().toExtend<Encoded<typeof SdkMessage.BackgroundTasksChanged>>()
expectTypeOf<SDKThinkingTokensMessage>().toExtend<Encoded<typeof SdkMessage.ThinkingTokens>>()
expectTypeOf<SDKSessionStateChangedMessage>().toExtend<Encoded<typeof SdkMessage.SessionStateChanged>>()
expectTypeOf<SDKWorkerShuttingDownMessage>().toExtend<Encoded<typeof SdkMessage.WorkerShuttingDown>>()
expectTypeOf<SDKCommandsChangedMessage>().toExtend<Encoded<typeof SdkMessage.CommandsChanged>>()
expectTypeOf<SDKNotificationMessage>().toExtend<Encoded<typeof SdkMessage.Notification>>()
expectTypeOf<SDKFilesPersistedEvent>().toExtend<Encoded<typeof SdkMessage.FilesPersisted>>()
expectTypeOf<SDKToolUseSummaryMessage>().toExtend<Encoded<typeof SdkMessage.ToolUseSummary>>()
expectTypeOf<SDKMemoryRecallMessage>().toExtend<Encoded<typeof SdkMessage.MemoryRecall>>()
expectTypeOf<SDKRateLimitEvent>().toExtend<Encoded<typeof SdkMessage.RateLimitEvent>>()
expectTypeOf<SDKElicitationCompleteMessage>().toExtend<Encoded<typeof SdkMessage.ElicitationComplete>>()
expectTypeOf<SDKPermissionDeniedMessage>().toExtend<Encoded<typeof SdkMessage.PermissionDenied>>()
expectTypeOf<SDKPromptSuggestionMessage>().toExtend<Encoded<typeof SdkMessage.PromptSuggestion>>()
expectTypeOf<SDKMirrorErrorMessage>().toExtend<Encoded<typeof SdkMessage.MirrorError>>()
expectTypeOf<SDKInformationalMessage>().toExtend<Encoded<typeof SdkMessage.Informational>>()
expectTypeOf<SDKConversationResetMessage>().toExtend<Encoded<typeof SdkMessage.ConversationReset>>()
expectTypeOf<SDKSessionWritesLostMessage>().toExtend<Encoded<typeof SdkMessage.SessionWritesLost>>()

// Declared in the d.ts but outside the SDKMessage union.
expectTypeOf<SDKActiveGoalMessage>().toExtend<Encoded<typeof SdkMessage.ActiveGoal>>()

// -- nested API types ----------------------------------------------------------------------------

expectTypeOf<BetaMessage>().toExtend<Encoded<typeof SdkMessage.BetaMessage>>()
expectTypeOf<MessageParam>().toExtend<Encoded<typeof SdkMessage.MessageParam>>()
expectTypeOf<BetaUsage>().toExtend<Encoded<typeof SdkMessage.Usage>>()
expectTypeOf<BetaRawMessageStreamEvent>().toExtend<Encoded<typeof SdkMessage.KnownStreamEvent>>()
expectTypeOf<BetaRawContentBlockDelta>().toExtend<Encoded<typeof SdkMessage.KnownContentBlockDelta>>()

// -- content blocks: the unions ------------------------------------------------------------------

expectTypeOf<BetaContentBlock>().toExtend<Encoded<typeof ContentBlock.KnownContentBlock>>()
expectTypeOf<ContentBlockParam>().toExtend<Encoded<typeof ContentBlock.KnownContentBlock>>()
expectTypeOf<BetaMCPToolUseBlockParam>().toExtend<Encoded<typeof ContentBlock.KnownContentBlock>>()
expectTypeOf<BetaRequestMCPToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.KnownContentBlock>>()
expectTypeOf<NonNullable<ToolResultBlockParam["content"]>>().toExtend<
  string | ReadonlyArray<Encoded<typeof ContentBlock.KnownToolResultContentItem>>
>()

// -- content blocks: assistant side, per type ----------------------------------------------------

expectTypeOf<BetaTextBlock>().toExtend<Encoded<typeof ContentBlock.TextBlock>>()
expectTypeOf<BetaThinkingBlock>().toExtend<Encoded<typeof ContentBlock.ThinkingBlock>>()
expectTypeOf<BetaRedactedThinkingBlock>().toExtend<Encoded<typeof ContentBlock.RedactedThinkingBlock>>()
expectTypeOf<BetaToolUseBlock>().toExtend<Encoded<typeof ContentBlock.ToolUseBlock>>()
expectTypeOf<BetaServerToolUseBlock>().toExtend<Encoded<typeof ContentBlock.ServerToolUseBlock>>()
expectTypeOf<BetaWebSearchToolResultBlock>().toExtend<Encoded<typeof ContentBlock.WebSearchToolResultBlock>>()
expectTypeOf<BetaWebFetchToolResultBlock>().toExtend<Encoded<typeof ContentBlock.WebFetchToolResultBlock>>()
expectTypeOf<BetaAdvisorToolResultBlock>().toExtend<Encoded<typeof ContentBlock.AdvisorToolResultBlock>>()
expectTypeOf<BetaCodeExecutionToolResultBlock>().toExtend<Encoded<typeof ContentBlock.CodeExecutionToolResultBlock>>()
expectTypeOf<BetaBashCodeExecutionToolResultBlock>().toExtend<
  Encoded<typeof ContentBlock.BashCodeExecutionToolResultBlock>
>()
expectTypeOf<BetaTextEditorCodeExecutionToolResultBlock>().toExtend<
  Encoded<typeof ContentBlock.TextEditorCodeExecutionToolResultBlock>
>()
expectTypeOf<BetaToolSearchToolResultBlock>().toExtend<Encoded<typeof ContentBlock.ToolSearchToolResultBlock>>()
expectTypeOf<BetaMCPToolUseBlock>().toExtend<Encoded<typeof ContentBlock.McpToolUseBlock>>()
expectTypeOf<BetaMCPToolResultBlock>().toExtend<Encoded<typeof ContentBlock.McpToolResultBlock>>()
expectTypeOf<BetaContainerUploadBlock>().toExtend<Encoded<typeof ContentBlock.ContainerUploadBlock>>()
expectTypeOf<BetaCompactionBlock>().toExtend<Encoded<typeof ContentBlock.CompactionBlock>>()
expectTypeOf<BetaFallbackBlock>().toExtend<Encoded<typeof ContentBlock.FallbackBlock>>()
expectTypeOf<BetaMCPToolListingBlock>().toExtend<Encoded<typeof ContentBlock.McpToolListingBlock>>()

// -- content blocks: user side, per type ---------------------------------------------------------

expectTypeOf<TextBlockParam>().toExtend<Encoded<typeof ContentBlock.TextBlock>>()
expectTypeOf<ImageBlockParam>().toExtend<Encoded<typeof ContentBlock.ImageBlock>>()
expectTypeOf<DocumentBlockParam>().toExtend<Encoded<typeof ContentBlock.DocumentBlock>>()
expectTypeOf<SearchResultBlockParam>().toExtend<Encoded<typeof ContentBlock.SearchResultBlock>>()
expectTypeOf<ThinkingBlockParam>().toExtend<Encoded<typeof ContentBlock.ThinkingBlock>>()
expectTypeOf<RedactedThinkingBlockParam>().toExtend<Encoded<typeof ContentBlock.RedactedThinkingBlock>>()
expectTypeOf<ToolUseBlockParam>().toExtend<Encoded<typeof ContentBlock.ToolUseBlock>>()
expectTypeOf<ToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.ToolResultBlock>>()
expectTypeOf<ServerToolUseBlockParam>().toExtend<Encoded<typeof ContentBlock.ServerToolUseBlock>>()
expectTypeOf<WebSearchToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.WebSearchToolResultBlock>>()
expectTypeOf<WebFetchToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.WebFetchToolResultBlock>>()
expectTypeOf<CodeExecutionToolResultBlockParam>().toExtend<
  Encoded<typeof ContentBlock.CodeExecutionToolResultBlock>
>()
expectTypeOf<BashCodeExecutionToolResultBlockParam>().toExtend<
  Encoded<typeof ContentBlock.BashCodeExecutionToolResultBlock>
>()
expectTypeOf<TextEditorCodeExecutionToolResultBlockParam>().toExtend<
  Encoded<typeof ContentBlock.TextEditorCodeExecutionToolResultBlock>
>()
expectTypeOf<ToolSearchToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.ToolSearchToolResultBlock>>()
expectTypeOf<ContainerUploadBlockParam>().toExtend<Encoded<typeof ContentBlock.ContainerUploadBlock>>()
expectTypeOf<BetaMCPToolUseBlockParam>().toExtend<Encoded<typeof ContentBlock.McpToolUseBlock>>()
expectTypeOf<BetaRequestMCPToolResultBlockParam>().toExtend<Encoded<typeof ContentBlock.McpToolResultBlock>>()

// -- sanity: the checks are not vacuous ----------------------------------------------------------

expectTypeOf<{ type: "assistant" }>().not.toExtend<Encoded<typeof SdkMessage.KnownSdkMessage>>()
expectTypeOf<{ type: "brand_new" }>().not.toExtend<Encoded<typeof SdkMessage.KnownSdkMessage>>()
expectTypeOf<{ type: "brand_new" }>().toExtend<Encoded<typeof SdkMessage.SdkMessage>>()
expectTypeOf<{ type: "text" }>().not.toExtend<Encoded<typeof ContentBlock.KnownContentBlock>>()
expectTypeOf<{ type: "system"; subtype: "not_a_subtype" }>().not.toExtend<
  Encoded<typeof SdkMessage.KnownSdkMessage>
>()

describe("SdkMessage types", () => {
  it("checks SDK assignability at compile time (pnpm check)", () => {
    expect(SdkMessage.DeclaredSdkMessage.members.length).toBe(41)
    expect(ContentBlock.KnownContentBlock.members.length).toBe(22)
  })
})
