import { describe, expect, it } from "vitest";
import { containsPattern, fuzzyWords } from "./like";

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

describe("fuzzyWords", () => {
  it("splits on whitespace, keeps quoted phrases whole and drops words shorter than the minimum", () => {
    expect(fuzzyWords('crash on "app start" now', 3)).toEqual(["crash", "now", "app start"]);
    expect(fuzzyWords("a bc", 3)).toEqual([]);
    expect(fuzzyWords("a bc", 1)).toEqual(["a", "bc"]);
  });
});
