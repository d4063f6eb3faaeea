/**
 * The real SDK end to end on acx's SessionStore adapters: `query({ options: { sessionStore } })`
 * against the stand-in CLI, which emits `transcript_mirror` frames for the main transcript and
 * a subagent → the entries land in the adapter; a second `query` with `resume` makes the SDK
 * load from the adapter, and the stand-in checks it was started with `--resume=<id>` and that
 * the materialised transcript equals what was mirrored.
 */
import { createMemorySessionStore } from "@acx/session-store/MemorySessionStore"
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
import type { SdkSessionStore } from "@acx/session-store/SessionStore"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import {
  failuresOf,
  prepareStandInCli,
  projectKeyFor,
  promptStream,
  realisticConversation,
  startsOf
} from "@acx/testing"
import { query } from "@anthropic-ai/claude-agent-sdk"
import { describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"

const drain = async (messages: AsyncIterable<unknown>): Promise<number> => {
  let n = 0
  for await (const _ of messages) n++
  return n
}

const mirrorAndResume = (name: string, makeStore: (dir: string) => SdkSessionStore) =>
  it(`${name}: mirrored entries land in the store; resume loads them back`, async () => {
    const cwd = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "acx-store-query-")))
    await using store = makeStore(cwd)
    try {
      const first = realisticConversation({
        prompts: ["The date tests fail in CI, fix them"],
        subagent: true,
        mirror: true,
        cwd
      })
      const cli1 = await prepareStandInCli({ scenario: first.scenario, cwd })
      try {
        await drain(
          query({ prompt: promptStream(first.promptMessages), options: { ...cli1.queryOptions, sessionStore: store } })
        )
        expect(failuresOf(await cli1.readLog())).toEqual([])
      } finally {
        await cli1.cleanup()
      }

      const key = { projectKey: projectKeyFor(cwd), sessionId: first.sessionId }
      expect(await store.load(key)).toEqual(first.transcript.main)
      const [agentId] = first.subagentIds
      const subpath = `subagents/agent-${agentId}`
      expect(await store.listSubkeys(key)).toEqual([subpath])
      expect(await store.load({ ...key, subpath })).toEqual(first.transcript.subagents[subpath])
      expect((await store.listSessions(key.projectKey)).map((s) => s.sessionId)).toEqual([first.sessionId])

      const second = realisticConversation({
        prompts: ["Now make overdue invoices use whole days"],
        mirror: true,
        cwd,
        resumeOf: first
      })
      const cli2 = await prepareStandInCli({ scenario: second.scenario, cwd })
      try {
        await drain(query({
          prompt: promptStream(second.promptMessages),
          options: { ...cli2.queryOptions, sessionStore: store, resume: first.sessionId }
        }))
        const log = await cli2.readLog()
        // expectArgs (--resume=<sid>) and expectResumeTranscript (the materialised transcript
        // equals what the adapter holds) are assertions the stand-in made itself.
        expect(failuresOf(log)).toEqual([])
        expect(startsOf(log)[0]!.argv).toContain(`--resume=${first.sessionId}`)
      } finally {
        await cli2.cleanup()
      }
      // the resumed run mirrored onto the same key: both turns are there, once each
      const main = await store.load(key)
      expect(main).toEqual([...first.transcript.main, ...second.transcript.main])
    } finally {
      await fs.rm(cwd, { recursive: true, force: true })
    }
  }, 30_000)

describe("the real SDK's query() mirroring into and resuming from acx's stores", () => {
  mirrorAndResume("MemorySessionStore", () => createMemorySessionStore())
  mirrorAndResume("SqliteSessionStore", (dir) => createSqliteSessionStore({ filename: path.join(dir, "store.sqlite") }))
  const url = process.env["ACX_PG_URL"]
  describe.skipIf(url === undefined)(`Postgres${url === undefined ? " — ACX_PG_URL is not set" : ""}`, () => {
    mirrorAndResume(
      "PostgresSessionStore",
      () => createPostgresSessionStore({ url: url!, schema: `query_${randomUUID().replace(/-/g, "").slice(0, 12)}` })
    )
  })
})
