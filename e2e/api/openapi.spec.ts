import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";

const committed = JSON.parse(readFileSync("docs/openapi.json", "utf8")) as { openapi: string; paths: Record<string, Record<string, { operationId: string; summary: string }>> };

test("the API's OpenAPI document is served to anybody, as committed", async ({ request }) => {
  const answer = await request.get("/api/v4/openapi.json");
  expect([answer.status(), answer.headers()["content-type"]]).toEqual([200, expect.stringMatching(/^application\/json/)]);
  const served = (await answer.json()) as typeof committed;
  expect(served).toEqual(committed);
  expect(served.openapi).toBe("3.1.0");
  expect(served.paths["/projects/{id}/hooks"]?.post).toMatchObject({ operationId: "post_projects_id_hooks", summary: "POST /projects/:id/hooks" });
  // A token nobody issued is refused, as on every route that also answers anonymous callers.
  expect((await request.get("/api/v4/openapi.json", { headers: { "PRIVATE-TOKEN": "glpat-nobody-issued-this" } })).status()).toBe(401);
});
