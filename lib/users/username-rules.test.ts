import { describe, expect, it } from "vitest";
import { emailProblem, usernameProblem } from "./username-rules";

describe("usernameProblem", () => {
  it("accepts GitLab-style usernames", () => {
    for (const name of ["ab", "alice", "Alice_Smith", "a.b-c_d", "_underscore", "user1", "x".repeat(255)]) {
      expect(usernameProblem(name), name).toBeUndefined();
    }
  });

  it("names what is wrong", () => {
    expect(usernameProblem("a")).toBe("is too short or too long (2 to 255 characters)");
    expect(usernameProblem("x".repeat(256))).toBe("is too short or too long (2 to 255 characters)");
    for (const name of ["-dash", ".dot", "with space", "slash/y", "ünï", "a@b"]) {
      expect(usernameProblem(name), name).toBe("can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or '.'");
    }
    expect(usernameProblem("trailing.")).toBe("cannot end with '.'");
    expect(usernameProblem("repo.git")).toBe("cannot end in '.git' or '.atom'");
    expect(usernameProblem("feed.ATOM")).toBe("cannot end in '.git' or '.atom'");
  });

  it("reserves the names of top-level paths, in any case", () => {
    for (const name of ["api", "API", "oauth", "users", "admin", "explore", "projects"]) {
      expect(usernameProblem(name), name).toBe("is reserved");
    }
  });
});

describe("emailProblem", () => {
  it("accepts plausible addresses and refuses the rest", () => {
    expect(emailProblem("a@b.co")).toBeUndefined();
    expect(emailProblem("first.last+tag@sub.example.org")).toBeUndefined();
    for (const email of ["", "plain", "a@b", "a b@c.d", "@c.d", "a@@c.d", `${"x".repeat(251)}@c.de`]) {
      expect(emailProblem(email), email).toBe("is invalid");
    }
  });
});
