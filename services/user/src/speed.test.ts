import { createRecentAnswers, keptDigests } from './speed';

const answer = (credits: number) => ({ digest: 'd', accountId: 1, productId: 1, credits });

describe('recent answers', () => {
  it('when an answer is kept, then it is found until it is older than maxAgeMs', () => {
    let now = 1000;
    const answers = createRecentAnswers({ maxEntries: 10, maxAgeMs: 500, now: () => now });
    answers.set('a', answer(5));
    now += 500;
    expect(answers.get('a')).toEqual(answer(5));
    now += 1;
    expect(answers.get('a')).toBeUndefined();
  });

  it('when more than maxEntries are kept, then the oldest goes', () => {
    const answers = createRecentAnswers({ maxEntries: 2, maxAgeMs: 1000 });
    answers.set('a', answer(1));
    answers.set('b', answer(2));
    answers.set('c', answer(3));
    expect([answers.get('a'), answers.get('b'), answers.get('c')]).toEqual([undefined, answer(2), answer(3)]);
  });

  it('when an answer was read since, then an older unread one goes first', () => {
    const answers = createRecentAnswers({ maxEntries: 2, maxAgeMs: 1000 });
    answers.set('a', answer(1));
    answers.set('b', answer(2));
    answers.get('a');
    answers.set('c', answer(3));
    expect([answers.get('a'), answers.get('b'), answers.get('c')]).toEqual([answer(1), undefined, answer(3)]);
  });

  it('when a requestId is kept twice, then the first answer stays', () => {
    const answers = createRecentAnswers({ maxEntries: 2, maxAgeMs: 1000 });
    answers.set('a', answer(1));
    answers.set('a', answer(2));
    expect(answers.get('a')).toEqual(answer(1));
  });
});

describe('kept digests', () => {
  it('when a triple comes again, then its digest is the one computed the first time; every other triple gets its own', () => {
    const computed: string[] = [];
    const digest = keptDigests(2, (secretHash, productId, units) => {
      computed.push(`${secretHash}|${productId}|${units}`);
      return `${secretHash}|${productId}|${units}`;
    });
    expect([digest('k', 1, 1), digest('k', 1, 1), digest('k', 1, 2), digest('k', 2, 1), digest('j', 1, 1)]).toEqual([
      'k|1|1',
      'k|1|1',
      'k|1|2',
      'k|2|1',
      'j|1|1',
    ]);
    expect(computed).toEqual(['k|1|1', 'k|1|2', 'k|2|1', 'j|1|1']);
    // Two kept at most: the oldest went, and is computed again.
    expect(digest('k', 1, 1)).toBe('k|1|1');
    expect(computed).toHaveLength(5);
  });
});
