import { headers } from "next/headers";
import { isMonitoringRequest } from "@/lib/http/client-address";
import { metrics } from "@/lib/metrics";

/** Prometheus's scrape, for addresses in MONITORING_ALLOWLIST; anyone else is told there is nothing here, as GitLab. */
export async function GET(): Promise<Response> {
  if (!isMonitoringRequest(await headers())) {
    return new Response("404 Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
  }
  return new Response(await metrics.registry.metrics(), {
    headers: { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" },
  });
}
