import { ConfigError } from './env';
import { failureLine } from './run-main';

describe('failureLine (the one line a failed start writes)', () => {
  it('names every bad variable and its problem for a bad environment', () => {
    const line = failureLine('api', new ConfigError(['API_PORT: expected a number', 'REDIS_URL: required']));
    expect(line).toEqual({
      level: 'error',
      message: 'invalid configuration',
      service: 'api',
      variables: ['API_PORT', 'REDIS_URL'],
      problems: ['API_PORT: expected a number', 'REDIS_URL: required'],
      timestamp: expect.any(String),
    });
  });

  it('gives any other failure as its message, without a stack', () => {
    expect(failureLine('platform-emulator', new Error('Port 1 on 127.0.0.1 is already in use'))).toEqual({
      level: 'error',
      message: 'failed to start',
      service: 'platform-emulator',
      error: 'Port 1 on 127.0.0.1 is already in use',
      timestamp: expect.any(String),
    });
    expect(failureLine('cli', 'not an error')).toMatchObject({ message: 'failed to start', error: 'not an error' });
  });
});
