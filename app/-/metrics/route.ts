import { metrics } from "@/lib/metrics";

export async function GET(): Promise<Response> {
  return new Response(await metrics.registry.metrics(), {
    headers: { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" },
  });
}
