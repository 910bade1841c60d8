import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { env } from "@/lib/env";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiResource, endpoint } from "./endpoint";
import { json } from "./respond";
import { okWith } from "./responses";

/** A route whose answer departs from its declaration: `id` is declared a number and answered as text. */
const misdeclared = apiResource("/misdeclared", {
  GET: endpoint({
    scopes: [],
    allowAnonymous: true,
    response: okWith(z.strictObject({ id: z.number().int(), name: z.string() })),
    handle: async () => json({ id: "7", name: "seven" }),
  }),
});

describe.each(testDatabases())("the response check on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const checking = env.API_RESPONSE_CHECK;

  afterEach(() => {
    env.API_RESPONSE_CHECK = checking;
  });

  async function call() {
    (globalThis as unknown as { databaseHandle?: Promise<unknown> }).databaseHandle = Promise.resolve(handle);
    const response = await misdeclared.GET(new Request(`${env.EXTERNAL_URL}/api/v4/misdeclared`), { params: Promise.resolve({}) });
    return [response.status, await response.json()];
  }

  it("is off unless API_RESPONSE_CHECK turns it on: the answer goes out as the handler made it", async () => {
    expect(env.API_RESPONSE_CHECK).toBe(false);
    expect(await call()).toEqual([200, { id: "7", name: "seven" }]);
  });

  it("turns an answer its declared schema refuses into a 500 naming the route and the fault", async () => {
    env.API_RESPONSE_CHECK = true;
    expect(await call()).toEqual([
      500,
      {
        message: "500 Internal Server Error",
        response_check: { operation: "GET /misdeclared", status: 200, mismatches: ["id: Invalid input: expected number, received string"] },
      },
    ]);
  });
});
