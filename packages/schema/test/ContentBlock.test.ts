import { ContentBlock } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"

const decode = Schema.decodeUnknownEither(ContentBlock.ContentBlock)
const encode = Schema.encodeEither(ContentBlock.ContentBlock)

const decodeRight = (input: unknown): ContentBlock.ContentBlock => {
  const result = decode(input)
  if (Either.isLeft(result)) throw new Error(ParseResult.TreeFormatter.formatErrorSync(result.left))
  return result.right
}

const identifierOf = (schema: Schema.Schema.Any): string =>
  Option.getOrElse(SchemaAST.getIdentifierAnnotation(schema.ast), () => "?")

const memberOf = (value: ContentBlock.ContentBlock): string => {
  const members: ReadonlyArray<Schema.Schema.AnyNoContext> = ContentBlock.ContentBlock.members
  const member = members.find((m) => Schema.is(m)(value))
  return member === undefined ? "none" : identifierOf(member)
}

const text = { type: "text", text: "hello" }
const base64Png = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }

/** One realistic example per block shape (response and param shapes of the same type). */
const examples: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["TextBlock", text],
  ["TextBlock", { type: "text", text: "cited", citations: null }],
  [
    "TextBlock",
    {
      type: "text",
      text: "cited",
      citations: [
        {
          type: "char_location",
          cited_text: "a",
          document_index: 0,
          document_title: null,
          start_char_index: 0,
          end_char_index: 1,
          file_id: null
        },
        {
          type: "page_location",
          cited_text: "b",
          document_index: 0,
          document_title: "Doc",
          start_page_number: 1,
          end_page_number: 2
        },
        {
          type: "content_block_location",
          cited_text: "c",
          document_index: 1,
          document_title: null,
          start_block_index: 0,
          end_block_index: 1
        },
        {
          type: "web_search_result_location",
          cited_text: "d",
          encrypted_index: "enc",
          title: null,
          url: "https://example.com"
        },
        {
          type: "search_result_location",
          cited_text: "e",
          search_result_index: 0,
          source: "kb",
          title: null,
          start_block_index: 0,
          end_block_index: 0
        }
      ],
      cache_control: { type: "ephemeral", ttl: "5m" }
    }
  ],
  ["ThinkingBlock", { type: "thinking", thinking: "hmm", signature: "sig" }],
  ["RedactedThinkingBlock", { type: "redacted_thinking", data: "opaque" }],
  [
    "ToolUseBlock",
    { type: "tool_use", id: "toolu_01", name: "Read", input: { file_path: "/a" }, caller: { type: "direct" } }
  ],
  [
    "ToolResultBlock",
    {
      type: "tool_result",
      tool_use_id: "toolu_01",
      is_error: false,
      content: [
        text,
        { type: "image", source: base64Png },
        { type: "search_result", source: "kb", title: "T", content: [text] },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
        { type: "tool_reference", tool_name: "Read" },
        {
          type: "browser_state",
          tabs: [{ tab_id: "1", title: "t", url: "https://example.com", active: true }],
          state_changes: [{ type: "tab_opened", tab_id: "1" }]
        }
      ]
    }
  ],
  ["ToolResultBlock", { type: "tool_result", tool_use_id: "toolu_02", content: "plain" }],
  ["ToolResultBlock", { type: "tool_result", tool_use_id: "toolu_03" }],
  ["ImageBlock", { type: "image", source: base64Png }],
  ["ImageBlock", { type: "image", source: { type: "url", url: "https://example.com/a.png" } }],
  ["ImageBlock", { type: "image", source: { type: "file", file_id: "file_1" } }],
  [
    "DocumentBlock",
    { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "A" }
  ],
  ["DocumentBlock", { type: "document", source: { type: "content", content: [text] }, citations: { enabled: true } }],
  ["DocumentBlock", { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }],
  ["SearchResultBlock", { type: "search_result", source: "kb", title: "T", content: [text] }],
  [
    "ServerToolUseBlock",
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "effect schema" } }
  ],
  [
    "WebSearchToolResultBlock",
    {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [{
        type: "web_search_result",
        url: "https://effect.website",
        title: "Effect",
        encrypted_content: "enc",
        page_age: null
      }]
    }
  ],
  [
    "WebSearchToolResultBlock",
    {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" }
    }
  ],
  [
    "WebFetchToolResultBlock",
    {
      type: "web_fetch_tool_result",
      tool_use_id: "srvtoolu_2",
      content: {
        type: "web_fetch_result",
        url: "https://example.com",
        retrieved_at: null,
        content: {
          type: "document",
          source: { type: "text", media_type: "text/plain", data: "page" },
          title: null,
          citations: null
        }
      }
    }
  ],
  [
    "AdvisorToolResultBlock",
    { type: "advisor_tool_result", tool_use_id: "srvtoolu_3", content: { type: "advisor_result", text: "ok" } }
  ],
  [
    "CodeExecutionToolResultBlock",
    {
      type: "code_execution_tool_result",
      tool_use_id: "srvtoolu_4",
      content: {
        type: "code_execution_result",
        stdout: "1",
        stderr: "",
        return_code: 0,
        content: [{ type: "code_execution_output", file_id: "file_2" }]
      }
    }
  ],
  [
    "BashCodeExecutionToolResultBlock",
    {
      type: "bash_code_execution_tool_result",
      tool_use_id: "srvtoolu_5",
      content: { type: "bash_code_execution_result", stdout: "", stderr: "", return_code: 0, content: [] }
    }
  ],
  [
    "TextEditorCodeExecutionToolResultBlock",
    {
      type: "text_editor_code_execution_tool_result",
      tool_use_id: "srvtoolu_6",
      content: {
        type: "text_editor_code_execution_view_result",
        content: "x",
        file_type: "text",
        num_lines: 1,
        start_line: 1,
        total_lines: 1
      }
    }
  ],
  [
    "ToolSearchToolResultBlock",
    {
      type: "tool_search_tool_result",
      tool_use_id: "srvtoolu_7",
      content: {
        type: "tool_search_tool_search_result",
        tool_references: [{ type: "tool_reference", tool_name: "Read" }]
      }
    }
  ],
  [
    "McpToolUseBlock",
    { type: "mcp_tool_use", id: "mcptoolu_1", name: "search", server_name: "kb", input: { q: "x" } }
  ],
  ["McpToolResultBlock", { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: false, content: [text] }],
  ["ContainerUploadBlock", { type: "container_upload", file_id: "file_3" }],
  [
    "CompactionBlock",
    {
      type: "compaction",
      content: "summary",
      encrypted_content: null,
      tool_changes: [{ type: "tool_addition", tool: { type: "tool_reference", name: "Read" } }]
    }
  ],
  [
    "FallbackBlock",
    {
      type: "fallback",
      from: { model: "claude-opus-5" },
      to: { model: "claude-sonnet-5" },
      trigger: { type: "refusal", category: null }
    }
  ],
  [
    "McpToolListingBlock",
    {
      type: "mcp_tool_listing",
      mcp_server_name: "kb",
      tools: [{ name: "search", input_schema: { type: "object" } }]
    }
  ]
]

