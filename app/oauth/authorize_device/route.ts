import { createDeviceAuthorization } from "@/lib/oauth/device";
import { oauthEndpoint, readOAuthParams, singleValued } from "@/lib/oauth/http";

export const POST = oauthEndpoint("/oauth/authorize_device", async ({ db, request, now }) =>
  createDeviceAuthorization(db, request, singleValued(await readOAuthParams(request)), now),
);
