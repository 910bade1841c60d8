import { unblockUser } from "@/lib/users/admin";
import { moderationResource } from "../moderation-route";

export const { GET, POST, PUT, PATCH, DELETE } = moderationResource("/users/:id/unblock", unblockUser, false);
