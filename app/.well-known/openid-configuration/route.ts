import { discoveryDocument } from "@/lib/oauth/discovery";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";

export function GET(): Response {
  return Response.json(discoveryDocument(), { headers: { "Cache-Control": "max-age=3600, public", ...corsHeaders } });
}

export const OPTIONS = corsPreflight;
