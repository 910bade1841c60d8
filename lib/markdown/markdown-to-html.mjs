// The Markdown renderer itself: plain JavaScript, so the render threads (render-worker.mjs) load it as it is, without
// a bundler. Nothing on the server's own thread calls it: every document goes through the pool in render-pool.ts.
import { Lexer, Marked } from "marked";
import sanitizeHtml from "sanitize-html";

/**
 * How deep blocks (quotes, lists) and inline spans (emphasis, links, strikethrough) may nest before the rest of that
 * level is shown as plain text. The parser recurses once per level, so thousands of `> ` or `- ` (a few KB) would
 * overflow the stack; no text people write nests anywhere near this deep (markdown-it's default limit is 100 too).
 */
export const maxMarkdownNesting = 100;

/**
 * Whatever is nested deeper than `maxMarkdownNesting` becomes one plain-text token (escaped when rendered), so the
 * document renders, and renders linearly in its depth, instead of failing.
 */
class NestingLimitedLexer extends Lexer {
  #blockDepth = 0;
  #inlineDepth = 0;

  blockTokens(src, tokens = [], lastParagraphClipped) {
    if (this.#blockDepth >= maxMarkdownNesting) {
      tokens.push({ type: "paragraph", raw: src, text: src, tokens: [plainText(src)] });
      return tokens;
    }
    this.#blockDepth += 1;
    try {
      return super.blockTokens(src, tokens, lastParagraphClipped);
    } finally {
      this.#blockDepth -= 1;
    }
  }

  inlineTokens(src, tokens = []) {
    if (this.#inlineDepth >= maxMarkdownNesting) {
      tokens.push(plainText(src));
      return tokens;
    }
    this.#inlineDepth += 1;
    try {
      return super.inlineTokens(src, tokens);
    } finally {
      this.#inlineDepth -= 1;
    }
  }
}

function plainText(src) {
  return { type: "text", raw: src, text: src, escaped: false };
}

/**
 * GitLab Flavored Markdown as far as issues and comments use it: GFM tables, strikethrough, autolinks and task lists,
 * with a single newline kept as a line break. Whatever HTML the author writes goes through the same allow-list as
 * what the parser makes, so nothing a reader's browser would run survives.
 */
const markdown = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    checkbox({ checked }) {
      return `<input type="checkbox"${checked ? " checked" : ""}> `;
    },
  },
  hooks: {
    provideLexer(block) {
      return block ? (src, options) => new NestingLimitedLexer(options).lex(src) : Lexer.lexInline;
    },
  },
});

// The page's title is its h1 and the title its h2, so an author's headings start below them.
const headingShift = 2;
const headings = ["h1", "h2", "h3", "h4", "h5", "h6"];

function shiftedHeading(tagName) {
  return `h${Math.min(Number(tagName.slice(1)) + headingShift, 6)}`;
}

const linkRel = "nofollow noreferrer noopener";

/** @type {import("sanitize-html").IOptions} */
const sanitizeOptions = {
  allowedTags: [
    ...headings,
    "p", "br", "hr", "blockquote", "pre", "code", "kbd", "samp", "var", "sub", "sup",
    "strong", "b", "em", "i", "del", "s", "ins", "mark", "small", "abbr", "details", "summary",
    "ul", "ol", "li", "input", "dl", "dt", "dd",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
    "a", "img",
  ],
  allowedAttributes: {
    a: ["href", "title", "rel"],
    img: ["src", "alt", "title", "width", "height"],
    input: ["type", "checked", "disabled", "aria-label"],
    ol: ["start"],
    th: ["align", "colspan", "rowspan"],
    td: ["align", "colspan", "rowspan"],
    abbr: ["title"],
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowProtocolRelative: false,
  transformTags: {
    ...Object.fromEntries(headings.map((tag) => [tag, (_tagName, attribs) => ({ tagName: shiftedHeading(tag), attribs })])),
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: linkRel } }),
    // Without a text alternative a reader hears the file name; an author who gave none made the image decorative.
    img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, alt: attribs.alt ?? "" } }),
    // A checkbox is a task list's: read-only here (ticking happens by editing), and named for screen readers. Any
    // other input becomes a tag outside the allow-list, and so goes.
    input: (tagName, attribs) => {
      if (attribs.type !== "checkbox") return { tagName: "span", attribs: {} };
      const checked = attribs.checked !== undefined;
      return {
        tagName,
        attribs: { type: "checkbox", disabled: "", ...(checked ? { checked: "" } : {}), "aria-label": checked ? "Completed task" : "Incomplete task" },
      };
    },
  },
};

/** Markdown written by a person, as HTML that is safe to put into a page as it is. */
export function markdownToHtml(source) {
  // Trimmed: the parser ends blocks with a newline, which would read as text in the page.
  return sanitizeHtml(markdown.parse(source, { async: false }), sanitizeOptions).trim();
}
