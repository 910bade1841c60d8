/** The administrator the e2e servers bootstrap (INITIAL_ROOT_PASSWORD / INITIAL_ROOT_TOKEN). */
export const rootPassword = "e2e-root-password";
export const rootToken = "e2e-root-token-0123456789abcdef";
