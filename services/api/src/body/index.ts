// The bodies of the two routes that take ID arrays (PUT /users, upload chunks): reading them (list-body.ts,
// with json-id-reader.ts for a PUT's plain id list) and checking their items (id-items.ts). expiry-fields.ts
// reads a membership's `expires_at` / `ttl_seconds` wherever a body carries them.
export * from './list-body';
export * from './id-items';
