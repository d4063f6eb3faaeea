/**
 * `pnpm bench` for @acx/convert: conversion throughput over every user/assistant message
 * derivable from packages/fixtures/data (transcript `message` objects wrapped as SDK messages, plus
 * the SDK stream fixtures), against a baseline measured in the same run: a shallow copy of
 * every content block into a new `{role, content}` object, the least work any converter does.
 * Schema decoding with @acx/schema is measured separately so its cost is visible.
 */
import {
  assistantMeta,
  claudeAssistantMessageToAnthropicBlob,
  claudeUserMessageToAnthropicBlob,
  Decider
} from "@acx/convert"
import * as Fixtures from "@acx/fixtures"
import { SdkMessage } from "@acx/schema"
import { Either, Schema } from "effect"
import * as os from "node:os"
import { type Candidate, formatRate, measure } from "./harness.js"

type Message = {
  readonly type: "user" | "assistant"
  readonly message: { readonly role?: string; readonly content?: unknown }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const loadMessages = (): Array<Message> => {
  const fromTranscripts = Fixtures.transcriptEntries().flatMap(({ value }) =>
    isRecord(value) && (value["type"] === "user" || value["type"] === "assistant") && isRecord(value["message"])
      ? [{
        type: value["type"],
        message: value["message"],
        uuid: value["uuid"],
        session_id: value["sessionId"],
        parent_tool_use_id: null
      } as Message]
      : []
  )
  const fromStreams = Fixtures.sdkMessages().flatMap(({ value }) =>
    isRecord(value) && (value["type"] === "user" || value["type"] === "assistant") && isRecord(value["message"])
      ? [value as Message]
      : []
  )
  return [...fromTranscripts, ...fromStreams]
}

const baseline: Candidate<Message> = {
  name: "baseline: shallow copy into {role, content}",
  run: (msg) => {
    const content = msg.message.content
    const copy = {
      role: msg.message.role,
      content: Array.isArray(content) ? content.map((block) => ({ ...block })) : content
    }
    return Array.isArray(copy.content) ? copy.content.length : 1
  }
}

const convert: Candidate<Message> = {
  name: "acx: blob + meta (pure conversion)",
  run: (msg) => {
    if (msg.type === "user") return claudeUserMessageToAnthropicBlob(msg)?.content.length ?? 0
    const { blob, hasThinking } = claudeAssistantMessageToAnthropicBlob(msg)
    return (blob?.content.length ?? 0) + (assistantMeta(msg, hasThinking) === null ? 0 : 1)
  }
}

const state = Either.getOrThrow(Decider.initialState())
const decide: Candidate<Message> = {
  name: "acx: Decider.decide (routing + conversion + meta)",
  run: (msg) => (Decider.decide(state, msg)._tag === "Store" ? 1 : 0)
}

const decodeEither = Schema.decodeUnknownEither(SdkMessage.SdkMessage)
const decode: Candidate<Message> = {
  name: "@acx/schema: decode SdkMessage",
  run: (msg) => (Either.isRight(decodeEither(msg)) ? 1 : 0)
}

const main = () => {
  const messages = loadMessages()
  const bytes = messages.reduce((n, m) => n + JSON.stringify(m).length, 0)
  console.log(
    `@acx/convert bench — ${new Date().toISOString()} — node ${process.version}, ${
      os.cpus()[0]?.model ?? "cpu"
    } x${os.cpus().length}`
  )
  console.log(
    `inputs: ${messages.length} user/assistant messages (${
      (bytes / 1e6).toFixed(2)
    } MB JSON) from ${Fixtures.fixturesDir}`
  )
  const results = measure([baseline, convert, decide, decode], messages)
  const base = results[0]!.medianPerSecond
  for (const r of results) {
    const ratio = (r.medianPerSecond / base).toFixed(2)
    console.log(
      `  ${r.name.padEnd(52)} ${formatRate(r.medianPerSecond).padStart(11)}  (min ${formatRate(r.minPerSecond)}, max ${
        formatRate(r.maxPerSecond)
      })  ratio ${ratio}x`
    )
  }
  const ratio = results[1]!.medianPerSecond / base
  console.log(`conversion ratio vs baseline: ${ratio.toFixed(2)}x (target >= 1.00x) ${ratio >= 1 ? "MET" : "NOT MET"}`)
}

main()
