import type { ServerResponse } from "node:http";

export function countRequest(response: ServerResponse): void;
export function requestMsSoFar(): number;
