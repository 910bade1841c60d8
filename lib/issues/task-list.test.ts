import { describe, expect, it } from "vitest";
import { taskCompletion, taskStatus } from "./task-list";

describe("task lists in descriptions", () => {
  it("counts checklist items of any list style, and those checked", () => {
    const description = ["- [ ] one", "* [x] two", "1. [X] three", "+ [ ] four", "- [ ]", "[ ] not in a list", "> - [x] quoted"].join("\n");
    expect(taskCompletion(description)).toEqual({ count: 5, completed_count: 3 });
    expect(taskStatus({ count: 5, completed_count: 3 })).toBe("3 of 5 checklist items completed");
    expect(taskStatus({ count: 1, completed_count: 0 })).toBe("0 of 1 checklist item completed");
  });

  it("finds none in a plain or missing description", () => {
    expect(taskCompletion(null)).toEqual({ count: 0, completed_count: 0 });
    expect(taskCompletion("Just text\n- a list item")).toEqual({ count: 0, completed_count: 0 });
  });
});
