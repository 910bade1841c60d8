import { describe, expect, it } from "vitest";
import { ParameterError } from "@/lib/errors";
import {
  booleanParam,
  dateParam,
  dateTimeParam,
  eventIdParam,
  idSegment,
  integerListParam,
  integerParam,
  noSuchId,
  numericReference,
  positiveIntegerParam,
  searchParam,
} from "./param-types";
import { parseParams } from "./request";

describe("booleanParam", () => {
  it("reads what GitLab's API framework reads as booleans, in any case", () => {
    for (const word of ["true", "True", "TRUE", "1", "yes", "Yes", "y", "t", "T", "on", "ON"]) expect(booleanParam.parse(word)).toBe(true);
    for (const word of ["false", "False", "0", "no", "NO", "n", "f", "off", "Off"]) expect(booleanParam.parse(word)).toBe(false);
    expect(booleanParam.parse(true)).toBe(true);
    expect(booleanParam.parse(false)).toBe(false);
  });

  it("refuses anything else", () => {
    for (const value of ["", "2", "maybe", "truee", 1, null]) expect(booleanParam.safeParse(value).success).toBe(false);
  });
});

describe("dateParam", () => {
  it("accepts real calendar dates only", () => {
    expect(dateParam.parse("2024-02-29")).toBe("2024-02-29");
    expect(dateParam.safeParse("2023-02-29").success).toBe(false);
    expect(dateParam.safeParse("2024-13-01").success).toBe(false);
    expect(dateParam.safeParse("2024-1-1").success).toBe(false);
    expect(dateParam.safeParse("2024-01-01T00:00:00Z").success).toBe(false);
    expect(dateParam.safeParse("tomorrow").success).toBe(false);
  });
});

describe("dateTimeParam", () => {
  it("reads ISO 8601 dates and times; without an offset, UTC", () => {
    expect(dateTimeParam.parse("2024-05-01")).toEqual(new Date("2024-05-01T00:00:00Z"));
    expect(dateTimeParam.parse("2024-05-01T08:30:00Z")).toEqual(new Date("2024-05-01T08:30:00Z"));
    expect(dateTimeParam.parse("2024-05-01T08:30")).toEqual(new Date("2024-05-01T08:30:00Z"));
    expect(dateTimeParam.parse("2024-05-01 08:30:15.250")).toEqual(new Date("2024-05-01T08:30:15.250Z"));
    expect(dateTimeParam.parse("2024-05-01T08:30:00+02:00")).toEqual(new Date("2024-05-01T06:30:00Z"));
    expect(dateTimeParam.parse("2024-05-01T08:30:00-0130")).toEqual(new Date("2024-05-01T10:00:00Z"));
  });

  it("refuses what is not a real point in time", () => {
    for (const value of ["2024-02-30", "2024-05-01T25:00:00Z", "yesterday", "2024-5-1", "1714550400", ""]) {
      expect(dateTimeParam.safeParse(value).success, value).toBe(false);
    }
  });
});

describe("integerListParam", () => {
  it("takes arrays (of numbers or numeric strings) and comma lists", () => {
    expect(integerListParam.parse([1, "2"])).toEqual([1, 2]);
    expect(integerListParam.parse("3, 4,")).toEqual([3, 4]);
    expect(integerListParam.parse("")).toEqual([]);
    expect(integerListParam.safeParse("1,x").success).toBe(false);
    expect(integerListParam.safeParse(["1.5"]).success).toBe(false);
  });
});

describe("integer parameters stop at the range of the columns they are compared with", () => {
  it("integerParam and positiveIntegerParam: PostgreSQL's integer, as a JSON number or text", () => {
    for (const value of [2147483647, "2147483647", -2147483648, "-2147483648"]) expect(integerParam.safeParse(value).success).toBe(true);
    for (const value of [2147483648, "2147483648", -2147483649, "-2147483649", "99999999999", "99999999999999999999999", 1e300]) {
      expect(integerParam.safeParse(value).success).toBe(false);
      expect(positiveIntegerParam.safeParse(value).success).toBe(false);
    }
  });

  it("integerListParam: each item", () => {
    expect(integerListParam.parse("1,2147483647")).toEqual([1, 2147483647]);
    for (const value of ["1,2147483648", ["1", "-2147483649"], [2147483648]]) expect(integerListParam.safeParse(value).success).toBe(false);
  });

  it("eventIdParam: events' bigint, from 1 to its largest, taken as 2^53 − 1 beyond what a number holds exactly", () => {
    expect(eventIdParam.parse("3000000000")).toBe(3000000000);
    expect(eventIdParam.parse("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(eventIdParam.parse("9223372036854775807")).toBe(Number.MAX_SAFE_INTEGER);
    for (const value of ["9223372036854775808", "0", "-1", "-9223372036854775809", "1.5", "x"]) expect(eventIdParam.safeParse(value).success).toBe(false);
  });
});

describe("ids in paths", () => {
  it("idSegment: any decimal integer; one no row can have names none", () => {
    expect(idSegment.parse("42")).toBe(42);
    expect(idSegment.parse("2147483647")).toBe(2147483647);
    for (const text of ["0", "-1", "-0", "2147483648", "99999999999", "-99999999999", "1".repeat(400)]) expect(idSegment.parse(text)).toBe(noSuchId);
    for (const text of ["", "abc", "1.5", "1e3", " 1"]) expect(idSegment.safeParse(text).success).toBe(false);
  });

  it("numericReference: an id when all digits, else a name", () => {
    expect(numericReference("17")).toBe(17);
    expect(numericReference("99999999999")).toBe(noSuchId);
    expect(numericReference("0")).toBe(noSuchId);
    for (const name of ["root", "-1", "group/project", "1a"]) expect(numericReference(name)).toBeNull();
  });
});

describe("searchParam", () => {
  it("takes searches within GitLab's bounds and names what is wrong with the others, after the parameter", () => {
    expect(parseParams({ search: searchParam.optional() }, { search: "crash on start" })).toEqual({ search: "crash on start" });
    const longest = "x".repeat(4096);
    expect(parseParams({ search: searchParam }, { search: longest })).toEqual({ search: longest });
    expect(() => parseParams({ search: searchParam }, { search: `${longest}y` })).toThrow(
      new ParameterError("search", "is too long (maximum is 4096 characters)"),
    );
    // Words shorter than three characters are not searched for, so they do not count.
    const words = (count: number, word: string) => Array.from({ length: count }, () => word).join(" ");
    expect(parseParams({ query: searchParam }, { query: `${words(64, "abc")} ${words(100, "ab")}` }).query).toHaveLength(64 * 4 + 300 - 1);
    expect(() => parseParams({ query: searchParam }, { query: words(65, "abc") })).toThrow(new ParameterError("query", "has too many terms (maximum is 64 terms)"));
  });
});
