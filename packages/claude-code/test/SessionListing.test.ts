/**
 * One listing: `acx sessions --json` and the page's `GET /api/sessions` both print
 * `SessionListing.rows`: one order (last activity, newest first, ties by id) whatever order the
 * directory listing came in, and absent fields left out (never `null`, nothing beyond the Schema).
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as Redact from "@acx/convert/Redact"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Schema from "effect/Schema"

const time = fc.date({ min: new Date(0), max: new Date(2e12), noInvalidDate: true }).map((d) => d.toISOString())
const session = fc.record({
  projectKey: fc.constantFrom("-a", "-b"),
  sessionId: fc.constantFrom("s1", "s2", "s3", "s4", "s5"),
  file: fc.string(),
  mtime: fc.integer({ min: 0, max: 2e12 }),
  size: fc.nat(),
  title: fc.string(),
  firstPrompt: fc.string(),
  cwd: fc.string(),
  gitBranch: fc.string(),
  startTime: time,
  lastTime: fc.oneof(time, fc.constant("not a time"))
}, { requiredKeys: ["projectKey", "sessionId", "file", "mtime", "size"] })

describe("SessionListing.rows", () => {
  it("orders by last activity (the last entry's time, else the mtime), the same for any input order", () => {
    fc.assert(
      fc.property(
        // session ids are UUIDs: one listing never holds the same id twice (ties are by id)
        fc.uniqueArray(session, { selector: (s) => s.sessionId, maxLength: 12 }).chain((xs) =>
          fc.tuple(fc.constant(xs), fc.shuffledSubarray(xs, { minLength: xs.length }))
        ),
        ([sessions, shuffled]) => {
          const rows = SessionListing.rows(sessions)
          expect(SessionListing.rows(shuffled).map((row) => [row.sessionId, row.mtime, row.lastTime])).toEqual(
            rows.map((row) => [row.sessionId, row.mtime, row.lastTime])
          )
          const active = rows.map(SessionListing.lastActivity)
          expect(active).toEqual([...active].sort((a, b) => b - a))
        }
      )
    )
  })

  it("leaves absent fields out, never null, and nothing the Schema does not name", () => {
    fc.assert(fc.property(fc.array(session, { maxLength: 6 }), (sessions) => {
      const rows = SessionListing.rows(sessions.map((s) => ({ ...s, extra: "internal" })))
      for (const row of rows) {
        expect(Object.values(row)).not.toContain(null)
        expect(Object.values(row)).not.toContain(undefined)
        expect(Object.keys(row)).not.toContain("extra")
        expect(Schema.decodeUnknownSync(SessionListing.ListedSession)(row)).toEqual(row)
      }
      // what the Schema's own encoding gives, key order included (the typed texts masked)
      const encoded = Schema.encodeSync(SessionListing.Listing)([...sessions].sort(SessionListing.byLastActivity))
        .map((row) => ({
          ...row,
          ...(row.title === undefined ? {} : { title: Redact.redactSecrets(row.title) }),
          ...(row.firstPrompt === undefined ? {} : { firstPrompt: Redact.redactSecrets(row.firstPrompt) })
        }))
      expect(JSON.stringify(rows)).toBe(JSON.stringify(encoded))
    }))
  })

  it("a session last active yesterday comes before one whose file was only touched today", () => {
    const rows = SessionListing.rows([
      {
        projectKey: "-a",
        sessionId: "touched",
        file: "/t",
        mtime: Date.parse("2026-01-02T00:00:00Z"),
        size: 1,
        lastTime: "2025-12-01T00:00:00Z"
      },
      {
        projectKey: "-a",
        sessionId: "active",
        file: "/a",
        mtime: Date.parse("2026-01-01T00:00:00Z"),
        size: 1,
        lastTime: "2026-01-01T00:00:00Z"
      }
    ])
    expect(rows.map((row) => row.sessionId)).toEqual(["active", "touched"])
  })

  it("masks secrets in the title and the first and last prompts, as the page does; nothing else", () => {
    const key = "sk-ant-api03-" + "A".repeat(40)
    const [row] = SessionListing.rows([{
      projectKey: "-a",
      sessionId: "s1",
      file: `/p/${key}`,
      mtime: 1,
      size: 1,
      title: `deploy with ${key}`,
      firstPrompt: `my key is ${key}`,
      lastPrompt: `export ANTHROPIC_API_KEY=${key}`,
      cwd: "/home/dev/app"
    }])
    expect(JSON.stringify([row!.title, row!.firstPrompt, row!.lastPrompt])).not.toContain(key)
    expect(row!.firstPrompt).toBe("my key is [REDACTED:anthropic-key]")
    expect(row!.cwd).toBe("/home/dev/app")
    expect(row!.file).toBe(`/p/${key}`)
  })

  it("the rows' field list (which loads without Effect) is the Schema's, in its order", () => {
    expect(ListingRows.FIELDS).toEqual(Object.keys(SessionListing.ListedSession.fields))
  })
})
