import { archiveResource } from "./archive-route";

export const { GET, POST, PUT, PATCH, DELETE } = archiveResource("/projects/:id/archive", true);
