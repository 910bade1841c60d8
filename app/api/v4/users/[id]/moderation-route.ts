import { apiResource, endpoint } from "@/lib/api/endpoint";
import { idSegment } from "@/lib/api/param-types";
import { created } from "@/lib/api/respond";
import { writeApiScopes } from "@/lib/api/scopes";
import type { Ctx } from "@/lib/context";
import { z } from "zod";
import { createdWith } from "@/lib/api/responses";

/**
 * `POST /users/:id/block` and `/unblock` (admin). GitLab answers 201 with the bare JSON `true` when the state changed;
 * when there was nothing to do, blocking answers `null` (the endpoint stops early) and unblocking `false`.
 */
export function moderationResource(route: string, verb: (ctx: Ctx, userId: number) => Promise<boolean>, unchangedBody: null | false) {
  return apiResource(route, {
    POST: endpoint({
      response: createdWith(z.boolean().nullable()),
      scopes: writeApiScopes,
      path: { id: idSegment },
      handle: async ({ ctx, path }) => created((await verb(ctx, path.id)) ? true : unchangedBody),
    }),
  });
}
