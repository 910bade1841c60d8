import { describe, expect, it, vi } from "vitest";
import { ParameterError } from "@/lib/errors";

// The base URL is read once at import; a trailing slash in the setting must not double up in links.
vi.hoisted(() => {
  process.env.EXTERNAL_URL = "https://git.example.com/";
});

const { decodeCursor, encodeCursor, keysetHeaders, pageFromQuery, pageLinkUrl, pageRequest, paginationHeaders } = await import("./pagination");

const base = "https://git.example.com";

/** A list whose rows were all counted (at most 10,000): its next page follows from the total. */
const counted = (total: number) => ({ total, hasNext: false });

describe("pageRequest", () => {
  it("defaults to page 1 of 20", () => {
    expect(pageRequest({})).toEqual({ page: 1, perPage: 20, offset: 0 });
  });

  it("computes the offset and caps per_page at 100", () => {
    expect(pageRequest({ page: 3, per_page: 7 })).toEqual({ page: 3, perPage: 7, offset: 14 });
    expect(pageRequest({ page: 2, per_page: 1000 })).toEqual({ page: 2, perPage: 100, offset: 100 });
  });

  it("refuses offset pages past 50,000 rows of a list that keyset pagination can page, naming its type", () => {
    expect(pageRequest({ page: 2500, per_page: 20 }, { keysetType: "Project" })).toEqual({ page: 2500, perPage: 20, offset: 49_980 });
    expect(pageRequest({ page: 500, per_page: 100 }, { keysetType: "Project" })).toEqual({ page: 500, perPage: 100, offset: 49_900 });
    expect(() => pageRequest({ page: 2501, per_page: 20 }, { keysetType: "Project" })).toThrow(
      "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. " +
        "Remaining records can be retrieved using keyset pagination.",
    );
    // per_page counts as clamped: page 501 of 1000 asked is page 501 of 100.
    expect(() => pageRequest({ page: 501, per_page: 1000 }, { keysetType: "User" })).toThrow("objects of type User");
    expect(pageRequest({ page: 100_000, per_page: 20 })).toEqual({ page: 100_000, perPage: 20, offset: 1_999_980 });
  });

  it("refuses a per_page below 1", () => {
    expect(() => pageRequest({ per_page: 0 })).toThrow("per_page does not have a valid value");
    expect(() => pageRequest({ per_page: -5 })).toThrow("per_page does not have a valid value");
  });
});

