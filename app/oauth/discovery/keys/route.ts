import { getDatabase } from "@/lib/db";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";
import { publicJwks } from "@/lib/oauth/keys";

export const GET = directlyDispatchable(async () => ({
  status: 200,
  headers: { "Content-Type": "application/json", "Cache-Control": "max-age=86400, public, must-revalidate, no-transform", ...corsHeaders },
  body: JSON.stringify(await publicJwks(await getDatabase())),
}));

export const OPTIONS = corsPreflight;
