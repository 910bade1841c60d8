import { describe, expect, it } from "vitest";
import { labelTextColor, labelTitleProblem, normalizeLabelColor, sortByTitle, splitLabelNames } from "./label-rules";

describe("label rules", () => {
  it("takes #RGB and #RRGGBB colours only", () => {
    expect(normalizeLabelColor(" #FFaa00 ")).toBe("#FFaa00");
    expect(normalizeLabelColor("#abc")).toBe("#abc");
    for (const bad of ["red", "#abcd", "#gggggg", "ffffff", ""]) expect(normalizeLabelColor(bad), bad).toBeNull();
  });

  it("writes dark text on light colours and white on dark ones, as GitLab's contrast does", () => {
    expect(labelTextColor("#FFFFFF")).toBe("#1F1E24");
    expect(labelTextColor("#fff")).toBe("#1F1E24");
    expect(labelTextColor("#6699cc")).toBe("#FFFFFF");
    expect(labelTextColor("#000")).toBe("#FFFFFF");
  });

  it("refuses blank titles, commas and titles over 255 characters", () => {
    expect(labelTitleProblem("  ")).toBe("can't be blank");
    expect(labelTitleProblem("a,b")).toBe("is invalid");
    expect(labelTitleProblem("x".repeat(256))).toBe("is too long (maximum is 255 characters)");
    expect(labelTitleProblem(" fine ")).toBeUndefined();
  });

  it("reads label lists as GitLab does: comma lists inside arrays, trimmed, without blanks or repeats", () => {
    expect(splitLabelNames(["bug, ui", " bug", "", "docs,,"])).toEqual(["bug", "ui", "docs"]);
    expect(splitLabelNames([])).toEqual([]);
  });

  it("orders by code point, capitals first, as Ruby sorts", () => {
    expect(sortByTitle([{ title: "bug" }, { title: "Zed" }, { title: "alpha" }]).map((label) => label.title)).toEqual(["Zed", "alpha", "bug"]);
  });
});
