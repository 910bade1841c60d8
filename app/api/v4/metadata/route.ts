import { metadataResource } from "./metadata-resource";

export const { GET, POST, PUT, PATCH, DELETE } = metadataResource("/metadata");
