// @rolelink/db/overrides: admin overrides per link (link_override: "always keep" and "never give").
export * from './link-overrides.repo';
