import * as SessionListing from "@acx/claude-code/SessionListing"
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as CostOutliers from "../src/CostOutliers.js"
import * as SessionList from "../src/SessionList.js"

const listed = fc.record({
  projectKey: fc.constantFrom("-a", "-b", "-c"),
  sessionId: fc.uuid(),
  file: fc.constant("/config/projects/p/s.jsonl"),
  mtime: fc.integer({ min: 0, max: 2e12 }),
  size: fc.nat(),
  cwd: fc.constantFrom("/home/u/app", "C:\\work\\api\\", "/"),
  lastTime: fc.date({ min: new Date(0), max: new Date(2e12) }).map((d) => d.toISOString())
}, { requiredKeys: ["projectKey", "sessionId", "file", "mtime", "size"] })

describe("SessionList", () => {
  it("orders rows by last activity, keeps every session once, and counts them per project", () => {
    fc.assert(
      fc.property(fc.array(listed, { maxLength: 30 }), (sessions) => {
        const rows = SessionListing.rows(sessions)
        expect(rows.map((row) => row.sessionId).sort()).toEqual(sessions.map((s) => s.sessionId).sort())
        const active = rows.map((row) => (row.lastTime === undefined ? row.mtime : Date.parse(row.lastTime)))
        expect(active).toEqual([...active].sort((a, b) => b - a))
        const projects = SessionList.projectRows(rows)
        expect(projects.reduce((n, p) => n + p.sessions, 0)).toBe(sessions.length)
        for (const project of projects) expect(project.name).not.toBe("")
      })
    )
  })

  it("names a project by the last segment of its cwd, on any system", () => {
    expect(SessionList.lastSegment("/home/u/app")).toBe("app")
    expect(SessionList.lastSegment("C:\\work\\api\\")).toBe("api")
    expect(SessionList.lastSegment("/")).toBe("/")
    expect(SessionList.lastSegment("plain")).toBe("plain")
  })
})

describe("CostOutliers", () => {
  const session = fc.record({
    sessionId: fc.uuid(),
    file: fc.constant("/config/projects/p/s.jsonl"),
    projectKey: fc.constantFrom("p", "q"),
    costUSD: fc.oneof(
      fc.double({ min: 0, max: 500, noNaN: true }),
      fc.double({ min: -1, max: 1e-6 }),
      fc.constantFrom(0, Number.NaN, Number.POSITIVE_INFINITY, 1, 1, 1)
    )
  })
  const judged = (costUSD: number) => Number.isFinite(costUSD) && costUSD > 0

  it("property: flags only dear sessions of judged projects, the dearest first, at most 5% of a project", () => {
    fc.assert(
      fc.property(fc.uniqueArray(session, { selector: (s) => s.sessionId, maxLength: 60 }), (sessions) => {
        const flagged = CostOutliers.outliers(sessions)
        for (const project of ["p", "q"]) {
          const peers = sessions.filter((s) => s.projectKey === project && judged(s.costUSD))
          const mine = peers.filter((s) => flagged.has(s.sessionId))
          expect(mine.length).toBeLessThanOrEqual(CostOutliers.cap(peers.length))
          if (mine.length > 0) expect(peers.length).toBeGreaterThanOrEqual(CostOutliers.MIN_SESSIONS)
          const usual = CostOutliers.median(peers.map((s) => s.costUSD))
          for (const s of mine) {
            expect(s.costUSD).toBeGreaterThanOrEqual(CostOutliers.MIN_USD)
            expect(s.costUSD).toBeGreaterThanOrEqual(CostOutliers.MIN_FACTOR * usual)
            // upward closed: a dearer session of the same project is flagged too
            for (const t of peers) if (t.costUSD > s.costUSD) expect(flagged.has(t.sessionId)).toBe(true)
          }
        }
        for (const id of flagged) {
          expect(judged(sessions.find((s) => s.sessionId === id)!.costUSD)).toBe(true)
        }
        // the order sessions come in changes nothing
        expect([...CostOutliers.outliers([...sessions].reverse())].sort()).toEqual([...flagged].sort())
      }),
      { numRuns: 500 }
    )
  })

  it("property: heavy-tailed costs (log-normal, as real sessions) flag at most 5%, never a whole top 20", () => {
    // ln(cost) ~ normal(mean, sd): the sum of 12 uniforms less 6 is close to a standard normal
    const lognormal = fc.tuple(
      fc.double({ min: -3, max: 1, noNaN: true }),
      fc.double({ min: 0.5, max: 2.5, noNaN: true }),
      fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 12, maxLength: 12 }), {
        minLength: 20,
        maxLength: 300
      })
    ).map(([mean, sd, draws]) =>
      draws.map((twelve, i) => ({
        sessionId: `s${i}`,
        projectKey: "p",
        costUSD: Math.exp(mean + sd * (twelve.reduce((a, b) => a + b, 0) - 6))
      }))
    )
    fc.assert(
      fc.property(lognormal, (sessions) => {
        const flagged = CostOutliers.outliers(sessions)
        expect(flagged.size).toBeLessThanOrEqual(Math.max(1, Math.floor(sessions.length * CostOutliers.MAX_SHARE)))
        const top = [...sessions].sort((a, b) => b.costUSD - a.costUSD).slice(0, 20)
        expect(top.every((s) => flagged.has(s.sessionId))).toBe(false)
      }),
      { numRuns: 300 }
    )
  })

  it("flags the one session far out of line, not the long sessions of a busy project", () => {
    const usual = [0.5, 0.6, 0.7, 0.4, 0.55, 0.45].map((costUSD, i) => ({
      sessionId: `s${i}`,
      projectKey: "p",
      costUSD
    }))
    expect([...CostOutliers.outliers([...usual, { sessionId: "big", projectKey: "p", costUSD: 12 }])]).toEqual(["big"])
    expect(CostOutliers.outliers([{ sessionId: "x", projectKey: "p", costUSD: Number.NaN }]).size).toBe(0)
    // a month of real use: many short sessions, many long ones (the old rule, 4x the median and
    // $1, flagged 16 of the 20 dearest)
    const month = [
      ...Array.from({ length: 20 }, (_, i) => 0.05 + i * 0.02),
      ...Array.from({ length: 20 }, (_, i) => 1.5 + i * 0.75)
    ].map((costUSD, i) => ({ sessionId: `m${i}`, projectKey: "p", costUSD }))
    expect(CostOutliers.outliers(month).size).toBeLessThanOrEqual(2)
  })
})
