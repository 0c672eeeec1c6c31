/** The path prefix of the public API (its own module: the admin API's checks need it, and server.ts imports those). */
export const API_BASE_PATH = '/api/public/v1.0';
