import { version } from '../package.json';

/**
 * What this process is: the product's release (every package.json carries the same version; esbuild
 * inlines this one into each bundle), the source revision the image was built from, and the Node.js
 * running it. Exported as rolelink_build_info{version,revision,node} = 1 on every /metrics.
 *
 * ROLELINK_REVISION is a fact of the image (the Dockerfile sets it from its REVISION build argument), not
 * a setting a deployer chooses, hence read here rather than through a service's env.ts; `unknown` when
 * the process was not started from a labelled image (local runs, tests).
 */
export function buildInfo(source: NodeJS.ProcessEnv = process.env): {
  version: string;
  revision: string;
  node: string;
} {
  const revision = source.ROLELINK_REVISION?.trim();
  return { version, revision: revision ? revision : 'unknown', node: process.versions.node };
}
