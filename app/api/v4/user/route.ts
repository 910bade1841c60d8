import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { serializeUser } from "@/lib/users/serialize";
import { currentUser } from "@/lib/users/users";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/user", {
  GET: endpoint({ scopes: readUserScopes, handle: async ({ ctx }) => json(serializeUser(currentUser(ctx), { includePrivate: true })) }),
});