describe("paginationHeaders", () => {
  const url = new URL("http://internal:3000/api/v4/projects?sort=asc&search=x&per_page=2");

  it("on the first page: next, first and last, empty prev", () => {
    expect(paginationHeaders(url, pageRequest({ page: 1, per_page: 2 }), counted(5))).toEqual({
      "X-Page": "1",
      "X-Per-Page": "2",
      "X-Next-Page": "2",
      "X-Prev-Page": "",
      "X-Total": "5",
      "X-Total-Pages": "3",
      Link:
        `<${base}/api/v4/projects?page=2&per_page=2&search=x&sort=asc>; rel="next", ` +
        `<${base}/api/v4/projects?page=1&per_page=2&search=x&sort=asc>; rel="first", ` +
        `<${base}/api/v4/projects?page=3&per_page=2&search=x&sort=asc>; rel="last"`,
    });
  });

  it("in the middle: prev and next", () => {
    const headers = paginationHeaders(url, pageRequest({ page: 2, per_page: 2 }), counted(5));
    expect(headers["X-Prev-Page"]).toBe("1");
    expect(headers["X-Next-Page"]).toBe("3");
    expect(headers.Link).toBe(
      `<${base}/api/v4/projects?page=1&per_page=2&search=x&sort=asc>; rel="prev", ` +
        `<${base}/api/v4/projects?page=3&per_page=2&search=x&sort=asc>; rel="next", ` +
        `<${base}/api/v4/projects?page=1&per_page=2&search=x&sort=asc>; rel="first", ` +
        `<${base}/api/v4/projects?page=3&per_page=2&search=x&sort=asc>; rel="last"`,
    );
  });

  it("on the last page: no next", () => {
    const headers = paginationHeaders(url, pageRequest({ page: 3, per_page: 2 }), counted(5));
    expect(headers["X-Next-Page"]).toBe("");
    expect(headers["X-Prev-Page"]).toBe("2");
    expect(headers.Link).not.toContain('rel="next"');
  });

  it("an empty list still has one page, first and last", () => {
    expect(paginationHeaders(new URL("http://x/api/v4/users"), pageRequest({}), counted(0))).toEqual({
      "X-Page": "1",
      "X-Per-Page": "20",
      "X-Next-Page": "",
      "X-Prev-Page": "",
      "X-Total": "0",
      "X-Total-Pages": "1",
      Link: `<${base}/api/v4/users?page=1&per_page=20>; rel="first", <${base}/api/v4/users?page=1&per_page=20>; rel="last"`,
    });
  });

  it("writes the clamped per_page into the links and keeps repeated and encoded parameters", () => {
    const odd = new URL("http://x/api/v4/projects?per_page=1000&scopes%5B%5D=b&scopes%5B%5D=a&search=a%20b%26c");
    const headers = paginationHeaders(odd, pageRequest({ per_page: 1000 }), counted(150));
    expect(headers["X-Per-Page"]).toBe("100");
    expect(headers["X-Total-Pages"]).toBe("2");
    expect(headers.Link!.split(", ")[0]).toBe(
      `<${base}/api/v4/projects?page=2&per_page=100&scopes%5B%5D=b&scopes%5B%5D=a&search=a+b%26c>; rel="next"`,
    );
  });

  it("past the end: no next, prev points at the last page", () => {
    const headers = paginationHeaders(url, pageRequest({ page: 9, per_page: 2 }), counted(5));
    expect(headers["X-Next-Page"]).toBe("");
    expect(headers["X-Prev-Page"]).toBe("3");
  });
});

describe("paginationHeaders past the count limit", () => {
  const url = new URL("http://internal:3000/api/v4/projects/1/events?per_page=20");

  it("has no X-Total, X-Total-Pages or last link; next and prev follow from the page", () => {
    expect(paginationHeaders(url, pageRequest({ page: 3 }), { total: null, hasNext: true })).toEqual({
      "X-Page": "3",
      "X-Per-Page": "20",
      "X-Next-Page": "4",
      "X-Prev-Page": "2",
      Link:
        `<${base}/api/v4/projects/1/events?page=2&per_page=20>; rel="prev", ` +
        `<${base}/api/v4/projects/1/events?page=4&per_page=20>; rel="next", ` +
        `<${base}/api/v4/projects/1/events?page=1&per_page=20>; rel="first"`,
    });
  });

  it("on the last page: no next", () => {
    const headers = paginationHeaders(url, pageRequest({ page: 600 }), { total: null, hasNext: false });
    expect(headers["X-Next-Page"]).toBe("");
    expect(headers["X-Prev-Page"]).toBe("599");
    expect(headers.Link).toBe(
      `<${base}/api/v4/projects/1/events?page=599&per_page=20>; rel="prev", <${base}/api/v4/projects/1/events?page=1&per_page=20>; rel="first"`,
    );
  });
});

