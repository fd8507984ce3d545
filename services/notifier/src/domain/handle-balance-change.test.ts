import { PoisonMessageError } from '@platform/events';
import { aBalanceChange } from '@platform/testing';
import { DEFAULT_SETTINGS } from './alert-rules';
import { handleBalanceChange } from './handle-balance-change';
import type { AlertTransaction, NotifierStore, Recipient } from './notifier-store';

const POOL = { poolId: 1, productName: 'WHOIS API', products: ['WHOIS API', 'Bulk WHOIS API'], productIds: [1, 24] };
const RECIPIENT: Recipient = {
  email: 'alerts@example.test',
  accountEmail: 'owner@example.test',
  webhookEnabled: true,
  settings: DEFAULT_SETTINGS,
};
const OPTIONS = {
  mailFrom: 'Alerts <alerts@example.test>',
  queue: 'notifier.balance-changed',
  mail: {
    brandName: 'Account access',
    accountUrl: 'https://example.test/account',
    settingsUrl: 'https://example.test/settings',
    topUpUrl: undefined,
  },
};

/** One transaction's port in memory, recording what the use case wrote. */
function aStore(tables: { processed?: boolean; pool?: typeof POOL | undefined; recipient?: Recipient | undefined } = {}) {
  const written: string[] = [];
  const tx: AlertTransaction = {
    findPool: () => Promise.resolve('pool' in tables ? tables.pool : POOL),
    markProcessed: () => Promise.resolve(!tables.processed),
    findRecipient: () => Promise.resolve('recipient' in tables ? tables.recipient : RECIPIENT),
    enqueueWebhook: (webhook) => {
      written.push(`webhook ${webhook.webhookId}`);
      return Promise.resolve();
    },
    enqueueMail: (mail) => {
      written.push(`mail ${mail.kind} to ${mail.recipient}`);
      return Promise.resolve();
    },
    disableWebhook: () => Promise.reject(new Error('a balance change disables no webhook')),
    recordWebhookAttempt: () => Promise.reject(new Error('a balance change lists no webhook attempt')),
  };
  const store: Pick<NotifierStore, 'inTransaction'> = { inTransaction: (work) => work(tx) };
  return { store, written };
}

describe('handleBalanceChange', () => {
  it('when the pool crosses the low line, then the state, the low webhook and the low e-mail are queued in that order', async () => {
    const { store, written } = aStore();
    const event = aBalanceChange({ previousCredits: 20, credits: 5 });
    expect(await handleBalanceChange(store, event, OPTIONS)).toEqual({ result: 'processed', alerts: ['low'], webhooks: 1 });
    expect(written).toEqual([`webhook msg_low_${event.id}`, 'mail low to alerts@example.test']);
  });

  it('when the event was handled before, then duplicate and nothing is written', async () => {
    const { store, written } = aStore({ processed: true });
    expect(await handleBalanceChange(store, aBalanceChange({ previousCredits: 20, credits: 5 }), OPTIONS)).toEqual({ result: 'duplicate' });
    expect(written).toEqual([]);
  });

  it('when the account has no webhook enabled, then the e-mail alone is queued', async () => {
    const { store, written } = aStore({ recipient: { ...RECIPIENT, webhookEnabled: false } });
    expect(await handleBalanceChange(store, aBalanceChange({ previousCredits: 20, credits: 0 }), OPTIONS)).toMatchObject({ webhooks: 0 });
    expect(written).toEqual(['mail zero to alerts@example.test']);
  });

  it('when the product or the account is unknown, then a poison message', async () => {
    await expect(handleBalanceChange(aStore({ pool: undefined }).store, aBalanceChange(), OPTIONS)).rejects.toBeInstanceOf(
      PoisonMessageError,
    );
    await expect(handleBalanceChange(aStore({ recipient: undefined }).store, aBalanceChange(), OPTIONS)).rejects.toBeInstanceOf(
      PoisonMessageError,
    );
  });
});
