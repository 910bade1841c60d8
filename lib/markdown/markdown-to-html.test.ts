import { describe, expect, it } from "vitest";
import { markdownToHtml, maxMarkdownNesting } from "./markdown-to-html.mjs";

describe("markdownToHtml", () => {
  it("renders GitLab Flavored Markdown, keeping single newlines as line breaks", () => {
    expect(markdownToHtml("**bold** and _italic_\nnext line")).toBe("<p><strong>bold</strong> and <em>italic</em><br />next line</p>");
    expect(markdownToHtml("~~gone~~ `code`")).toBe("<p><del>gone</del> <code>code</code></p>");
    expect(markdownToHtml("| a | b |\n|---|---|\n| 1 | 2 |")).toContain("<td>1</td>");
  });

  it("puts an author's headings below the page's and the issue's titles", () => {
    expect(markdownToHtml("# Top\n## Next\n###### Deepest")).toBe("<h3>Top</h3>\n<h4>Next</h4>\n<h6>Deepest</h6>");
  });

  it("renders task lists as read-only, named checkboxes", () => {
    const html = markdownToHtml("- [x] done\n- [ ] to do");
    expect(html).toContain('<input type="checkbox" disabled checked aria-label="Completed task" /> done');
    expect(html).toContain('<input type="checkbox" disabled aria-label="Incomplete task" /> to do');
  });

  it("drops scripts, event handlers and other inputs", () => {
    expect(markdownToHtml("<script>alert(1)</script>\n\nhello")).toBe("<p>hello</p>");
    expect(markdownToHtml("<img src=x onerror=alert(1)>")).toBe('<img src="x" alt="" />');
    expect(markdownToHtml('<a href="#" onclick="alert(1)" style="color:red">x</a>')).toBe('<p><a href="#" rel="nofollow noreferrer noopener">x</a></p>');
    expect(markdownToHtml('<input type="text" value="secret"><iframe src="https://example.com"></iframe>')).not.toMatch(/input|iframe|secret/);
    expect(markdownToHtml('<svg><script>alert(1)</script></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>')).not.toMatch(/script|javascript|svg|math/);
  });

  it("drops links and images to schemes a browser would run, and marks the others nofollow", () => {
    expect(markdownToHtml("[x](javascript:alert(1))")).toBe("<p><a rel=\"nofollow noreferrer noopener\">x</a></p>");
    expect(markdownToHtml('<a href="JaVaScRiPt:alert(1)">x</a> <a href="data:text/html,<b>">y</a>')).not.toMatch(/href/);
    expect(markdownToHtml("![pic](data:image/svg+xml;base64,PHN2Zz4=)")).not.toContain("data:");
    expect(markdownToHtml("[site](https://example.com \"Example\")")).toBe(
      '<p><a href="https://example.com" title="Example" rel="nofollow noreferrer noopener">site</a></p>',
    );
    expect(markdownToHtml("see https://example.com")).toContain('<a href="https://example.com" rel="nofollow noreferrer noopener">https://example.com</a>');
  });

  it("honours quotes and lists nested up to the limit, and shows deeper levels as plain text", () => {
    const quotes = (depth: number) => "> ".repeat(depth) + "x";
    expect(maxMarkdownNesting).toBe(100);
    expect(markdownToHtml(quotes(100))).toBe(`${"<blockquote>\n".repeat(100)}<p>x</p>${"\n</blockquote>".repeat(100)}`);
    expect(markdownToHtml(quotes(2000))).toBe(`${"<blockquote>\n".repeat(100)}<p>${"&gt; ".repeat(1900)}x</p>${"\n</blockquote>".repeat(100)}`);
    const list = markdownToHtml("- ".repeat(2000) + "x");
    expect(list.split("<ul>")).toHaveLength(101);
    expect(list).toContain(`<li><p>${"- ".repeat(1900)}x</p>`);
  });

  it("honours emphasis and strikethrough nested up to the limit, and shows deeper levels as plain text", () => {
    const emphasis = markdownToHtml("*a ".repeat(2000) + "x" + " a*".repeat(2000));
    expect(emphasis.split("<em>")).toHaveLength(101);
    expect(emphasis).toContain(`<em>${"a *".repeat(1900)}a x a${"* a".repeat(1900)}</em>`);
    expect(markdownToHtml("~~a ".repeat(3000) + "x" + " a~~".repeat(3000)).split("<del>")).toHaveLength(101);
  });
});
