import { checkReadiness } from "@/lib/health";

export async function GET(): Promise<Response> {
  const ready = await checkReadiness();
  return Response.json(ready, { status: ready.status === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
