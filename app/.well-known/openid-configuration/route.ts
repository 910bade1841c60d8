import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { discoveryDocument } from "@/lib/oauth/discovery";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";

export const GET = directlyDispatchable(
  (): Response => Response.json(discoveryDocument(), { headers: { "Cache-Control": "max-age=3600, public", ...corsHeaders } }),
);

export const OPTIONS = corsPreflight;
