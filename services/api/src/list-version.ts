import type { Response } from 'express';
import { AppError } from '@rolelink/runtime';

/**
 * The list's version as an entity tag: `"<link id>.<version>"`. The link id is part of it so a tag of a
 * deleted link never matches the link later created at the same guild and role (versions restart at 0).
 */
export function listETag(linkId: string, version: string): string {
  return `"${linkId}.${version}"`;
}

export function setListVersion(res: Response, linkId: string, version: string): void {
  res.setHeader('ETag', listETag(linkId, version));
}

const TAG = /^"(\d+)\.(\d+)"$/;

/**
 * The versions of this link an If-Match header accepts; undefined when there is no condition (header
 * absent, or `*`: the list always exists while its link does). Weak tags (`W/"…"`), tags of another link
 * and anything unparseable accept nothing, so the write answers 412 (If-Match compares strongly).
 */
export function ifMatchVersions(header: string | undefined, linkId: string): string[] | undefined {
  if (header === undefined) return undefined;
  const tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.includes('*')) return undefined;
  const versions: string[] = [];
  for (const tag of tags) {
    const m = TAG.exec(tag);
    if (m && m[1] === linkId) versions.push(m[2]!);
  }
  return versions;
}

/** 412 in the §7 shape, with the current version in ETag so the caller can tell what it missed. */
export function versionMismatch(res: Response, linkId: string, current: string): AppError {
  setListVersion(res, linkId, current);
  return new AppError(
    412,
    `The list changed since the version in If-Match: it is now ${listETag(linkId, current)}. Read it again (GET /users) and resend.`,
    'precondition_failed',
  );
}
