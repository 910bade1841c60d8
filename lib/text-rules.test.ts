import { describe, expect, it } from "vitest";
import { longerThan, maxNameLength, requiredTextProblem } from "./text-rules";

describe("text rules", () => {
  it("counts characters as GitLab does: a surrogate pair is one, a lone half is one", () => {
    expect(longerThan("abc", 3)).toBe(false);
    expect(longerThan("abcd", 3)).toBe(true);
    expect(longerThan("😀😀😀", 3)).toBe(false);
    expect(longerThan("😀😀😀a", 3)).toBe(true);
    expect(longerThan("\ud83d\ud83d\ude00", 1)).toBe(true);
    expect(longerThan("\ude00\ud83d", 1)).toBe(true);
  });

  it("words Rails' presence and length messages", () => {
    expect(requiredTextProblem("", maxNameLength)).toBe("can't be blank");
    expect(requiredTextProblem(" \t\n", maxNameLength)).toBe("can't be blank");
    expect(requiredTextProblem("x".repeat(maxNameLength), maxNameLength)).toBeNull();
    expect(requiredTextProblem("😀".repeat(maxNameLength), maxNameLength)).toBeNull();
    expect(requiredTextProblem("x".repeat(maxNameLength + 1), maxNameLength)).toBe("is too long (maximum is 255 characters)");
  });
});
