/**
 * Content blocks of SDK messages, assistant side (`BetaContentBlock` of `@anthropic-ai/sdk`
 * 1.12) and user side (`ContentBlockParam`, plus the Beta-only MCP params), one schema per
 * `type` that accepts both the response and the param shape.
 *
 * Rules, applied throughout:
 * - `type` is required; a field is required only when the block means nothing without it
 *   (`text.text`, `tool_use.id`/`name`, `tool_result.tool_use_id`, a server tool result's
 *   `content`, …). Every other field is optional (exact), and nullable where either SDK shape
 *   declares it nullable: response fields that are "required but nullable" (`citations`,
 *   `file_id`, `page_age`, …) become optional + nullable, because real data omits them.
 * - Literals that pick a member of a union (`type` of blocks, sources, citations, results)
 *   are `Schema.Literal`; other enum-valued fields (`error_code`, `media_type`, `file_type`,
 *   `caller.type`, …) are open: the SDK's literals plus any newer string.
 * - Unknown fields are preserved, in their original key order (`parseOptions:
 *   { onExcessProperty: "preserve", propertyOrder: "original" }` on every struct), so a decoded
 *   block re-encodes to what arrived.
 * - A block whose `type` is unknown, or a known `type` with an unexpected shape (e.g. a new
 *   citation or source variant), decodes as {@link UnknownBlock}, which keeps every field.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Open, opt, optNull, preserve, struct } from "./internal/schema.js"
import { OpaqueObject } from "./Json.js"

// ---------------------------------------------------------------------------------------------
// shared pieces
// ---------------------------------------------------------------------------------------------

/**
 * `cache_control` of a param block (`CacheControlEphemeral`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CacheControl = struct("CacheControl", {
  type: Open("ephemeral"),
  ttl: opt(Open("5m", "1h"))
})

/**
 * @since 0.1.0
 * @category models
 */
export type CacheControl = typeof CacheControl.Type

/**
 * Who called a tool: `{type: "direct"}` or a code-execution tool
 * (`{type: "code_execution_20250825" | "code_execution_20260120", tool_id}`), as one open struct.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Caller = struct("Caller", {
  type: Open("direct", "code_execution_20250825", "code_execution_20260120"),
  tool_id: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Caller = typeof Caller.Type

/**
 * `citations` config of a document / search result (`{enabled}`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const CitationsConfig = struct("CitationsConfig", {
  enabled: opt(Schema.Boolean)
})

// ---------------------------------------------------------------------------------------------
// citations
// ---------------------------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category citations
 */
export const CharLocationCitation = struct("CharLocationCitation", {
  type: Schema.Literal("char_location"),
  cited_text: Schema.String,
  document_index: opt(Schema.Number),
  document_title: optNull(Schema.String),
  start_char_index: opt(Schema.Number),
  end_char_index: opt(Schema.Number),
  file_id: optNull(Schema.String)
})

/**
 * @since 0.1.0
 * @category citations
 */
export const PageLocationCitation = struct("PageLocationCitation", {
  type: Schema.Literal("page_location"),
  cited_text: Schema.String,
  document_index: opt(Schema.Number),
  document_title: optNull(Schema.String),
  start_page_number: opt(Schema.Number),
  end_page_number: opt(Schema.Number),
  file_id: optNull(Schema.String)
})

/**
 * @since 0.1.0
 * @category citations
 */
export const ContentBlockLocationCitation = struct("ContentBlockLocationCitation", {
  type: Schema.Literal("content_block_location"),
  cited_text: Schema.String,
  document_index: opt(Schema.Number),
  document_title: optNull(Schema.String),
  start_block_index: opt(Schema.Number),
  end_block_index: opt(Schema.Number),
  file_id: optNull(Schema.String)
})

/**
 * @since 0.1.0
 * @category citations
 */
