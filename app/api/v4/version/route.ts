import { metadataResource } from "../metadata/metadata-resource";

/** Deprecated in GitLab 15.5 for `/metadata`, and answering the same; python-gitlab's `gl.version()` reads it. */
export const { GET, POST, PUT, PATCH, DELETE } = metadataResource("/version");
