import { getDatabase } from "@/lib/db";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";
import { publicJwks } from "@/lib/oauth/keys";

export const GET = directlyDispatchable(
  async (): Promise<Response> =>
    Response.json(await publicJwks(await getDatabase()), {
      headers: { "Cache-Control": "max-age=86400, public, must-revalidate, no-transform", ...corsHeaders },
    }),
);

export const OPTIONS = corsPreflight;
