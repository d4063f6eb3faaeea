import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as UiSecurity from "../src/UiSecurity.js"

describe("UiSecurity", () => {
  it("answers for the loopback names with the port, and the bound host", () => {
    expect([...UiSecurity.allowedHosts(7317)]).toEqual(["127.0.0.1:7317", "localhost:7317", "[::1]:7317"])
    expect(UiSecurity.allowedHosts(80, "My-Box.lan").has("my-box.lan:80")).toBe(true)
    expect(UiSecurity.allowedHosts(80, "fe80::1").has("[fe80::1]:80")).toBe(true)
    // a wildcard bind names no host a browser would send
    expect(UiSecurity.allowedHosts(80, "0.0.0.0").size).toBe(3)
  })

  it("refuses every Host that is not allowed, whatever its form", () => {
    const allowed = UiSecurity.allowedHosts(7317)
    fc.assert(
      fc.property(fc.string(), (host) => {
        expect(UiSecurity.hostAllowed(host, allowed)).toBe(allowed.has(host.trim().toLowerCase()))
      })
    )
    for (const host of ["127.0.0.1:7318", "127.0.0.1", "evil.example:7317", "127.0.0.1.evil.example:7317", ""]) {
      expect(UiSecurity.hostAllowed(host, allowed)).toBe(false)
    }
    expect(UiSecurity.hostAllowed(undefined, allowed)).toBe(false)
    expect(UiSecurity.hostAllowed("LOCALHOST:7317", allowed)).toBe(true)
  })

  it("accepts exactly the token, from the cookie or the URL", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.string(), (token, other) => {
        fc.pre(other !== token)
        expect(UiSecurity.credentialOf({ cookie: `a=b; acx_ui_token=${token}`, queryToken: undefined }, token))
          .toBe("Cookie")
        expect(UiSecurity.credentialOf({ cookie: undefined, queryToken: token }, token)).toBe("Query")
        expect(UiSecurity.credentialOf({ cookie: `acx_ui_token=${other}`, queryToken: other }, token)).toBe("None")
      })
    )
    expect(UiSecurity.credentialOf({ cookie: undefined, queryToken: undefined }, "t")).toBe("None")
  })

  it("lets a write through only from the page's own origin", () => {
    const allowed = UiSecurity.allowedHosts(7317)
    expect(UiSecurity.sameOrigin({ origin: "http://127.0.0.1:7317", secFetchSite: undefined }, allowed)).toBe(true)
    expect(UiSecurity.sameOrigin({ origin: "http://localhost:7317", secFetchSite: "same-origin" }, allowed)).toBe(true)
    for (const origin of ["http://evil.example", "https://127.0.0.1:7317", "null", "http://127.0.0.1:7318"]) {
      expect(UiSecurity.sameOrigin({ origin, secFetchSite: "same-origin" }, allowed)).toBe(false)
    }
    expect(UiSecurity.sameOrigin({ origin: undefined, secFetchSite: "cross-site" }, allowed)).toBe(false)
    expect(UiSecurity.sameOrigin({ origin: undefined, secFetchSite: undefined }, allowed)).toBe(false)
  })

  it("keeps the token in an HttpOnly, SameSite=Strict cookie, and allows no inline script or remote origin", () => {
    expect(UiSecurity.tokenCookie("abc")).toBe("acx_ui_token=abc; Path=/; HttpOnly; SameSite=Strict")
    expect(UiSecurity.CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(UiSecurity.CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline")
    expect(UiSecurity.CONTENT_SECURITY_POLICY).not.toMatch(/https?:/)
  })
})
