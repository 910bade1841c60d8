import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestMetrics } from "./metrics-registry.mjs";
import type { RouteTable } from "./route-table.mjs";

export const unmatchedRoute: "(unmatched)";
export const staticAssetsRoute: "/_next/static";
export const actionSuffix: " (action)";
export function routeLabel(table: RouteTable, method: string, url: string, nextAction: string | string[] | undefined): string;
export function frameworkLaneMetrics(options: {
  manifest: Record<string, string>;
  metrics?: RequestMetrics;
}): (request: IncomingMessage, response: ServerResponse, handle: (request: IncomingMessage, response: ServerResponse) => unknown) => void;
