// Prints the platform emulator's seed (the local stack's demo guild) for docker-compose.local.yml's
// emulator, so the containers and `pnpm start` show the same guild:  tsx scripts/deploy/emulator-seed.ts [members]
import { demoSeed } from '../stack/config';

process.stdout.write(JSON.stringify(demoSeed(Number(process.argv[2] ?? 3000))));