describe("ContentBlock", () => {
  it("has an example for every known block type", () => {
    const covered = new Set(examples.map(([, input]) => input["type"]))
    expect([...ContentBlock.KNOWN_BLOCK_TYPES].filter((type) => !covered.has(type))).toEqual([])
    expect(ContentBlock.KNOWN_BLOCK_TYPES.size).toBe(22)
  })

  it.each(examples.map(([identifier, input]) => [identifier, input] as const))(
    "%s decodes to its member, unchanged, and round-trips",
    (identifier, input) => {
      const decoded = decodeRight(input)
      expect(memberOf(decoded)).toBe(identifier)
      expect(ContentBlock.isKnownBlock(decoded)).toBe(true)
      expect(decoded).toEqual(input)
      expect(encode(decoded)).toEqual(Either.right(input))
    }
  )

  it("tool_result content items of every known type are known", () => {
    const block = decodeRight(examples[6]![1])
    expect(block.type).toBe("tool_result")
    const items = (block as ContentBlock.ToolResultBlock).content
    expect(Array.isArray(items)).toBe(true)
    for (const item of items as ReadonlyArray<ContentBlock.ToolResultContentItem>) {
      expect(ContentBlock.isKnownToolResultContentItem(item)).toBe(true)
    }
    expect(ContentBlock.KNOWN_TOOL_RESULT_ITEM_TYPES.size).toBe(6)
  })

  it("an unknown block type decodes to UnknownBlock, fields preserved", () => {
    const input = { type: "hologram", frames: [1, 2], meta: { a: null } }
    const decoded = decodeRight(input)
    expect(ContentBlock.isUnknownBlock(decoded)).toBe(true)
    expect(memberOf(decoded)).toBe("UnknownBlock")
    expect(decoded).toEqual(input)
  })

  it("a known type whose shape does not fit (new citation variant, missing text) decodes to UnknownBlock", () => {
    const inputs = [
      { type: "text" },
      { type: "text", text: "x", citations: [{ type: "future_location", cited_text: "q" }] },
      { type: "image", source: { type: "future_source", blob: "b" } }
    ]
    for (const input of inputs) {
      const decoded = decodeRight(input)
      expect(ContentBlock.isUnknownBlock(decoded)).toBe(true)
      expect(decoded).toEqual(input)
    }
  })

  it("an unknown tool_result item decodes to UnknownToolResultItem; the block stays known", () => {
    const input = { type: "tool_result", tool_use_id: "t", content: [{ type: "future_item", x: 1 }] }
    const decoded = decodeRight(input)
    expect(ContentBlock.isKnownBlock(decoded)).toBe(true)
    const item = (decoded as ContentBlock.ToolResultBlock).content as ReadonlyArray<ContentBlock.ToolResultContentItem>
    expect(ContentBlock.isKnownToolResultContentItem(item[0]!)).toBe(false)
    expect(decoded).toEqual(input)
  })

  it("unknown fields are preserved at every level, also by a block schema used on its own", () => {
    const input = {
      type: "text",
      text: "x",
      extra: 1,
      citations: [{ type: "char_location", cited_text: "a", extra_citation: true }],
      cache_control: { type: "ephemeral", extra_cc: "y" }
    }
    expect(decodeRight(input)).toEqual(input)
    expect(Schema.decodeUnknownSync(ContentBlock.TextBlock)(input)).toEqual(input)
    expect(Schema.decodeUnknownSync(ContentBlock.KnownContentBlock)(input)).toEqual(input)
  })

  it.each([null, 1, "text", [], {}, { type: 1 }])("input %j fails with a ParseError", (input) => {
    const result = decode(input)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(ParseResult.isParseError(result.left)).toBe(true)
  })
})
