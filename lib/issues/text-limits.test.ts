import { describe, expect, it } from "vitest";
import { commentFormSchema, newIssueFormSchema } from "./form-schemas";
import { descriptionProblem, maxDescriptionLength, maxNoteLength, maxTitleLength, noteBodyProblem, titleProblem } from "./text-limits";

describe("text limits", () => {
  it("words GitLab's validation messages", () => {
    expect(descriptionProblem(null)).toBeNull();
    expect(descriptionProblem("x".repeat(maxDescriptionLength))).toBeNull();
    expect(descriptionProblem("x".repeat(maxDescriptionLength + 1))).toBe("is too long (maximum is 1048576 characters)");
    expect(noteBodyProblem(" \n")).toBe("can't be blank");
    expect(noteBodyProblem("x".repeat(maxNoteLength))).toBeNull();
    expect(noteBodyProblem("x".repeat(maxNoteLength + 1))).toBe("is too long (maximum is 1000000 characters)");
    expect(titleProblem(" \t")).toBe("can't be blank");
    expect(titleProblem(` ${"x".repeat(maxTitleLength)} `)).toBeNull();
    expect(titleProblem("😀".repeat(maxTitleLength))).toBeNull();
    expect(titleProblem("x".repeat(maxTitleLength + 1))).toBe("is too long (maximum is 255 characters)");
  });

  it("holds the issue forms to the same limits", () => {
    expect(newIssueFormSchema.safeParse({ title: "t", description: "😀".repeat(maxDescriptionLength) }).success).toBe(true);
    expect(newIssueFormSchema.safeParse({ title: "t", description: "x".repeat(maxDescriptionLength + 1) }).error?.issues[0]?.message).toBe(
      "Description is too long (maximum is 1048576 characters).",
    );
    expect(commentFormSchema.safeParse({ body: "x".repeat(maxNoteLength + 1) }).error?.issues[0]?.message).toBe("Comment is too long (maximum is 1000000 characters).");
    expect(newIssueFormSchema.safeParse({ title: "😀".repeat(maxTitleLength) }).success).toBe(true);
    expect(newIssueFormSchema.safeParse({ title: "x".repeat(maxTitleLength + 1) }).error?.issues[0]?.message).toBe("Title is too long (maximum is 255 characters).");
  });
});
