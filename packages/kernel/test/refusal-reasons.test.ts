/**
 * The kernel's part of the refusal reasons (CONTRACT §2): a refusal's reason in X-Refusal-Reason,
 * in the Bearer challenge and in the request line; a reason that costs a lookup is looked up by
 * the error handler, and a lookup that fails leaves the thrower's reason.
 */
import request from 'supertest';
import { REPLACED_AT, SECRET_IN_ERROR, SERVICE, buildApp } from './kernel-app';

describe('refusal reasons in the kernel', () => {
  it('when a refusal defers its reason to a lookup, then the looked-up reason is the header, the challenge’s error_description and the log line’s reason', async () => {
    const { app, logs, logText, refusalLookups } = buildApp();
    const response = await request(app).get('/replaced').set('Authorization', `Bearer ${SECRET_IN_ERROR}`).set('X-Request-Id', 'r-1');
    expect({ status: response.status, reason: response.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'key_replaced' });
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="${SERVICE}", error="invalid_token", error_description="key_replaced"`);
    expect(response.headers['x-key-replaced-at']).toBe(REPLACED_AT);
    expect(refusalLookups()).toBe(1);
    expect(logs()).toContainEqual(expect.objectContaining({ message: 'request', requestId: 'r-1', status: '401', reason: 'key_replaced' }));
    expect(logText()).not.toContain(SECRET_IN_ERROR);
  });

  it('when the lookup fails, then the thrower’s reason is answered and logged, and the failure is a warning', async () => {
    const { app, logs } = buildApp();
    const response = await request(app).get('/lookup-fails').set('X-Request-Id', 'r-2');
    expect({ status: response.status, reason: response.headers['x-refusal-reason'] }).toEqual({
      status: 401,
      reason: 'invalid_credential',
    });
    expect(response.headers['x-key-replaced-at']).toBeUndefined();
    expect(logs()).toContainEqual(expect.objectContaining({ message: 'request', requestId: 'r-2', reason: 'invalid_credential' }));
    expect(logs()).toContainEqual(expect.objectContaining({ message: 'refusal reason lookup failed', level: 'warn', requestId: 'r-2' }));
  });

  it('when a request is served or not found, then no reason is sent or logged', async () => {
    const { app, logs } = buildApp();
    const served = await request(app).get('/echo').set('X-Request-Id', 'r-3');
    const missing = await request(app).get('/nowhere').set('X-Request-Id', 'r-4');
    expect([served.status, missing.status]).toEqual([200, 404]);
    expect([served.headers['x-refusal-reason'], missing.headers['x-refusal-reason']]).toEqual([undefined, undefined]);
    const lines = logs().filter((line) => line.message === 'request');
    expect(lines.filter((line) => Object.hasOwn(line, 'reason'))).toEqual([]);
    expect(lines).toHaveLength(2);
  });
});
