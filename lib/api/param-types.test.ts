import { describe, expect, it } from "vitest";
import { dateParam } from "./param-types";

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
