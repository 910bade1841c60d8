import { describe, expect, it } from "vitest";
import { absoluteUploadLinks, escapeSlackLinks, slackLinks, stripMarkup } from "./markup";

describe("slack-messenger's link formatter", () => {
  // slack-notifier's own examples (link_formatter_spec.rb), and the links of GitLab's push message spec.
  const examples: [string, string][] = [
    ["Hello World, enjoy [this](http://example.com).", "Hello World, enjoy <http://example.com|this>."],
    ["Hello World, enjoy [[this](http://example.com) in brackets].", "Hello World, enjoy [<http://example.com|this> in brackets]."],
    ["Hello World, enjoy ([this](http://example.com) in parens).", "Hello World, enjoy (<http://example.com|this> in parens)."],
    ["Hello World, enjoy [](http://example.com).", "Hello World, enjoy <http://example.com>."],
    ["Hello World, enjoy [link with query](http://example.com?foo=bar).", "Hello World, enjoy <http://example.com?foo=bar|link with query>."],
    ["Hello World, enjoy [link with fragment](http://example.com/#foo-bar).", "Hello World, enjoy <http://example.com/#foo-bar|link with fragment>."],
    ["Hello World, enjoy [link with parens](http://example.com/foo(bar)/baz).", "Hello World, enjoy <http://example.com/foo(bar)/baz|link with parens>."],
    ["Hello World, enjoy [link with query](http://example.com/(parens)?foo=bar).", "Hello World, enjoy <http://example.com/(parens)?foo=bar|link with query>."],
    ["Hello World, enjoy [link with parens](http://example.com/baz?bang=foo(bar)).", "Hello World, enjoy <http://example.com/baz?bang=foo(bar)|link with parens>."],
    ["Hello World, enjoy [link with fragment](http://example.com/(parens)#foo-bar).", "Hello World, enjoy <http://example.com/(parens)#foo-bar|link with fragment>."],
    ["Hello World, enjoy [link with fragment](http://example.com/#foo-bar=(baz)).", "Hello World, enjoy <http://example.com/#foo-bar=(baz)|link with fragment>."],
    ["Hello World, enjoy [this](http://example.com?foo=bar)[this2](http://example2.com).", "Hello World, enjoy <http://example.com?foo=bar|this><http://example2.com|this2>."],
    [
      "Hello World, enjoy [this](http://example.com?foo=bar) [this2](http://example2.com/#fragment).",
      "Hello World, enjoy <http://example.com?foo=bar|this> <http://example2.com/#fragment|this2>.",
    ],
    ["Hello World, enjoy [this](http://example.com)<a href='http://example2.com'>this2</a>.", "Hello World, enjoy <http://example.com|this><http://example2.com|this2>."],
    ["Hello world, [John](mailto:john@example.com).", "Hello world, <mailto:john@example.com|John>."],
    [
      "Hello World, enjoy [foo(bar)](http://example.com/foo(bar))<a href='http://example.com/bar(foo)'>bar(foo)</a>",
      "Hello World, enjoy <http://example.com/foo(bar)|foo(bar)><http://example.com/bar(foo)|bar(foo)>",
    ],
    ["Hello World, enjoy <a href='http://example.com'>this</a><a href='http://example2.com'>this2</a>.", "Hello World, enjoy <http://example.com|this><http://example2.com|this2>."],
    ["<a href='mailto:john@example.com'>John</a>", "<mailto:john@example.com|John>"],
    ['<a class="x" href="http://example.com" title="t">this</a>', "<http://example.com|this>"],
    ["こんにちは", "こんにちは"],
    ["x ([Compare changes](http://url.com/-/compare/before...after))", "x (<http://url.com/-/compare/before...after|Compare changes>)"],
  ];

  it.each(examples)("formats %j", (input, output) => {
    expect(slackLinks(input)).toBe(output);
  });

  it("leaves what is not a whole link on one line as it is", () => {
    for (const text of ["[a](http://x\n)", "[a](ftp://x)", "[a] (http://x)", "<a href='http://x'>\ntext</a>", "<a href='http://x'></a>", "[a](http://x", "plain [text]", "[a](http://x(y(z)))"]) {
      expect(slackLinks(text)).toBe(text);
    }
  });

  it("takes time in proportion to the text, whatever it holds", () => {
    const texts = [
      "[a](http://".repeat(40_000),
      "<a href='".repeat(40_000),
      "<a href='x'>".repeat(40_000),
      `[a](http://x${")b".repeat(100_000)}`,
      "![".repeat(100_000),
      "<a|".repeat(100_000),
    ];
    const started = performance.now();
    for (const text of texts) {
      slackLinks(text);
      escapeSlackLinks(text);
      absoluteUploadLinks(text, "http://example.com/p");
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("GitLab's SlackMarkdownSanitizer", () => {
  it("removes the link markup characters", () => {
    expect(stripMarkup("[Label](url) <a href=x>b</a> <http://x|y>")).toBe("Label(url) a href=xb/a http://xy");
    expect(stripMarkup(null)).toBeNull();
  });

  it("makes a Slack link a user wrote inert", () => {
    expect(escapeSlackLinks("issue description <http://custom-url.com|CLICK HERE>")).toBe("issue description &lt;http://custom-url.com|CLICK HERE&gt;");
    expect(escapeSlackLinks("a <b> and <c|d|e> and <x|y> <z")).toBe("a <b> and <c|d|e> and &lt;x|y&gt; <z");
  });
});

describe("upload links", () => {
  it("turns an uploaded image into its absolute URL under the project", () => {
    expect(absoluteUploadLinks("See ![screenshot](/uploads/abc/shot.png) here", "http://example.com/group/project")).toBe(
      "See http://example.com/group/project/uploads/abc/shot.png here",
    );
    expect(absoluteUploadLinks("![x](http://elsewhere/uploads/a.png)", "http://example.com/p")).toBe("![x](http://elsewhere/uploads/a.png)");
  });
});
