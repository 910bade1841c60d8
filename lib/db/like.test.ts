import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { ParameterError } from "@/lib/errors";
import { containsPattern, fuzzySearch, fuzzyWords } from "./like";

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

describe("search bounds", () => {
  it("refuse a search past GitLab's length or number of words before any pattern is built", () => {
    expect(() => containsPattern("x".repeat(4097))).toThrow(new ParameterError("search", "is too long (maximum is 4096 characters)"));
    const manyWords = Array.from({ length: 65 }, (_, index) => `word${index}`).join(" ");
    expect(() => fuzzySearch([sql`title`], manyWords)).toThrow(new ParameterError("search", "has too many terms (maximum is 64 terms)"));
    expect(fuzzySearch([sql`title`], manyWords.split(" ").slice(0, 64).join(" "))).toBeDefined();
  });
});
