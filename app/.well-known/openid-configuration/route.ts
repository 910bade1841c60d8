import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { discoveryDocument } from "@/lib/oauth/discovery";
import { corsHeaders, corsPreflight } from "@/lib/oauth/http";

export const GET = directlyDispatchable(() => ({
  status: 200,
  headers: { "Content-Type": "application/json", "Cache-Control": "max-age=3600, public", ...corsHeaders },
  body: JSON.stringify(discoveryDocument()),
}));

export const OPTIONS = corsPreflight;
