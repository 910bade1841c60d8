import { describe, expect, it } from "vitest";
import { confirmationRequiredOnSignIn, linkStillValid, unconfirmedAccessMs } from "./confirmation-rules";

const sentAt = new Date("2030-01-01T00:00:00Z");
const after = (ms: number) => new Date(sentAt.getTime() + ms);

describe("confirmationRequiredOnSignIn", () => {
  const unconfirmed = { confirmedAt: null, confirmationSentAt: sentAt };
  const confirmed = { confirmedAt: sentAt, confirmationSentAt: sentAt };
  const neverSent = { confirmedAt: null, confirmationSentAt: null };

  it("never requires it of a confirmed account", () => {
    for (const setting of ["off", "soft", "hard"] as const) {
      expect(confirmationRequiredOnSignIn(confirmed, setting, after(365 * 86_400_000)), setting).toBe(false);
    }
  });

  it("off: never required", () => {
    expect(confirmationRequiredOnSignIn(unconfirmed, "off", after(365 * 86_400_000))).toBe(false);
    expect(confirmationRequiredOnSignIn(neverSent, "off", sentAt)).toBe(false);
  });

  it("hard: required at once", () => {
    expect(confirmationRequiredOnSignIn(unconfirmed, "hard", sentAt)).toBe(true);
  });

  it("soft: allowed for three days after the link was sent, to the millisecond; required without a link", () => {
    expect(unconfirmedAccessMs).toBe(3 * 24 * 60 * 60 * 1000);
    expect(confirmationRequiredOnSignIn(unconfirmed, "soft", sentAt)).toBe(false);
    expect(confirmationRequiredOnSignIn(unconfirmed, "soft", after(unconfirmedAccessMs))).toBe(false);
    expect(confirmationRequiredOnSignIn(unconfirmed, "soft", after(unconfirmedAccessMs + 1))).toBe(true);
    expect(confirmationRequiredOnSignIn(neverSent, "soft", sentAt)).toBe(true);
  });
});

describe("linkStillValid", () => {
  it("holds up to the lifetime and not after, and never for a link never sent", () => {
    expect(linkStillValid(sentAt, 1000, after(1000))).toBe(true);
    expect(linkStillValid(sentAt, 1000, after(1001))).toBe(false);
    expect(linkStillValid(null, 1000, sentAt)).toBe(false);
  });
});
