import { memoryPageSessionKeys, sessionRefusalExplainer } from './page-session-keys';
import type { ExplainKeyRefusal } from './refusals';

describe('which key bought each page session', () => {
  it('when a session is remembered, then its key is known until its lifetime ends, and then forgotten', async () => {
    let now = 1_000;
    const keys = memoryPageSessionKeys(() => now);
    await keys.remember('s1', 'k1', 60);
    now += 59_000;
    expect(await keys.keyOf('s1')).toBe('k1');
    now += 1_000;
    expect(await keys.keyOf('s1')).toBeUndefined();
    await keys.remember('s2', 'k2', 60);
    expect([await keys.keyOf('s1'), await keys.keyOf('s2'), await keys.keyOf('unknown')]).toEqual([undefined, 'k2', undefined]);
  });

  it.each([
    ['account_disabled', 'account_disabled'],
    ['key_replaced', 'invalid_credential'],
    ['invalid_credential', 'invalid_credential'],
  ] as const)('when the session’s key is refused as %s, then the session is refused as %s', async (keyReason, sessionReason) => {
    const keys = memoryPageSessionKeys();
    await keys.remember('s1', 'k1', 60);
    const explainKey: ExplainKeyRefusal = (hash) =>
      Promise.resolve(hash === 'k1' ? { reason: keyReason, replacedAt: new Date() } : { reason: 'invalid_credential' });
    const explain = sessionRefusalExplainer(keys, explainKey);
    expect(await explain('s1')).toEqual({ reason: sessionReason });
    expect(await explain('never-issued')).toEqual({ reason: 'invalid_credential' });
  });
});
