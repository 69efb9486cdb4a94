// Accounts the gateway uses itself, not customers': the canaries' system account (core/health/system-account.ts).
// The admin user list and the admin `users` count leave them out; its own id still opens it for an admin.
export const CANARY_EMAIL = 'canary@tollgate.invalid';
