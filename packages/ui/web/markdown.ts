// Markdown from transcripts (hostile input) as HTML: the only HTML string the page ever inserts.
// Raw HTML off (`<script>` stays text), links only to http:, https: and mailto: (no
// `javascript:`, `data:`, `vbscript:`), opened in a new tab without an opener, and images never
// loaded (a remote image would leak that the page was read; the CSP blocks them too): an image
// shows as its alt text and address.
import MarkdownIt from "markdown-it"

const SAFE_LINK = /^(https?:|mailto:)/i

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false })

/** Whether a link may be rendered: only http(s) and mailto, after markdown-it's normalisation. */
export const safeLink = (url: string): boolean => SAFE_LINK.test(url.trim())

md.validateLink = safeLink

md.renderer.rules["link_open"] = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!
  token.attrSet("rel", "noopener noreferrer")
  token.attrSet("target", "_blank")
  return self.renderToken(tokens, idx, options)
}

md.renderer.rules["image"] = (tokens, idx) => {
  const token = tokens[idx]!
  const alt = token.content === "" ? "image" : token.content
  const src = String(token.attrGet("src") ?? "")
  return `<span class="md-image">[${md.utils.escapeHtml(alt)}: ${md.utils.escapeHtml(src)}]</span>`
}

/** Markdown source as safe HTML (see the module comment). */
export const renderMarkdown = (source: string): string => md.render(source)
