import { describe, expect, it } from "vitest";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, userContext } from "@/lib/testing/fixtures";
import { createOwnApplication } from "./applications";
import { signInPurpose } from "./sign-in-purpose";

describe.each(testDatabases())("sign-in purpose on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("names the application of an authorization request from its registration, and nothing else", async () => {
    const owner = await createTestUser(handle.db);
    const { application } = await createOwnApplication(userContext(handle.db, owner), {
      name: "Reader",
      redirectUri: "https://client.example/callback",
      scopes: ["read_user"],
    });
    const ctx = anonymousTestContext(handle.db);
    const authorize = (query: string) => signInPurpose(ctx, `/oauth/authorize?${query}`);
    expect(await authorize(`client_id=${application.uid}&name=Bank`)).toEqual({ kind: "application", name: "Reader" });
    expect(await signInPurpose(ctx, `/oauth/authorize/consent?client_id=${application.uid}`)).toEqual({ kind: "application", name: "Reader" });
    expect(await authorize("client_id=unknown")).toBeNull();
    expect(await authorize("client_id=%00")).toBeNull();
    expect(await authorize(`client_id=${"a".repeat(256)}`)).toBeNull();
    expect(await authorize("name=Bank")).toBeNull();
    expect(await signInPurpose(ctx, `/profile?client_id=${application.uid}`)).toBeNull();
    expect(await signInPurpose(ctx, "/oauth/device?user_code=ABCD-EFGH")).toEqual({ kind: "device" });
  });
});
