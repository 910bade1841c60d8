import { describe, expect, it } from "vitest";
import { fingerprintOf } from "./fingerprint";

describe("fingerprintOf", () => {
  it("hashes a string fingerprint with SHA-1, as GitLab stores `fingerprint: \"testing\"`", () => {
    expect(fingerprintOf("testing")).toBe("dc724af18fbdd4e59189f5fe768a5f8311527050");
  });

  it("joins a (nested) array without separators before hashing", () => {
    // SHA-1 of "ab1"
    expect(fingerprintOf(["a", ["b", 1]])).toBe("e175ea4ce0a553260a14bc5e922a935b40425c1e");
  });

  it("hashes an object as its sorted, dot-joined key/value pairs in Ruby's inspect form", () => {
    // SHA-1 of '[["a.b", "x"], ["c", 1], ["d", nil]]'
    expect(fingerprintOf({ d: null, c: 1, a: { b: "x" } })).toBe("eba421f58136dfc920f5ef6f1d919b729064bc67");
  });

  it("gives the same fingerprint whatever the key order", () => {
    expect(fingerprintOf({ a: 1, b: { c: 2 } })).toBe(fingerprintOf({ b: { c: 2 }, a: 1 }));
  });

  it("has no fingerprint for blank values", () => {
    for (const blank of ["", "  ", [], {}, null, false]) expect(fingerprintOf(blank)).toBeNull();
  });
});
