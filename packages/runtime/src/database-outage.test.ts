import { fromDatabaseOutage } from './database-outage';

const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('fromDatabaseOutage', () => {
  it.each([
    ['a server shutting down (57P01)', pgError('terminating connection due to administrator command', '57P01')],
    ['a server starting up (57P03)', pgError('the database system is starting up', '57P03')],
    ['a connection failure (08006)', pgError('connection failure', '08006')],
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['too many connections (53300)', pgError('sorry, too many clients already', '53300')],
    [
      'too many connections, wrapped by Prisma',
      new Error('DriverAdapterError', {
        cause: pgError('remaining connection slots are reserved for roles with the SUPERUSER attribute', '53300'),
      }),
    ],
    ['a connection lost mid-query (node-postgres, no code)', pgError('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', pgError('timeout exceeded when trying to connect')],
    [
      'the same, wrapped by Prisma with the pg error as cause',
      new Error('DriverAdapterError', { cause: pgError('Connection terminated unexpectedly') }),
    ],
  ])('answers 503 for %s', (_name, err) => {
    expect(fromDatabaseOutage(err)?.toBody()).toEqual({
      statusCode: 503,
      message: 'Database temporarily unavailable, nothing was written; retry shortly',
    });
  });

  it.each([
    ['a unique violation', pgError('duplicate key value', '23505')],
    ['a syntax error', pgError('syntax error at or near', '42601')],
    ['another class 53 error (disk full, 53100)', pgError('could not extend file', '53100')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a thrown string', 'boom'],
  ])('leaves %s to the 500 path', (_name, err) => {
    expect(fromDatabaseOutage(err)).toBeNull();
  });
});
