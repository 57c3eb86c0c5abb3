// @rolelink/db/audit: the admin audit log (admin_audit).
export * from './admin-audit.repo';
