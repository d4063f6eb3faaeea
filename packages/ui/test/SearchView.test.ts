import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as SearchView from "../src/SearchView.js"

// texts with marks anywhere, other text (markup included) between them
const marked = fc.array(
  fc.oneof(fc.constant(SearchView.OPEN), fc.constant(SearchView.CLOSE), fc.string(), fc.constant("<img src=x>")),
  { maxLength: 12 }
).map((pieces) => pieces.join(""))

describe("SearchView", () => {
  it("splits a marked snippet into parts: matches between the marks, the rest as written", () => {
    expect(SearchView.snippetParts(`…the ${SearchView.OPEN}beads${SearchView.CLOSE} <b>sync</b>`)).toEqual([
      { text: "…the ", match: false },
      { text: "beads", match: true },
      { text: " <b>sync</b>", match: false }
    ])
    expect(SearchView.snippetParts("")).toEqual([])
    // an unclosed mark runs to the end
    expect(SearchView.snippetParts(`a${SearchView.OPEN}b`)).toEqual([{ text: "a", match: false }, {
      text: "b",
      match: true
    }])
  })

  it("property: the parts' texts are the snippet without its marks, none empty, none holding a mark", () => {
    fc.assert(fc.property(marked, (snippet) => {
      const parts = SearchView.snippetParts(snippet)
      expect(parts.map((part) => part.text).join("")).toBe(SearchView.unmarked(snippet))
      for (const part of parts) {
        expect(part.text).not.toBe("")
        expect(SearchView.unmarked(part.text)).toBe(part.text)
      }
      // a text cannot forge a match once its marks' characters are gone
      expect(SearchView.snippetParts(SearchView.unmarked(snippet)).every((part) => !part.match)).toBe(true)
    }))
  })
})
