import { discoveryDocument } from "@/lib/oauth/discovery";
import { corsPreflight, publicOAuthDocument } from "@/lib/oauth/http";

export const GET = publicOAuthDocument("max-age=3600, public", discoveryDocument);

export const OPTIONS = corsPreflight;