describe("paginationHeaders where the next offset page would be refused", () => {
  const url = new URL("http://internal:3000/api/v4/events?scope=all&page=5&per_page=20&private_token=secret");

  it("leads on to the keyset page after this one, with no X-Next-Page", () => {
    expect(paginationHeaders(url, pageRequest({ page: 5 }), { total: 140, hasNext: true }, { pagination: "keyset", id_before: "812", id_after: null })).toEqual({
      "X-Page": "5",
      "X-Per-Page": "20",
      "X-Next-Page": "",
      "X-Prev-Page": "4",
      "X-Total": "140",
      "X-Total-Pages": "7",
      Link:
        `<${base}/api/v4/events?page=4&per_page=20&scope=all>; rel="prev", ` +
        `<${base}/api/v4/events?id_before=812&pagination=keyset&per_page=20&scope=all>; rel="next", ` +
        `<${base}/api/v4/events?page=1&per_page=20&scope=all>; rel="first", ` +
        `<${base}/api/v4/events?page=7&per_page=20&scope=all>; rel="last"`,
    });
  });
});

describe("keysetHeaders", () => {
  const url = new URL("http://internal:3000/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=50&private_token=glpat-x");

  it("links the next page with the request's parameters and the cursor, never the credentials", () => {
    expect(keysetHeaders(url, 50, { id_after: "42" })).toEqual({
      "X-Per-Page": "50",
      Link: `<${base}/api/v4/projects?id_after=42&order_by=id&pagination=keyset&per_page=50&sort=asc>; rel="next"`,
    });
  });

  it("has no link on the last page", () => {
    expect(keysetHeaders(url, 50, null)).toEqual({ "X-Per-Page": "50" });
  });
});

describe("pageLinkUrl", () => {
  it("never repeats credentials given in the query string, in any of their spellings", () => {
    const withTokens = new URL(
      "http://internal:3000/api/v4/events?private_token=glpat-secret&access_token=oauth-secret&private_token%5B%5D=glpat-list&access_token%5B%5D=x&sort=asc",
    );
    expect(pageLinkUrl(withTokens, { page: "2" })).toBe(`${base}/api/v4/events?page=2&sort=asc`);
    expect(paginationHeaders(withTokens, pageRequest({}), counted(50)).Link).not.toMatch(/secret|glpat|token/);
  });

  it("sets, replaces and removes parameters, keys sorted", () => {
    const url = new URL("http://internal:3000/api/v4/events?id_after=7&pagination=keyset&action=created");
    expect(pageLinkUrl(url, { id_after: null, id_before: "5", per_page: "20" })).toBe(
      `${base}/api/v4/events?action=created&id_before=5&pagination=keyset&per_page=20`,
    );
  });
});

describe("keyset cursors", () => {
  it("carry the order's values as GitLab's cursors do (URL-safe Base64 of JSON, direction `n`) and read back", () => {
    const cursor = encodeCursor({ name: "Ünïcode & co", id: "42" });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))).toEqual({ name: "Ünïcode & co", id: "42", _kd: "n" });
    expect(decodeCursor(cursor)).toEqual({ name: "Ünïcode & co", id: "42" });
  });

  it("refuse anything else with 400 `cursor is invalid`", () => {
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of ["%%%", "bm90IGpzb24", encoded([1]), encoded({ id: "1" }), encoded({ id: "1", _kd: "p" }), encoded({ id: 1, _kd: "n" })]) {
      expect(() => decodeCursor(cursor), cursor).toThrow(new ParameterError("cursor", "is invalid"));
    }
  });
});

describe("pageFromQuery", () => {
  it("reads a whole page number, the first page for anything else, and stops at the offset limit", () => {
    expect(pageFromQuery("3", 20)).toEqual({ page: 3, perPage: 20, offset: 40 });
    for (const value of [undefined, "", "0", "-2", "1.5", "abc", "1e3", ["x", "2"]]) expect(pageFromQuery(value, 20).page).toBe(1);
    expect(pageFromQuery(["4", "5"], 20).page).toBe(4);
    expect(pageFromQuery("2500", 20)).toEqual({ page: 2500, perPage: 20, offset: 49_980 });
    expect(pageFromQuery("999999999", 20).page).toBe(2500);
    expect(pageFromQuery("99999999999999999999", 100).page).toBe(1);
    expect(pageFromQuery("999", 100).page).toBe(500);
  });
});
