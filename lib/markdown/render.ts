import "server-only";
import { Marked, type Tokens } from "marked";
import sanitizeHtml from "sanitize-html";

/**
 * GitLab Flavored Markdown as far as issues and comments use it: GFM tables, strikethrough, autolinks and task lists,
 * with a single newline kept as a line break. Whatever HTML the author writes goes through the same allow-list as
 * what the parser makes, so nothing a reader's browser would run survives.
 */
const markdown = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    checkbox({ checked }: Tokens.Checkbox) {
      return `<input type="checkbox"${checked ? " checked" : ""}> `;
    },
  },
});

// The page's title is its h1 and the title its h2, so an author's headings start below them.
const headingShift = 2;
const headings = ["h1", "h2", "h3", "h4", "h5", "h6"];

function shiftedHeading(tagName: string): string {
  return `h${Math.min(Number(tagName.slice(1)) + headingShift, 6)}`;
}

const linkRel = "nofollow noreferrer noopener";

const sanitizeOptions: sanitizeHtml.IOptions = {
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
    ...Object.fromEntries(headings.map((tag) => [tag, (_tagName: string, attribs: sanitizeHtml.Attributes) => ({ tagName: shiftedHeading(tag), attribs })])),
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
export function renderMarkdown(source: string): string {
  // Trimmed: the parser ends blocks with a newline, which would read as text in the page.
  return sanitizeHtml(markdown.parse(source, { async: false }), sanitizeOptions).trim();
}
