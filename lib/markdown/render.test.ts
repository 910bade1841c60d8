import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./render";

describe("renderMarkdown", () => {
  it("renders GitLab Flavored Markdown, keeping single newlines as line breaks", () => {
    expect(renderMarkdown("**bold** and _italic_\nnext line")).toBe("<p><strong>bold</strong> and <em>italic</em><br />next line</p>");
    expect(renderMarkdown("~~gone~~ `code`")).toBe("<p><del>gone</del> <code>code</code></p>");
    expect(renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |")).toContain("<td>1</td>");
  });

  it("puts an author's headings below the page's and the issue's titles", () => {
    expect(renderMarkdown("# Top\n## Next\n###### Deepest")).toBe("<h3>Top</h3>\n<h4>Next</h4>\n<h6>Deepest</h6>");
  });

  it("renders task lists as read-only, named checkboxes", () => {
    const html = renderMarkdown("- [x] done\n- [ ] to do");
    expect(html).toContain('<input type="checkbox" disabled checked aria-label="Completed task" /> done');
    expect(html).toContain('<input type="checkbox" disabled aria-label="Incomplete task" /> to do');
  });

  it("drops scripts, event handlers and other inputs", () => {
    expect(renderMarkdown("<script>alert(1)</script>\n\nhello")).toBe("<p>hello</p>");
    expect(renderMarkdown("<img src=x onerror=alert(1)>")).toBe('<img src="x" alt="" />');
    expect(renderMarkdown('<a href="#" onclick="alert(1)" style="color:red">x</a>')).toBe('<p><a href="#" rel="nofollow noreferrer noopener">x</a></p>');
    expect(renderMarkdown('<input type="text" value="secret"><iframe src="https://example.com"></iframe>')).not.toMatch(/input|iframe|secret/);
    expect(renderMarkdown('<svg><script>alert(1)</script></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>')).not.toMatch(/script|javascript|svg|math/);
  });

  it("drops links and images to schemes a browser would run, and marks the others nofollow", () => {
    expect(renderMarkdown("[x](javascript:alert(1))")).toBe("<p><a rel=\"nofollow noreferrer noopener\">x</a></p>");
    expect(renderMarkdown('<a href="JaVaScRiPt:alert(1)">x</a> <a href="data:text/html,<b>">y</a>')).not.toMatch(/href/);
    expect(renderMarkdown("![pic](data:image/svg+xml;base64,PHN2Zz4=)")).not.toContain("data:");
    expect(renderMarkdown("[site](https://example.com \"Example\")")).toBe(
      '<p><a href="https://example.com" title="Example" rel="nofollow noreferrer noopener">site</a></p>',
    );
    expect(renderMarkdown("see https://example.com")).toContain('<a href="https://example.com" rel="nofollow noreferrer noopener">https://example.com</a>');
  });
});
