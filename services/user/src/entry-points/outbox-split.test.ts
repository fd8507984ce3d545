import { splitMessage } from './outbox-relay';

const event = (n: number) => ({ id: `event-${n}`, padding: 'x'.repeat(80) });
const size = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

describe('splitMessage: a row of events as message bodies within the bound', () => {
  it('when the events fit, then they are one array body; one event is the object itself', () => {
    const events = [event(1), event(2), event(3)];
    expect(splitMessage(events, 10_000)).toEqual([events]);
    expect(splitMessage([event(1)], 10)).toEqual([event(1)]);
  });

  it('when they do not, then every body is within the bound (brackets and commas counted), in order, each event once', () => {
    const events = Array.from({ length: 25 }, (_, n) => event(n));
    for (const bound of [size([event(1)]) + 1, 300, 512, 1000, 2048]) {
      const bodies = splitMessage(events, bound);
      expect(bodies.flatMap((body) => (Array.isArray(body) ? (body as unknown[]) : [body]))).toEqual(events);
      for (const body of bodies) expect(size(body)).toBeLessThanOrEqual(bound);
      // Greedy: no body could take the next one's first event.
      for (const [index, body] of bodies.slice(0, -1).entries()) {
        const next = bodies[index + 1];
        const first = Array.isArray(next) ? next[0] : next;
        expect(size([...(Array.isArray(body) ? (body as unknown[]) : [body]), first])).toBeGreaterThan(bound);
      }
    }
  });

  it('when one event alone is larger than the bound, then it goes alone and nothing is lost', () => {
    const big = { id: 'big', padding: 'y'.repeat(500) };
    expect(splitMessage([event(1), big, event(2)], 200)).toEqual([event(1), big, event(2)]);
  });
});
