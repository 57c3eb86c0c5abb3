import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

// The runtime images carry nothing of the build host: not this machine's intercepting CA
// (NODE_EXTRA_CA_CERTS) nor COREPACK_INTEGRITY_KEYS=0, which a base image could bake into every service image;
// the Dockerfile gives them to its registry steps only, as the BuildKit secret build_host_ca. Checked
// per image: its env, its history (every instruction that made a layer) and its files.

const exec = promisify(execFile);
const LEAKS = /NODE_EXTRA_CA_CERTS|COREPACK_INTEGRITY_KEYS|build_host_ca|build-host-env|rolelink-local\/share/;
/** Paths that only the build stages or the old local base held. */
const BUILD_ONLY_PATHS = [
  '/usr/local/bin/build-host-env',
  '/usr/local/share/rolelink-local',
  '/run/secrets/build_host_ca',
];

const pems = (bundle: string): Set<string> =>
  new Set(
    bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)?.map((p) => p.replace(/\s+/g, '')) ??
      [],
  );

export type HygieneReport = { image: string; problems: string[]; hostOnlyCerts: number };

export async function imageHygiene(
  docker: string,
  image: string,
  hostBundle = process.env.NODE_EXTRA_CA_CERTS,
): Promise<HygieneReport> {
  const run = async (...args: string[]) => (await exec(docker, args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
  const problems: string[] = [];
  const env = JSON.parse(await run('image', 'inspect', '--format', '{{json .Config.Env}}', image)) as string[] | null;
  for (const e of env ?? []) if (LEAKS.test(e)) problems.push(`env holds ${e}`);
  for (const line of (await run('history', '--no-trunc', '--format', '{{.CreatedBy}}', image)).split('\n'))
    if (LEAKS.test(line)) problems.push(`history holds: ${line.trim().slice(0, 160)}`);
  const inImage = (script: string) =>
    run('run', '--rm', '--user', 'root', '--network', 'none', '--entrypoint', 'bash', image, '-c', script);
  const present = (await inImage(`for p in ${BUILD_ONLY_PATHS.join(' ')}; do [ -e "$p" ] && echo "$p"; done; true`))
    .split('\n')
    .filter(Boolean);
  for (const p of present) problems.push(`file ${p} is there`);
  // The build host's own CAs: those of its bundle that Debian's, in the image, does not hold. None of
  // them may be anywhere in the image's files.
  let hostOnly: string[] = [];
  if (hostBundle) {
    const imageCas = pems(await inImage('cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; true'));
    hostOnly = [...pems(readFileSync(hostBundle, 'utf8'))].filter((p) => !imageCas.has(p));
    // A line of each certificate's base64 body, long enough to be its own.
    const needles = hostOnly.map((p) => p.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').slice(64, 128));
    if (needles.length) {
      const found = await inImage(
        `grep -rlsF ${needles.map((n) => `-e '${n}'`).join(' ')} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev; true`,
      );
      for (const f of found.split('\n').filter(Boolean))
        problems.push(`${f} holds a CA of the build host's bundle (${hostBundle})`);
    }
  }
  return { image, problems, hostOnlyCerts: hostOnly.length };
}
