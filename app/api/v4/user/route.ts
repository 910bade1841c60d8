import { apiResource, endpoint } from "@/lib/api/endpoint";
import { json } from "@/lib/api/respond";
import { readUserScopes } from "@/lib/api/scopes";
import { serializeUser, userWithPrivateFieldsEntity } from "@/lib/users/serialize";
import { currentUser } from "@/lib/users/users";
import { okWith } from "@/lib/api/responses";

export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/user", {
  GET: endpoint({ response: okWith(userWithPrivateFieldsEntity), scopes: readUserScopes, handle: async ({ ctx }) => json(serializeUser(currentUser(ctx), { includePrivate: true })) }),
});