export const WebSearchResultLocationCitation = struct("WebSearchResultLocationCitation", {
  type: Schema.Literal("web_search_result_location"),
  cited_text: Schema.String,
  encrypted_index: opt(Schema.String),
  title: optNull(Schema.String),
  url: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category citations
 */
export const SearchResultLocationCitation = struct("SearchResultLocationCitation", {
  type: Schema.Literal("search_result_location"),
  cited_text: Schema.String,
  search_result_index: opt(Schema.Number),
  source: opt(Schema.String),
  title: optNull(Schema.String),
  start_block_index: opt(Schema.Number),
  end_block_index: opt(Schema.Number)
})

/**
 * A citation of a text block (`BetaTextCitation` / `TextCitationParam`).
 *
 * @since 0.1.0
 * @category citations
 */
export const TextCitation = Schema.Union(
  CharLocationCitation,
  PageLocationCitation,
  ContentBlockLocationCitation,
  WebSearchResultLocationCitation,
  SearchResultLocationCitation
).annotations({ identifier: "TextCitation" })

/**
 * @since 0.1.0
 * @category models
 */
export type TextCitation = typeof TextCitation.Type

// ---------------------------------------------------------------------------------------------
// sources
// ---------------------------------------------------------------------------------------------

/**
 * Base64 data: an image (`image/jpeg|png|gif|webp`) or a PDF (`application/pdf`).
 *
 * @since 0.1.0
 * @category sources
 */
export const Base64Source = struct("Base64Source", {
  type: Schema.Literal("base64"),
  media_type: opt(Open("image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf")),
  data: Schema.String
})

/**
 * @since 0.1.0
 * @category sources
 */
export const UrlSource = struct("UrlSource", {
  type: Schema.Literal("url"),
  url: Schema.String
})

/**
 * A file uploaded with the Files API.
 *
 * @since 0.1.0
 * @category sources
 */
export const FileSource = struct("FileSource", {
  type: Schema.Literal("file"),
  file_id: Schema.String
})

/**
 * Plain-text document data (`media_type: "text/plain"`).
 *
 * @since 0.1.0
 * @category sources
 */
export const PlainTextSource = struct("PlainTextSource", {
  type: Schema.Literal("text"),
  media_type: opt(Open("text/plain")),
  data: Schema.String
})

/**
 * @since 0.1.0
 * @category sources
 */
export const ImageSource = Schema.Union(Base64Source, UrlSource, FileSource).annotations({ identifier: "ImageSource" })

// ---------------------------------------------------------------------------------------------
// text, image, document, search result
// ---------------------------------------------------------------------------------------------

/**
 * `text`: `BetaTextBlock` (`citations` required but nullable) and `TextBlockParam`
 * (`citations?`, `cache_control?`).
 *
 * @since 0.1.0
 * @category blocks
 */
export const TextBlock = struct("TextBlock", {
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: optNull(Schema.Array(TextCitation)),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TextBlock = typeof TextBlock.Type

/**
 * `image` (user side): base64, URL or Files-API source.
 *
 * @since 0.1.0
 * @category blocks
 */
export const ImageBlock = struct("ImageBlock", {
  type: Schema.Literal("image"),
  source: ImageSource,
  cache_control: optNull(CacheControl),
  transformations: optNull(struct("ImageTransformations", { oversized_image: opt(Open("downsize", "error")) }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ImageBlock = typeof ImageBlock.Type

/**
 * Document data given inline as content blocks (`{type: "content", content}`).
 *
 * @since 0.1.0
 * @category sources
 */
export const ContentSource = struct("ContentSource", {
  type: Schema.Literal("content"),
  content: Schema.Union(Schema.String, Schema.Array(Schema.Union(TextBlock, ImageBlock)))
})

/**
 * @since 0.1.0
 * @category sources
 */
export const DocumentSource = Schema.Union(Base64Source, PlainTextSource, ContentSource, UrlSource, FileSource)
  .annotations({ identifier: "DocumentSource" })

/**
 * `document`: `DocumentBlockParam` (user side) and `BetaDocumentBlock` (inside a web fetch
 * result, with `title` and `citations` required but nullable).
 *
 * @since 0.1.0
 * @category blocks
 */
export const DocumentBlock = struct("DocumentBlock", {
  type: Schema.Literal("document"),
  source: DocumentSource,
  title: optNull(Schema.String),
  context: optNull(Schema.String),
  citations: optNull(CitationsConfig),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type DocumentBlock = typeof DocumentBlock.Type

/**
 * `search_result` (user side, also a tool_result content item).
 *
 * @since 0.1.0
 * @category blocks
 */
export const SearchResultBlock = struct("SearchResultBlock", {
  type: Schema.Literal("search_result"),
  content: Schema.Array(TextBlock),
  source: opt(Schema.String),
  title: opt(Schema.String),
  citations: optNull(CitationsConfig),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type SearchResultBlock = typeof SearchResultBlock.Type

// ---------------------------------------------------------------------------------------------
// thinking
// ---------------------------------------------------------------------------------------------

/**
 * `thinking`. `signature` is optional here: the CLI writes thinking blocks without it in some
 * transcripts, and the text is meaningful on its own.
 *
 * @since 0.1.0
 * @category blocks
 */
export const ThinkingBlock = struct("ThinkingBlock", {
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ThinkingBlock = typeof ThinkingBlock.Type

/**
 * @since 0.1.0
 * @category blocks
 */
export const RedactedThinkingBlock = struct("RedactedThinkingBlock", {
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type RedactedThinkingBlock = typeof RedactedThinkingBlock.Type

// ---------------------------------------------------------------------------------------------
// client tools
// ---------------------------------------------------------------------------------------------

/**
 * `tool_use`. `input` is `unknown` in both SDK shapes (normally a JSON object).
 *
 * @since 0.1.0
 * @category blocks
 */
export const ToolUseBlock = struct("ToolUseBlock", {
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: opt(Schema.Unknown),
  caller: opt(Caller),
  toolset_name: optNull(Schema.String),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolUseBlock = typeof ToolUseBlock.Type

/**
 * `tool_reference` (a tool_result content item, and a tool search result entry).
 *
 * @since 0.1.0
 * @category tool result content
 */
export const ToolReferenceBlock = struct("ToolReferenceBlock", {
  type: Schema.Literal("tool_reference"),
  tool_name: Schema.String,
  cache_control: optNull(CacheControl)
})

const BrowserStateTab = struct("BrowserStateTab", {
  tab_id: opt(Schema.String),
  title: opt(Schema.String),
  url: opt(Schema.String),
  active: opt(Schema.Boolean)
})

const BrowserStateChange = Schema.Union(
  struct("BrowserStateChangeTabOpened", {
    type: Schema.Literal("tab_opened"),
    tab_id: opt(Schema.String)
  }),
  struct("BrowserStateChangeDownloadStarted", {
    type: Schema.Literal("download_started"),
    download_id: opt(Schema.String),
    url: opt(Schema.String)
  }),
  struct("BrowserStateChangeDownloadCompleted", {
    type: Schema.Literal("download_completed"),
    download_id: opt(Schema.String),
    url: opt(Schema.String),
    path: optNull(Schema.String),
    size_bytes: optNull(Schema.Number)
  }),
  struct("BrowserStateChangeDownloadFailed", {
    type: Schema.Literal("download_failed"),
    download_id: opt(Schema.String),
    url: opt(Schema.String),
    error: optNull(Schema.String)
  })
)

/**
 * `browser_state` (a tool_result content item, `@anthropic-ai/sdk` 1.12).
 *
 * @since 0.1.0
 * @category tool result content
 */
export const BrowserStateBlock = struct("BrowserStateBlock", {
  type: Schema.Literal("browser_state"),
  tabs: opt(Schema.Array(BrowserStateTab)),
  state_changes: optNull(Schema.Array(BrowserStateChange)),
  cache_control: optNull(CacheControl)
})

/**
 * A tool_result content item of a `type` this version does not know (fields preserved).
 *
 * @since 0.1.0
 * @category tool result content
 */
export const UnknownToolResultItem = struct("UnknownToolResultItem", {
  type: Schema.String
})

/**
 * The known tool_result content items.
 *
 * @since 0.1.0
 * @category tool result content
 */
export const KnownToolResultContentItem = Schema.Union(
  TextBlock,
  ImageBlock,
  SearchResultBlock,
  DocumentBlock,
  ToolReferenceBlock,
  BrowserStateBlock
).annotations({ identifier: "KnownToolResultContentItem" })

/**
 * @since 0.1.0
 * @category models
 */
export type KnownToolResultContentItem = typeof KnownToolResultContentItem.Type

/**
 * One item of `tool_result.content` when it is an array: the known items, then
 * {@link UnknownToolResultItem} last.
 *
 * @since 0.1.0
 * @category tool result content
 */
export const ToolResultContentItem = Schema.Union(
  ...KnownToolResultContentItem.members,
  UnknownToolResultItem
).annotations({ identifier: "ToolResultContentItem" })

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultContentItem = typeof ToolResultContentItem.Type

/**
 * `tool_result` (user side). `content` is a string or an array of items, and may be absent.
 *
 * @since 0.1.0
 * @category blocks
 */
export const ToolResultBlock = struct("ToolResultBlock", {
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: opt(Schema.Union(Schema.String, Schema.Array(ToolResultContentItem))),
  is_error: opt(Schema.Boolean),
  toolset_name: optNull(Schema.String),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultBlock = typeof ToolResultBlock.Type

// ---------------------------------------------------------------------------------------------
// server tools
// ---------------------------------------------------------------------------------------------

/**
 * `server_tool_use`: a tool run by the API (web search, web fetch, code execution, …).
 *
 * @since 0.1.0
 * @category blocks
 */
export const ServerToolUseBlock = struct("ServerToolUseBlock", {
  type: Schema.Literal("server_tool_use"),
  id: Schema.String,
  name: Open(
    "advisor",
    "web_search",
    "web_fetch",
    "code_execution",
    "bash_code_execution",
    "text_editor_code_execution",
    "tool_search_tool_regex",
    "tool_search_tool_bm25"
  ),
  input: opt(Schema.Unknown),
  caller: opt(Caller),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ServerToolUseBlock = typeof ServerToolUseBlock.Type

const toolError = <const Type extends string>(type: Type, ...codes: ReadonlyArray<string>) =>
  struct(type, {
    type: Schema.Literal(type),
    error_code: opt(Open(...codes)),
    error_message: optNull(Schema.String)
  })

const WebSearchResult = struct("WebSearchResult", {
  type: Schema.Literal("web_search_result"),
  url: Schema.String,
  title: opt(Schema.String),
  encrypted_content: opt(Schema.String),
  page_age: optNull(Schema.String)
})

/**
 * `web_search_tool_result`: an error object or an array of results.
 *
 * @since 0.1.0
 * @category blocks
 */
export const WebSearchToolResultBlock = struct("WebSearchToolResultBlock", {
  type: Schema.Literal("web_search_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError(
      "web_search_tool_result_error",
      "invalid_tool_input",
      "unavailable",
      "max_uses_exceeded",
      "too_many_requests",
      "query_too_long",
      "request_too_large"
    ),
    Schema.Array(WebSearchResult)
  ),
  caller: opt(Caller),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type WebSearchToolResultBlock = typeof WebSearchToolResultBlock.Type

/**
 * `web_fetch_tool_result`: an error or the fetched document.
 *
 * @since 0.1.0
 * @category blocks
 */
export const WebFetchToolResultBlock = struct("WebFetchToolResultBlock", {
  type: Schema.Literal("web_fetch_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError(
      "web_fetch_tool_result_error",
      "invalid_tool_input",
      "url_too_long",
      "url_not_allowed",
      "url_not_in_prior_context",
      "url_not_accessible",
      "unsupported_content_type",
      "too_many_requests",
      "max_uses_exceeded",
      "unavailable",
      "content_too_large"
    ),
    struct("WebFetchResult", {
      type: Schema.Literal("web_fetch_result"),
      url: opt(Schema.String),
      retrieved_at: optNull(Schema.String),
      content: opt(DocumentBlock)
    })
  ),
  caller: opt(Caller),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type WebFetchToolResultBlock = typeof WebFetchToolResultBlock.Type

/**
 * `advisor_tool_result` (Beta): an error, a result, or a redacted result.
 *
 * @since 0.1.0
 * @category blocks
 */
export const AdvisorToolResultBlock = struct("AdvisorToolResultBlock", {
  type: Schema.Literal("advisor_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError(
      "advisor_tool_result_error",
      "max_uses_exceeded",
      "prompt_too_long",
      "too_many_requests",
      "overloaded",
      "unavailable",
      "execution_time_exceeded",
      "model_not_found"
    ),
    struct("AdvisorResult", {
      type: Schema.Literal("advisor_result"),
      text: Schema.String,
      stop_reason: optNull(Schema.String)
    }),
    struct("AdvisorRedactedResult", {
      type: Schema.Literal("advisor_redacted_result"),
      encrypted_content: Schema.String,
      stop_reason: optNull(Schema.String)
    })
  ),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type AdvisorToolResultBlock = typeof AdvisorToolResultBlock.Type

const executionErrorCodes = [
  "invalid_tool_input",
  "unavailable",
  "too_many_requests",
  "execution_time_exceeded"
] as const

const CodeExecutionOutput = struct("CodeExecutionOutput", {
  type: Schema.Literal("code_execution_output"),
  file_id: Schema.String
})

/**
 * `code_execution_tool_result`: an error, a result, or an encrypted result.
 *
 * @since 0.1.0
 * @category blocks
 */
export const CodeExecutionToolResultBlock = struct("CodeExecutionToolResultBlock", {
  type: Schema.Literal("code_execution_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError("code_execution_tool_result_error", ...executionErrorCodes),
    struct("CodeExecutionResult", {
      type: Schema.Literal("code_execution_result"),
      stdout: opt(Schema.String),
      stderr: opt(Schema.String),
      return_code: opt(Schema.Number),
      content: opt(Schema.Array(CodeExecutionOutput))
    }),
    struct("EncryptedCodeExecutionResult", {
      type: Schema.Literal("encrypted_code_execution_result"),
      encrypted_stdout: opt(Schema.String),
      stderr: opt(Schema.String),
      return_code: opt(Schema.Number),
      content: opt(Schema.Array(CodeExecutionOutput))
    })
  ),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type CodeExecutionToolResultBlock = typeof CodeExecutionToolResultBlock.Type

/**
 * `bash_code_execution_tool_result`: an error or a result.
 *
 * @since 0.1.0
 * @category blocks
 */
export const BashCodeExecutionToolResultBlock = struct("BashCodeExecutionToolResultBlock", {
  type: Schema.Literal("bash_code_execution_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError("bash_code_execution_tool_result_error", ...executionErrorCodes, "output_file_too_large"),
    struct("BashCodeExecutionResult", {
      type: Schema.Literal("bash_code_execution_result"),
      stdout: opt(Schema.String),
      stderr: opt(Schema.String),
      return_code: opt(Schema.Number),
      content: opt(Schema.Array(struct("BashCodeExecutionOutput", {
        type: Schema.Literal("bash_code_execution_output"),
        file_id: Schema.String
      })))
    })
  ),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type BashCodeExecutionToolResultBlock = typeof BashCodeExecutionToolResultBlock.Type

/**
 * `text_editor_code_execution_tool_result`: an error, or a view / create / str_replace result.
 *
 * @since 0.1.0
 * @category blocks
 */
export const TextEditorCodeExecutionToolResultBlock = struct("TextEditorCodeExecutionToolResultBlock", {
  type: Schema.Literal("text_editor_code_execution_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError("text_editor_code_execution_tool_result_error", ...executionErrorCodes, "file_not_found"),
    struct("TextEditorCodeExecutionViewResult", {
      type: Schema.Literal("text_editor_code_execution_view_result"),
      content: opt(Schema.String),
      file_type: opt(Open("text", "image", "pdf")),
      num_lines: optNull(Schema.Number),
      start_line: optNull(Schema.Number),
      total_lines: optNull(Schema.Number)
    }),
    struct("TextEditorCodeExecutionCreateResult", {
      type: Schema.Literal("text_editor_code_execution_create_result"),
      is_file_update: opt(Schema.Boolean)
    }),
    struct("TextEditorCodeExecutionStrReplaceResult", {
      type: Schema.Literal("text_editor_code_execution_str_replace_result"),
      lines: optNull(Schema.Array(Schema.String)),
      new_lines: optNull(Schema.Number),
      new_start: optNull(Schema.Number),
      old_lines: optNull(Schema.Number),
      old_start: optNull(Schema.Number)
    })
  ),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TextEditorCodeExecutionToolResultBlock = typeof TextEditorCodeExecutionToolResultBlock.Type

/**
 * `tool_search_tool_result`: an error or a list of tool references.
 *
 * @since 0.1.0
 * @category blocks
 */
export const ToolSearchToolResultBlock = struct("ToolSearchToolResultBlock", {
  type: Schema.Literal("tool_search_tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Union(
    toolError("tool_search_tool_result_error", ...executionErrorCodes),
    struct("ToolSearchToolSearchResult", {
      type: Schema.Literal("tool_search_tool_search_result"),
      tool_references: opt(Schema.Array(ToolReferenceBlock))
    })
  ),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolSearchToolResultBlock = typeof ToolSearchToolResultBlock.Type

// ---------------------------------------------------------------------------------------------
// MCP and other Beta blocks
// ---------------------------------------------------------------------------------------------

/**
 * `mcp_tool_use` (Beta): a call to a tool of a remote MCP server run by the API.
 *
 * @since 0.1.0
 * @category blocks
 */
export const McpToolUseBlock = struct("McpToolUseBlock", {
  type: Schema.Literal("mcp_tool_use"),
  id: Schema.String,
  name: Schema.String,
  server_name: opt(Schema.String),
  input: opt(Schema.Unknown),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpToolUseBlock = typeof McpToolUseBlock.Type

/**
 * `mcp_tool_result` (Beta): `is_error` is required on the response side, optional on the param
 * side; `content` is a string or text blocks.
 *
 * @since 0.1.0
 * @category blocks
 */
export const McpToolResultBlock = struct("McpToolResultBlock", {
  type: Schema.Literal("mcp_tool_result"),
  tool_use_id: Schema.String,
  content: opt(Schema.Union(Schema.String, Schema.Array(TextBlock))),
  is_error: opt(Schema.Boolean),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpToolResultBlock = typeof McpToolResultBlock.Type

/**
 * `container_upload`: a file uploaded into the code-execution container.
 *
 * @since 0.1.0
 * @category blocks
 */
export const ContainerUploadBlock = struct("ContainerUploadBlock", {
  type: Schema.Literal("container_upload"),
  file_id: Schema.String,
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ContainerUploadBlock = typeof ContainerUploadBlock.Type

const ToolChangeTarget = Schema.Union(
  struct("ToolChangeToolReference", {
    type: Schema.Literal("tool_reference"),
    name: Schema.String
  }),
  struct("ToolChangeMcpToolReference", {
    type: Schema.Literal("mcp_tool_reference"),
    name: Schema.String,
    server_name: opt(Schema.String)
  }),
  struct("ToolChangeMcpToolsetReference", {
    type: Schema.Literal("mcp_toolset_reference"),
    server_name: Schema.String
  }),
  // `definition` is a full tool definition (`BetaResponseToolUnion`, ~30 tool types): kept opaque.
  struct("ToolChangeToolDefinition", {
    type: Schema.Literal("tool_definition"),
    definition: Schema.Unknown
  })
)

const ToolChange = Schema.Union(
  struct("ToolAddition", { type: Schema.Literal("tool_addition"), tool: ToolChangeTarget }),
  struct("ToolRemoval", { type: Schema.Literal("tool_removal"), tool: ToolChangeTarget })
)

/**
 * `compaction` (Beta): a summary of earlier context, plain and/or encrypted.
 *
 * @since 0.1.0
 * @category blocks
 */
export const CompactionBlock = struct("CompactionBlock", {
  type: Schema.Literal("compaction"),
  content: optNull(Schema.String),
  encrypted_content: optNull(Schema.String),
  signature: optNull(Schema.String),
  tool_changes: optNull(Schema.Array(ToolChange)),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type CompactionBlock = typeof CompactionBlock.Type

const FallbackInfo = struct("FallbackInfo", { model: Schema.String })

/**
 * `fallback` (Beta, `@anthropic-ai/sdk` 1.12): the API switched model after a refusal.
 *
 * @since 0.1.0
 * @category blocks
 */
export const FallbackBlock = struct("FallbackBlock", {
  type: Schema.Literal("fallback"),
  from: opt(FallbackInfo),
  to: opt(FallbackInfo),
  trigger: opt(struct("FallbackTrigger", {
    type: Open("refusal"),
    category: optNull(Open("cyber", "bio", "frontier_llm", "reasoning_extraction", "general_harms"))
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type FallbackBlock = typeof FallbackBlock.Type

/**
 * `mcp_tool_listing` (Beta, `@anthropic-ai/sdk` 1.12): the tools an MCP server offers.
 *
 * @since 0.1.0
 * @category blocks
 */
export const McpToolListingBlock = struct("McpToolListingBlock", {
  type: Schema.Literal("mcp_tool_listing"),
  mcp_server_name: opt(Schema.String),
  tools: opt(Schema.Array(struct("McpTool", {
    name: Schema.String,
    input_schema: opt(OpaqueObject),
    description: optNull(Schema.String)
  }))),
  cache_control: optNull(CacheControl)
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpToolListingBlock = typeof McpToolListingBlock.Type

// ---------------------------------------------------------------------------------------------
// unions
// ---------------------------------------------------------------------------------------------

/**
 * A block of a `type` this version does not know, or of a known `type` with an unexpected
 * shape. Every field is preserved.
 *
 * @since 0.1.0
 * @category blocks
 */
export const UnknownBlock = struct("UnknownBlock", {
  type: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type UnknownBlock = typeof UnknownBlock.Type

/**
 * Every known content block, assistant and user side (no Unknown member).
 *
 * @since 0.1.0
 * @category unions
 */
export const KnownContentBlock = Schema.Union(
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  ImageBlock,
  DocumentBlock,
  SearchResultBlock,
  ServerToolUseBlock,
  WebSearchToolResultBlock,
  WebFetchToolResultBlock,
  AdvisorToolResultBlock,
  CodeExecutionToolResultBlock,
  BashCodeExecutionToolResultBlock,
  TextEditorCodeExecutionToolResultBlock,
  ToolSearchToolResultBlock,
  McpToolUseBlock,
  McpToolResultBlock,
  ContainerUploadBlock,
  CompactionBlock,
  FallbackBlock,
  McpToolListingBlock
).annotations({ identifier: "KnownContentBlock", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type KnownContentBlock = typeof KnownContentBlock.Type

/**
 * Any content block: the known blocks, then {@link UnknownBlock} last, so decoding only fails
 * on input that is not an object with a string `type`.
 *
 * @since 0.1.0
 * @category unions
 */
export const ContentBlock = Schema.Union(...KnownContentBlock.members, UnknownBlock)
  .annotations({ identifier: "ContentBlock", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * The `type`s of {@link KnownContentBlock}.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set(
  KnownContentBlock.members.map((member) => member.fields.type.literals[0])
)

/**
 * The `type`s of {@link KnownToolResultContentItem}.
 *
 * @since 0.1.0
 * @category constants
 */
export const KNOWN_TOOL_RESULT_ITEM_TYPES: ReadonlySet<string> = new Set(
  KnownToolResultContentItem.members.map((member) => member.fields.type.literals[0])
)

const isKnownContentBlock = Schema.is(KnownContentBlock)

/**
 * Whether a decoded block matches a known block schema (validates the block; a block of a
 * known `type` but unexpected shape is not known).
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownBlock = (block: ContentBlock): block is KnownContentBlock => isKnownContentBlock(block)

/**
 * Whether a decoded block fell into {@link UnknownBlock}. A plain boolean, not a type predicate:
 * every known block is also a `{type: string}`, so narrowing on `block is UnknownBlock` would
 * leave `never` in the other branch. Narrow with {@link isKnownBlock} instead.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUnknownBlock = (block: ContentBlock): boolean => !isKnownContentBlock(block)

const isKnownItem = Schema.is(KnownToolResultContentItem)

/**
 * Whether a decoded tool_result content item matches a known item schema.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownToolResultContentItem = (item: ToolResultContentItem): item is KnownToolResultContentItem =>
  isKnownItem(item)
