/**
 * A listing's rows built in one step: `ListingRows.row` (field by field), `ListingRows.ordered`
 * (each time parsed once) and `StoreListing.listedOf` (a store's raw listing row straight to its
 * listed row) give exactly what the rows were before, when each meta row became a stored session
 * (spreads), a session info (rest) and a listed row (a loop over `FIELDS`, origins spread in),
 * sorted by `byLastActivity`. The references below are those steps as they were written.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as StoreListing from "@acx/claude-code/StoreListing"
import * as Redact from "@acx/convert/Redact"
import type * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

// --- the references: the steps as they were ---
const compact = (record: { readonly [key: string]: string | undefined }) => {
  const out: { [key: string]: string } = {}
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value
  return out
}
const metadataAsBefore = (state: SessionMetadata.MetadataState): SessionMetadata.SessionMetadata =>
  compact({
    title: state.customTitle ?? state.aiTitle ?? state.summary,
    firstPrompt: state.firstPrompt ?? state.firstCommand,
    lastPrompt: state.lastPromptEntry ?? state.lastUserPrompt,
    cwd: state.cwd,
    gitBranch: state.gitBranch,
    startTime: state.startTime,
    lastTime: state.lastTime
  })
const stateAsBefore = (text: string): SessionMetadata.MetadataState => {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {}
    const state: Record<string, string> = {}
    for (const [key, value] of Object.entries(parsed)) if (typeof value === "string") state[key] = value
    return state
  } catch {
    return {}
  }
}
const storedAsBefore = (row: StoreCatalogSql.MetaRow) => {
  const lastActivityMs = row.last_activity_ms === null ? undefined : Number(row.last_activity_ms)
  return {
    projectKey: row.project_key,
    sessionId: row.session_id,
    mtime: Number(row.mtime),
    ...metadataAsBefore(stateAsBefore(row.state)),
    ...(lastActivityMs === undefined ? {} : { lastActivityMs }),
    entries: Number(row.entries),
    userMessages: Number(row.user_messages),
    assistantMessages: Number(row.assistant_messages),
    toolCalls: Number(row.tool_calls),
    subagents: Number(row.subagents)
  }
}
const infoAsBefore = (location: string, stored: ReturnType<typeof storedAsBefore>) => {
  const {
    assistantMessages: _a,
    entries: _e,
    lastActivityMs: _l,
    subagents: _s,
    toolCalls: _t,
    userMessages: _u,
    ...rest
  } = stored
  return { ...rest, file: StoreListing.locationOf(location, stored), size: 0 }
}
const TYPED = new Set(["title", "firstPrompt", "lastPrompt"])
const rowAsBefore = (session: Record<string, unknown>, origin: ListingRows.RowOrigin | undefined) => {
  const row: Record<string, unknown> = {}
  const given = origin === undefined ? session : { ...session, project: origin.project, machine: origin.machine }
  for (const key of ListingRows.FIELDS) {
    const value = given[key]
    if (value !== undefined) {
      row[key] = TYPED.has(key) && typeof value === "string"
        ? Redact.redactSecrets(value)
        : value
    }
  }
  return row
}

// --- arbitraries: texts with secrets, control characters and lone surrogates; damaged states ---
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom("", "\ud800", "a\udfff", "\u001b]52;c;x\u0007", "token: sk-ant-api03-abcdefghijklmnopqrstuvwx", "ok")
)
const time = fc.oneof(
  fc.date({ min: new Date(0), max: new Date(2e12), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom("2026-01-01T00:00:00.000Z", "not a time", "2026-02-30T10:00:00Z", "")
)
const stateObject = fc.record({
  customTitle: text,
  aiTitle: text,
  summary: text,
  firstPrompt: text,
  firstCommand: text,
  lastPromptEntry: text,
  lastUserPrompt: text,
  cwd: text,
  gitBranch: text,
  startTime: time,
  lastTime: time,
  other: fc.oneof(text, fc.integer(), fc.constant(null))
}, { requiredKeys: [] })
const state = fc.oneof(
  { arbitrary: stateObject.map((s) => JSON.stringify(s)), weight: 8 },
  {
    arbitrary: fc.constantFrom("{broken", "[1,2]", "null", "42", "\"x\"", "{\"title\":5,\"lastTime\":7}", ""),
    weight: 1
  },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)), weight: 1 }
)
const listingRow = fc.tuple(
  fc.constantFrom("-a", "-b", "-home-x/y"),
  fc.constantFrom("s1", "s2", "s3", "ü", "a/b"),
  state,
  fc.oneof(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 0, max: 2e12 }).map(String)),
  fc.option(fc.constantFrom("github.com/x/y", "/home/x")),
  fc.option(fc.constantFrom("laptop", "ci"))
)

describe("ListingRows.row, ListingRows.ordered, StoreListing.listedOf", () => {
  it("property: a store's listing row is the listed row the catalog's steps made of it", () => {
    fc.assert(
      fc.property(listingRow, fc.nat(), ([projectKey, sessionId, text, mtime, project, machine], activity) => {
        const meta: StoreCatalogSql.MetaRow = {
          project_key: projectKey,
          session_id: sessionId,
          state: text,
          last_activity_ms: activity % 3 === 0 ? null : activity,
          entries: 3,
          user_messages: 1,
          assistant_messages: 1,
          tool_calls: 0,
          subagents: 0,
          mtime
        }
        const origin = project === null || machine === null ? undefined : { project, machine }
        const before = rowAsBefore(infoAsBefore("sqlite:/x.db", storedAsBefore(meta)), origin)
        const listed = StoreListing.listedOf("sqlite:/x.db", [projectKey, sessionId, text, mtime, project, machine])
        expect(JSON.stringify(listed)).toBe(JSON.stringify(before))
        expect(listed).toStrictEqual(before)
        // the catalog's own steps, rewritten without spreads, give the same objects in the same order
        const stored = StoreCatalogSql.storedSessionOf(meta)
        expect(JSON.stringify(stored)).toBe(JSON.stringify(storedAsBefore(meta)))
        const info = StoreListing.sessionInfoOf("sqlite:/x.db", stored)
        expect(JSON.stringify(info)).toBe(JSON.stringify(infoAsBefore("sqlite:/x.db", storedAsBefore(meta))))
        expect(JSON.stringify(ListingRows.row(info, info, origin))).toBe(JSON.stringify(before))
      }),
      { numRuns: 3000 }
    )
  })

  it("property: a row keeps what a session holds beyond the fields out, and its own origin without one", () => {
    const session = fc.record({
      projectKey: text,
      sessionId: text,
      file: text,
      mtime: fc.integer(),
      size: fc.nat(),
      title: text,
      firstPrompt: text,
      lastPrompt: text,
      lastTime: time,
      project: text,
      machine: text,
      extra: text
    }, { requiredKeys: ["projectKey", "sessionId", "file", "mtime", "size"] })
    const origin = fc.option(fc.record({ project: text, machine: text }), { nil: undefined })
    fc.assert(
      fc.property(session, origin, (given, from) => {
        const row = ListingRows.row(given, given, from)
        expect(JSON.stringify(row)).toBe(JSON.stringify(rowAsBefore(given, from)))
        expect(Object.keys(row).every((key) => (ListingRows.FIELDS as ReadonlyArray<string>).includes(key))).toBe(true)
      }),
      { numRuns: 2000 }
    )
  })

  it("property: ordered is the stable sort by byLastActivity, whatever ties the rows have", () => {
    const row = fc.record({
      projectKey: fc.constantFrom("-a", "-b"),
      sessionId: fc.constantFrom("s1", "s2", "S1", "é"),
      mtime: fc.integer({ min: 0, max: 3 }),
      lastTime: time
    }, { requiredKeys: ["projectKey", "sessionId", "mtime"] })
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const sorted = ListingRows.ordered(rows)
        const expected = [...rows].sort(ListingRows.byLastActivity)
        expect(sorted.length).toBe(expected.length)
        sorted.forEach((r, i) => expect(r).toBe(expected[i]))
      }),
      { numRuns: 2000 }
    )
  })
})
