import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as CostOutliers from "../src/CostOutliers.js"
import * as SessionList from "../src/SessionList.js"

const listed = fc.record({
  projectKey: fc.constantFrom("-a", "-b", "-c"),
  sessionId: fc.uuid(),
  mtime: fc.integer({ min: 0, max: 2e12 }),
  size: fc.nat(),
  cwd: fc.option(fc.constantFrom("/home/u/app", "C:\\work\\api\\", "/"), { nil: undefined }),
  lastTime: fc.option(fc.date({ min: new Date(0), max: new Date(2e12) }).map((d) => d.toISOString()), {
    nil: undefined
  })
})

describe("SessionList", () => {
  it("orders rows by last activity, keeps every session once, and counts them per project", () => {
    fc.assert(
      fc.property(fc.array(listed, { maxLength: 30 }), (sessions) => {
        const rows = SessionList.sessionRows(sessions)
        expect(rows.map((row) => row.sessionId).sort()).toEqual(sessions.map((s) => s.sessionId).sort())
        const active = rows.map((row) => (row.lastTime === null ? row.mtime : Date.parse(row.lastTime)))
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
  it("flags only sessions of at least $1 and 4× their project's median, in projects of 3 or more", () => {
    const cost = fc.double({ min: 0, max: 500, noNaN: true })
    fc.assert(
      fc.property(
        fc.array(fc.record({ sessionId: fc.uuid(), projectKey: fc.constantFrom("p", "q"), costUSD: cost }), {
          maxLength: 20
        }),
        (sessions) => {
          const flagged = CostOutliers.outliers(sessions)
          for (const session of sessions) {
            if (!flagged.has(session.sessionId)) continue
            const peers = sessions.filter((s) => s.projectKey === session.projectKey).map((s) => s.costUSD)
            expect(peers.length).toBeGreaterThanOrEqual(CostOutliers.MIN_SESSIONS)
            expect(session.costUSD).toBeGreaterThanOrEqual(CostOutliers.MIN_USD)
            expect(session.costUSD).toBeGreaterThanOrEqual(CostOutliers.FACTOR * CostOutliers.median(peers))
          }
        }
      )
    )
    const usual = [0.5, 0.6, 0.7, 0.4].map((costUSD, i) => ({ sessionId: `s${i}`, projectKey: "p", costUSD }))
    expect([...CostOutliers.outliers([...usual, { sessionId: "big", projectKey: "p", costUSD: 12 }])]).toEqual(["big"])
    expect(CostOutliers.outliers([{ sessionId: "x", projectKey: "p", costUSD: Number.NaN }]).size).toBe(0)
  })
})
