import { describe, expect, it } from "vitest";
import { containsPattern } from "./like";

describe("containsPattern", () => {
  it("wraps text in wildcards", () => {
    expect(containsPattern("abc")).toBe("%abc%");
    expect(containsPattern("")).toBe("%%");
  });

  it("escapes LIKE's special characters so they match literally", () => {
    expect(containsPattern("100%")).toBe("%100\\%%");
    expect(containsPattern("a_b")).toBe("%a\\_b%");
    expect(containsPattern("back\\slash")).toBe("%back\\\\slash%");
    expect(containsPattern("%_\\")).toBe("%\\%\\_\\\\%");
  });
});
