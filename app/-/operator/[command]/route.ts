import { runOperatorRequest } from "@/lib/operator/route";

/** The operator socket's commands (`npm run admin`); see lib/operator/route.ts. */
export const POST = runOperatorRequest;
