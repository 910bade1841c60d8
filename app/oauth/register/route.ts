import { clientAddress } from "@/lib/http/client-address";
import { readClientMetadata, registerDynamicClient } from "@/lib/oauth/dynamic-registration";
import { anonymousContextFor, corsPreflight, oauthEndpoint } from "@/lib/oauth/http";

/** RFC 7591 dynamic client registration, as GitLab's `POST /oauth/register`: 201 with the registered client. */
export const POST = oauthEndpoint(
  "/oauth/register",
  async (call) => registerDynamicClient(anonymousContextFor(call), clientAddress(call.request.headers), () => readClientMetadata(call.request)),
  { status: 201 },
);

export const OPTIONS = corsPreflight;
