import { describe, expect, it } from "vitest";
import { alertEmail, listIdOf, type AlertEmailFacts } from "./email-message";

const facts: AlertEmailFacts = {
  kind: "triggered",
  recurrences: 0,
  alert: { id: 7, iid: 3, title: "CPU", description: null, environment: null },
  project: { id: 12, name: "Web", fullPath: "Acme/Web.App" },
  incident: null,
  detailsUrl: "https://code.example/Acme/Web.App/-/alert_management/3/details",
  host: "code.example",
};

describe("the alert email", () => {
  it("files a project's mail under GitLab's List-Id: the path as a domain, innermost first", () => {
    expect(listIdOf(facts.project, "code.example")).toBe("12.web-app.acme.code.example");
    expect(alertEmail(facts).headers["List-Id"]).toBe("Acme/Web.App <12.web-app.acme.code.example>");
  });

  it("cuts a List-Id that would pass 255 characters at a dot, and marks the cut", () => {
    const project = { id: 12, name: "Deep", fullPath: `${"a".repeat(200)}/${"b".repeat(100)}` };
    expect(listIdOf(project, "code.example")).toBe(`12.${"b".repeat(100)}...code.example`);
    expect(listIdOf(project, "x".repeat(252))).toBe(`12...${"x".repeat(252)}`);
  });

  it("keeps a title's line breaks out of the subject and the headers", () => {
    const email = alertEmail({ ...facts, alert: { ...facts.alert, title: "CPU\r\nBcc: someone@example.com" }, project: { ...facts.project, name: "Web\nX-Evil: 1" } });
    expect(email.subject).toBe("Web X-Evil: 1 | Alert: CPU Bcc: someone@example.com");
    expect(email.headers["X-GitLab-Project"]).toBe("Web X-Evil: 1");
  });

  it("says how many times a digest's alert fired: once, or a number of times", () => {
    expect(alertEmail({ ...facts, kind: "recurred", recurrences: 1 }).text).toContain("\nSince the last email, it fired once more.\n");
    expect(alertEmail({ ...facts, kind: "recurred", recurrences: 7 }).text).toContain("\nSince the last email, it fired 7 more times.\n");
    expect(alertEmail(facts).text).not.toContain("Since the last email");
  });
});
