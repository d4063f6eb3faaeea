/**
 * The message builders of the upstream test vectors, in both SDK shapes, behind one interface, so
 * each storage group can run once with TypeScript SDK messages (Acontext's TypeScript
 * integration) and once with Python `asdict()` dicts (its Python integration), and the expected
 * blocks they convert to.
 */
import * as F from "@acx/fixtures/acontextVectors"
import { textBlock } from "@acx/fixtures/acontextVectors"

/** The message builders of one SDK shape. */
export interface Shape {
  readonly name: string
  readonly TEXT: unknown
  readonly EMPTY_TEXT: unknown
  readonly THINKING: unknown
  readonly EMPTY_THINKING: unknown
  readonly TOOL_USE: unknown
  readonly TOOL_RESULT: unknown
  readonly systemInit: (id?: string) => unknown
  readonly userText: (text?: string) => unknown
  readonly userBlocks: (...blocks: Array<unknown>) => unknown
  readonly assistant: (
    blocks: Array<unknown>,
    options?: { readonly model?: string; readonly error?: unknown }
  ) => unknown
  readonly resultMessage: (id?: string) => unknown
  readonly streamEvent: (id?: string) => unknown
}

export const TS: Shape = {
  name: "Acontext TS integration (TypeScript shapes)",
  TEXT: F.TEXT,
  EMPTY_TEXT: F.EMPTY_TEXT,
  THINKING: F.THINKING,
  EMPTY_THINKING: F.EMPTY_THINKING,
  TOOL_USE: F.TOOL_USE,
  TOOL_RESULT: F.TOOL_RESULT,
  systemInit: F.systemInit,
  userText: F.userText,
  userBlocks: F.userBlocks,
  assistant: F.assistant,
  resultMessage: F.resultMessage,
  streamEvent: F.streamEvent
}

export const PY: Shape = {
  name: "Acontext Python integration (Python dicts)",
  TEXT: F.PY_TEXT,
  EMPTY_TEXT: F.PY_EMPTY_TEXT,
  THINKING: F.PY_THINKING,
  EMPTY_THINKING: F.PY_EMPTY_THINKING,
  TOOL_USE: F.PY_TOOL_USE,
  TOOL_RESULT: F.PY_TOOL_RESULT,
  systemInit: F.pySystemInit,
  userText: F.pyUserText,
  userBlocks: F.pyUserBlocks,
  assistant: F.pyAssistant,
  resultMessage: F.pyResultMessage,
  streamEvent: F.pyStreamEvent
}

/** What the upstream vectors' blocks convert to. */
export const TEXT_OUT = textBlock("Hello, world!")
export const THINKING_AS_TEXT = textBlock("Let me reason...")
export const TOOL_USE_OUT = { type: "tool_use", id: "tu_1", name: "calculator", input: { expr: "1+1" } }
export const TOOL_RESULT_OUT = { type: "tool_result", tool_use_id: "tu_1", content: "Result is 2" }
