import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';
import { reencryptTokens, type ReencryptReport } from '../secrets/reencrypt';

export const secretsCommands: Command[] = [
  {
    words: ['secrets', 'reencrypt'],
    args: [],
    options: {
      'batch-size': { type: 'string', description: 'rows per transaction (1-5000, default 500)' },
    },
    summary:
      'Re-encrypts every stored plugin token under the newest key of ROLELINK_SECRET_KEYS (progress on stderr); safe to re-run, it rewrites only what is not already under that key',
    example: 'secrets reencrypt --batch-size 500',
    async run(ctx, _args, flags) {
      const batchSize = flags['batch-size'] === undefined ? 500 : Number(flags['batch-size']);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 5000)
        throw AppError.badRequest('--batch-size takes a whole number from 1 to 5000');
      return reencryptTokens(ctx.database().pool, ctx.secretKey(), {
        batchSize,
        progress: (line) => process.stderr.write(`${line}\n`),
      });
    },
    failed: (result) => (result as ReencryptReport).tables.some((t) => t.failed > 0),
  },
];
