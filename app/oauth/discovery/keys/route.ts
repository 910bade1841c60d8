import { getDatabase } from "@/lib/db";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";
import { publicJwks } from "@/lib/oauth/keys";

export async function GET(): Promise<Response> {
  return Response.json(await publicJwks(await getDatabase()), {
    headers: { "Cache-Control": "max-age=86400, public, must-revalidate, no-transform", ...corsHeaders },
  });
}

export const OPTIONS = corsPreflight;
