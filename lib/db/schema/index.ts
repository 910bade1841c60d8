export * from "./users";
export * from "./personal-access-tokens";
export * from "./projects";
export * from "./events";
export * from "./instance";
export * from "./oauth";
export * from "./internal-ids";
export * from "./alerts";
