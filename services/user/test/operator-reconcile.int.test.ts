/**
 * Reconciliation from Postgres (CONTRACT §3; packages/accounts' reconcileAll, run by every
 * service's access watch when Redis may have lost data) respects disabled accounts: a Redis that
 * comes back with the record of a key disabled since (an older snapshot) loses it again.
 */
import { reconcileAll } from '@platform/accounts';
import { hashSecret } from '@platform/credentials';
import { ADMIN_TOKEN, useHarness } from './harness';

const h = useHarness();

describe('reconciliation and disabled accounts', () => {
  it('when a disabled key comes back from an older Redis snapshot, then reconciliation removes it; enabled again, it is rewritten', async () => {
    const account = await h.account({ 1: 10 });
    const keyHash = hashSecret(account.apiKey);
    const snapshot = await h.access.findKey(keyHash);
    expect(snapshot).toBeDefined();

    await h.http
      .patch(`/admin/v1/accounts/${account.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ disabled: true })
      .expect(200);
    expect(await h.access.findKey(keyHash)).toBeUndefined();
    // The older snapshot: the record as it was before the disabling.
    await h.access.putKeys([{ keyHash, accountId: account.id, generation: snapshot?.generation ?? 0, creditedPools: [1] }]);
    expect(await h.access.findKey(keyHash)).toBeDefined();

    await reconcileAll(h.pool, h.access);
    expect(await h.access.findKey(keyHash)).toBeUndefined();

    await h.http
      .patch(`/admin/v1/accounts/${account.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ disabled: false })
      .expect(200);
    await h.access.deleteKeys([keyHash]);
    await reconcileAll(h.pool, h.access);
    expect(await h.access.findKey(keyHash)).toMatchObject({
      accountId: account.id,
      generation: (snapshot?.generation ?? 0) + 1,
      hasCredits: true,
    });
  });
});
