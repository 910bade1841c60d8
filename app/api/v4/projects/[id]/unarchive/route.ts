import { archiveResource } from "../archive/archive-route";

export const { GET, POST, PUT, PATCH, DELETE } = archiveResource("/projects/:id/unarchive", false);
