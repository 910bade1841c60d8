import { describe, expect, it } from "vitest";
import { pathFromName, projectNameProblem, projectPathProblem } from "./path-rules";

describe("pathFromName", () => {
  it("derives GitLab-style paths", () => {
    expect(pathFromName("My Project")).toBe("my-project");
    expect(pathFromName("  Spaces  Around ")).toBe("spaces-around");
    expect(pathFromName("Café Crème")).toBe("cafe-creme");
    expect(pathFromName("a + b")).toBe("a-b");
    expect(pathFromName("v1.2_final")).toBe("v1.2_final");
    expect(pathFromName("-leading and trailing-")).toBe("leading-and-trailing");
    expect(pathFromName("🚀 Rocket")).toBe("rocket");
  });

  it("derives a path the path rules accept from any valid name", () => {
    for (const name of ["My Project", "Café", "a_b.c-d", "Z", "release 1.0", "_private"]) {
      expect(projectNameProblem(name), name).toBeUndefined();
      expect(projectPathProblem(pathFromName(name)), name).toBeUndefined();
    }
  });
});

describe("projectPathProblem", () => {
  it("accepts valid paths", () => {
    for (const path of ["a", "my-project", "A_b.c", "_x", "1"]) expect(projectPathProblem(path), path).toBeUndefined();
  });

  it("names what is wrong", () => {
    expect(projectPathProblem("")).toBe("can't be blank");
    expect(projectPathProblem("x".repeat(255))).toBeUndefined();
    expect(projectPathProblem("x".repeat(256))).toBe("is too long (maximum is 255 characters)");
    for (const path of ["-a", ".a", "a b", "a/b", "ä"]) {
      expect(projectPathProblem(path), path).toBe("can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or '.'");
    }
    expect(projectPathProblem("a.")).toBe("cannot end with '.'");
    expect(projectPathProblem("x.git")).toBe("cannot end in '.git' or '.atom'");
    expect(projectPathProblem("x.Atom")).toBe("cannot end in '.git' or '.atom'");
  });
});

describe("projectNameProblem", () => {
  it("names what is wrong", () => {
    expect(projectNameProblem("   ")).toBe("can't be blank");
    expect(projectNameProblem("😀".repeat(255))).toBe("must start with a letter, digit or '_'");
    expect(projectNameProblem(`x${"😀".repeat(254)}`)).toBeUndefined();
    expect(projectNameProblem("x".repeat(256))).toBe("is too long (maximum is 255 characters)");
    expect(projectNameProblem("-dash")).toBe("must start with a letter, digit or '_'");
    expect(projectNameProblem("a/b")).toBe("can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces");
    expect(projectNameProblem("a\u0000b")).toBe("can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces");
  });
});
