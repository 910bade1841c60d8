import { corsPreflight, publicOAuthDocument } from "@/lib/oauth/http";
import { publicJwks } from "@/lib/oauth/keys";

export const GET = publicOAuthDocument("max-age=86400, public, must-revalidate, no-transform", publicJwks);

export const OPTIONS = corsPreflight;
