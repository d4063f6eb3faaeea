/**
 * Every citation of a reference doc resolves to a heading. Code, scripts, READMEs and the other
 * docs cite `docs/design.md`, `docs/benchmarks.md` and `docs/testing.md` by anchor
 * (`docs/design.md#a-project-across-machines`) or by the words of a heading (`docs/design.md, "Who owns a
 * hub's tables"`, a prefix of the heading is enough). Those headings are kept stable for that; a
 * heading renamed without its citers fails here, naming the file and the citation.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

const TARGETS = ["design.md", "benchmarks.md", "testing.md"] as const

/** The files that may cite a reference doc: docs, READMEs, sources, tests, scripts, CI. */
const CITING = /\.(md|ts|tsx|mts|mjs|js|cjs|sh|json)$|^\.ci\/run$/

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replace(/ /g, "-")

/** The headings of a Markdown text (ATX headings outside fenced code). */
const headingsOf = (markdown: string): Array<string> => {
  const headings: Array<string> = []
  let fenced = false
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const match = fenced ? null : /^#{1,6} (.+)$/.exec(line)
    if (match !== null) headings.push(match[1]!.trim())
  }
  return headings
}

/** A comment or list wrapped over lines reads as one line (`//`, ` * `, `#` markers dropped). */
const joinWrapped = (text: string): string => text.replace(/\n\s*(?:\*|\/\/|#)?\s*/g, " ")

const unquote = (text: string): string => text.replace(/`/g, "")

/** A quoted heading matches when it is the start of a heading (or a heading is its start). */
const namesHeading = (quoted: string, headings: ReadonlyArray<string>): boolean => {
  const words = unquote(quoted)
  return headings.some((heading) => {
    const plain = unquote(heading)
    return plain.startsWith(words) || (plain.length > 3 && words.startsWith(plain))
  })
}

/** One citation that names no heading. */
export interface BrokenCitation {
  readonly file: string
  readonly citation: string
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The citations of `text` to `target` that name no heading of `headings`. A citation is
 * `target#anchor`, or `target` followed by `, "Heading"` or ` ("Heading")` (several quoted
 * headings may follow). The text quoted after an anchor is a quotation of the section, not a
 * heading, and is not checked.
 */
export const brokenCitations = (
  file: string,
  text: string,
  target: string,
  headings: ReadonlyArray<string>
): Array<BrokenCitation> => {
  const anchors = new Set(headings.map(slug))
  const pattern = new RegExp(
    `${escape(target)}(#[\\w\\-]+)?\\)?((?:,|\\s\\()\\s*((?:"[^"]+"(?:,\\s*)?)+))?`,
    "g"
  )
  const broken: Array<BrokenCitation> = []
  for (const match of joinWrapped(text).matchAll(pattern)) {
    const [, anchor, , quoted] = match
    if (anchor !== undefined) {
      if (!anchors.has(anchor.slice(1))) broken.push({ file, citation: `${target}${anchor}` })
      continue
    }
    for (const [, words] of (quoted ?? "").matchAll(/"([^"]+)"/g)) {
      if (!namesHeading(words!, headings)) broken.push({ file, citation: `${target}, "${words}"` })
    }
  }
  return broken
}

/** This file cites headings that do not exist, on purpose (the test below). */
const SELF = "packages/testing/test/DocLinks.test.ts"

const trackedFiles = (): Array<string> =>
  execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((file) => CITING.test(file) && !file.endsWith("pnpm-lock.yaml") && file !== SELF)

describe("citations of the reference docs", () => {
  const headings = new Map(
    TARGETS.map((target) => [target, headingsOf(fs.readFileSync(path.join(root, "docs", target), "utf8"))])
  )

  it("every design.md, benchmarks.md and testing.md citation in the repository names a heading", () => {
    const broken: Array<BrokenCitation> = []
    let checked = 0
    for (const file of trackedFiles()) {
      const full = path.join(root, file)
      if (!fs.existsSync(full)) continue
      const text = fs.readFileSync(full, "utf8")
      for (const target of TARGETS) {
        if (!text.includes(target)) continue
        checked++
        broken.push(...brokenCitations(file, text, target, headings.get(target)!))
      }
    }
    expect(checked).toBeGreaterThan(20)
    expect(broken).toEqual([])
  })

  it("a citation to a heading that does not exist is reported", () => {
    const headings = ["Session ids", "Who owns a hub's tables", "Edits as diffs: jsdiff, bounded, in convert"]
    const text = [
      "/**",
      " * See docs/design.md#session-ids and docs/design.md#session-creation, and",
      " * docs/design.md, \"Who owns a hub's",
      " * tables\" and docs/design.md (\"Edits as diffs\"), not docs/design.md, \"Edits as Myers diffs\".",
      " * docs/design.md#session-ids (\"a quotation, not a heading\")",
      " */"
    ].join("\n")
    expect(brokenCitations("x.ts", text, "design.md", headings)).toEqual([
      { file: "x.ts", citation: "design.md#session-creation" },
      { file: "x.ts", citation: "design.md, \"Edits as Myers diffs\"" }
    ])
  })

  it("anchors are GitHub's: lower case, punctuation dropped, spaces as hyphens", () => {
    expect(slug("A hub's page at thousands of sessions: what each read costs")).toBe(
      "a-hubs-page-at-thousands-of-sessions-what-each-read-costs"
    )
    expect(slug("An unchanged `acx sync`: one listing, one ledger read")).toBe(
      "an-unchanged-acx-sync-one-listing-one-ledger-read"
    )
  })
})
