import { z } from 'zod';
import { debitOutcome, type UsageClient, type UsageGrant, type UsageRequest, type UsageTransport } from './usage-client';

/** How concurrent debits are gathered into one `POST /internal/v1/usage/batch` (CONTRACT §7.1). */
export interface CoalesceOptions {
  /** How long the first debit of a batch waits for company, in ms. Default 2. */
  windowMs?: number;
  /** A batch goes out at once when it holds this many debits (1–1,000). Default 1,000. */
  maxItems?: number;
}

export const DEFAULT_COALESCE_WINDOW_MS = 2;
export const MAX_COALESCED_ITEMS = 1_000;

interface Waiting {
  request: UsageRequest;
  resolve(grant: UsageGrant): void;
  reject(error: Error): void;
}

const batchAnswer = z.object({
  items: z.array(z.object({ status: z.number().int() }).passthrough()),
});

/**
 * A UsageClient whose debits go out together: the first debit of a batch starts a window of
 * `windowMs`; the batch goes when the window ends or when it holds `maxItems`. Each call waits
 * for its own item's result and gets exactly what the single route would have answered it (a
 * grant, or the same errors): a call is never served on credits it did not get. A whole-batch
 * answer that is not 200 (the gateway's JWT refused, 503 after the retries) is every call's.
 */
export function createCoalescingUsageClient(transport: UsageTransport, options: CoalesceOptions = {}): UsageClient {
  const windowMs = options.windowMs ?? DEFAULT_COALESCE_WINDOW_MS;
  const maxItems = Math.min(Math.max(options.maxItems ?? MAX_COALESCED_ITEMS, 1), MAX_COALESCED_ITEMS);
  let gathering: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  const send = async (batch: Waiting[]): Promise<void> => {
    let results: Array<UsageGrant | Error>;
    try {
      const answer = await transport.post('/batch', { items: batch.map((waiting) => waiting.request) });
      const whole = answer.status === 200 ? undefined : debitOutcome(answer);
      const parsed = whole ? undefined : batchAnswer.safeParse(JSON.parse(answer.text));
      if (whole || !parsed?.success || parsed.data.items.length !== batch.length) {
        const error =
          whole instanceof Error ? whole : new Error(`usage API answered its batch with an unexpected body: ${answer.text.slice(0, 300)}`);
        results = batch.map(() => error);
      } else {
        results = parsed.data.items.map((item) => {
          const { status, messages, reason, ...grant } = item as { status: number; messages?: unknown; reason?: unknown };
          return debitOutcome({ status, text: JSON.stringify(status === 200 ? grant : item), retryAfter: undefined, reason }, messages);
        });
      }
    } catch (error) {
      results = batch.map(() => (error instanceof Error ? error : new Error(String(error))));
    }
    batch.forEach((waiting, index) => {
      const result = results[index] as UsageGrant | Error;
      if (result instanceof Error) waiting.reject(result);
      else waiting.resolve(result);
    });
  };

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (gathering.length === 0) return;
    const batch = gathering;
    gathering = [];
    const sent = send(batch).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  };

  return {
    debit(request) {
      return new Promise<UsageGrant>((resolve, reject) => {
        gathering.push({ request, resolve, reject });
        if (gathering.length >= maxItems) flush();
        else timer ??= setTimeout(flush, windowMs);
      });
    },
    async close() {
      flush();
      await Promise.all(inFlight);
      await transport.close();
    },
  };
}
