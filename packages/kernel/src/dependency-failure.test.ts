import vm from 'node:vm';
import { isDependencyFailure } from './dependency-failure';

describe('isDependencyFailure', () => {
  it.each([
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Query read timeout'),
    Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    Object.assign(new Error('query_wait_timeout'), { code: '08P01' }),
    Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
    Object.assign(new Error('too many connections'), { code: '53300' }),
    Object.assign(new Error('cannot execute SELECT FOR UPDATE in a read-only transaction'), { code: '25006' }),
    new Error('Connection is closed.'),
    new Error('Command timed out'),
    Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
    new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
    new Error('wrapped', { cause: new Error('Connection terminated') }),
  ])('when the error is %p, then it is a dependency failure', (error) => {
    expect(isDependencyFailure(error)).toBe(true);
  });

  it.each([
    new TypeError('Cannot read properties of undefined'),
    Object.assign(new Error('duplicate key'), { code: '23505' }),
    Object.assign(new Error('syntax error'), { code: '42601' }),
    'a string',
    undefined,
  ])('when the error is %p, then it is not', (error) => {
    expect(isDependencyFailure(error)).toBe(false);
  });

  it('when the error was made in another realm (a socket error of Node itself, seen from a vm context), then it is still recognised', () => {
    const foreign = vm.runInNewContext(
      "Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })",
    ) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(isDependencyFailure(foreign)).toBe(true);
    const aggregate = vm.runInNewContext(
      "new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed')",
    ) as unknown;
    expect(isDependencyFailure(aggregate)).toBe(true);
  });
});
