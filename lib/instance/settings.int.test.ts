import { describe, expect, it } from "vitest";
import { ForbiddenError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, userContext } from "@/lib/testing/fixtures";
import { getInstanceSettings, instanceSettingsOf, localRequestsAllowedFromWebHooks, serializeApplicationSettings, updateInstanceSettings } from "./settings";

describe.each(testDatabases())("instance settings on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("start as GitLab's defaults, and each save changes only the settings it names", async () => {
    const admin = userContext(handle.db, await createTestUser(handle.db, { isAdmin: true }));
    expect(await instanceSettingsOf(handle.db)).toEqual({ oauthAuthorizationResponseIss: false, allowLocalRequestsFromWebHooksAndServices: false, canCreateGroup: true });
    expect(await localRequestsAllowedFromWebHooks(handle.db)).toBe(false);

    // The first save creates the row: the setting not named keeps its default.
    expect(await updateInstanceSettings(admin, { allowLocalRequestsFromWebHooksAndServices: true })).toEqual({
      oauthAuthorizationResponseIss: false,
      allowLocalRequestsFromWebHooksAndServices: true,
      canCreateGroup: true,
    });
    expect(await localRequestsAllowedFromWebHooks(handle.db)).toBe(true);
    expect(await updateInstanceSettings(admin, { oauthAuthorizationResponseIss: true })).toEqual({
      oauthAuthorizationResponseIss: true,
      allowLocalRequestsFromWebHooksAndServices: true,
      canCreateGroup: true,
    });
    // Nothing named: nothing changes.
    expect(await updateInstanceSettings(admin, {})).toEqual({ oauthAuthorizationResponseIss: true, allowLocalRequestsFromWebHooksAndServices: true, canCreateGroup: true });
    expect(await updateInstanceSettings(admin, { allowLocalRequestsFromWebHooksAndServices: false })).toEqual({
      oauthAuthorizationResponseIss: true,
      allowLocalRequestsFromWebHooksAndServices: false,
      canCreateGroup: true,
    });
    expect(await localRequestsAllowedFromWebHooks(handle.db)).toBe(false);
    expect(serializeApplicationSettings(await getInstanceSettings(admin))).toEqual({
      signup_enabled: true,
      allow_local_requests_from_web_hooks_and_services: false,
      allow_local_requests_from_hooks_and_services: false,
      oauth_authorization_response_iss: true,
      can_create_group: true,
    });
  });

  it("are read and changed by admins only", async () => {
    const someone = userContext(handle.db, await createTestUser(handle.db));
    const before = await instanceSettingsOf(handle.db);
    await expect(getInstanceSettings(someone)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(updateInstanceSettings(someone, { allowLocalRequestsFromWebHooksAndServices: !before.allowLocalRequestsFromWebHooksAndServices })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(await instanceSettingsOf(handle.db)).toEqual(before);
  });
});
