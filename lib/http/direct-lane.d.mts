import type { IncomingMessage, ServerResponse } from "node:http";

export function directLane(options: {
  distDir: string;
  commonHeaders: readonly { key: string; value: string }[];
}): (request: IncomingMessage, response: ServerResponse) => boolean;
