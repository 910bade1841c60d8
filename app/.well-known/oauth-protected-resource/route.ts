import { env } from "@/lib/env";
import { protectedResourceMetadata } from "@/lib/mcp/resource";
import { corsPreflight, publicOAuthDocument } from "@/lib/oauth/http";

/** RFC 9728 metadata of the service as a whole, for clients that look at the host's root. */
export const GET = publicOAuthDocument("max-age=3600, public", () => protectedResourceMetadata(env.EXTERNAL_URL));

export const OPTIONS = corsPreflight;
