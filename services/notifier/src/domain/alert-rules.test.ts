import { decideAlerts, DEFAULT_SETTINGS, type AlertKind, type AlertSettings } from './alert-rules';

type Step = [previousCredits: number, credits: number];

/** The alerts of each change, each decided on its own (the order they are handled in does not matter). */
function run(steps: Step[], settings: AlertSettings = DEFAULT_SETTINGS): { alerts: AlertKind[][] } {
  return { alerts: steps.map(([previousCredits, credits]) => decideAlerts(settings, { previousCredits, credits }).alerts) };
}

/** Every order of `items`. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) => orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

/** The alerts of a pool's changes handled in `order`, as one sorted list (what the mailbox holds in the end). */
function mailbox(steps: Step[], settings: AlertSettings = DEFAULT_SETTINGS): string[] {
  return run(steps, settings)
    .alerts.flatMap((alerts, index) => alerts.map((kind) => `${kind} ${(steps[index] as Step).join('→')}`))
    .sort();
}

describe('alert rules', () => {
  it('when the pool crosses from the threshold to below it, then one low alert', () => {
    expect(run([[10, 9]]).alerts).toEqual([['low']]);
    expect(run([[25, 3]]).alerts).toEqual([['low']]);
  });

  // Each case: a pool's changes, the settings, and the alerts each change sends.
  it.each<[string, Step[], AlertSettings, AlertKind[][]]>([
    [
      'when the pool hovers below the threshold, then nothing more after the first crossing',
      [
        [12, 9],
        [9, 8],
        [8, 9],
        [9, 7],
        [7, 1],
      ],
      DEFAULT_SETTINGS,
      [['low'], [], [], [], []],
    ],
    [
      'when the pool stays at or above the threshold, then nothing',
      [
        [100, 50],
        [50, 10],
      ],
      DEFAULT_SETTINGS,
      [[], []],
    ],
    ['when the pool reaches 0 from above the threshold, then only the zero alert', [[20, 0]], DEFAULT_SETTINGS, [['zero']]],
    [
      'when the pool goes low and then to 0, then the zero alert is a separate alert',
      [
        [11, 5],
        [5, 0],
      ],
      DEFAULT_SETTINGS,
      [['low'], ['zero']],
    ],
    [
      'when the pool stays at 0 or is topped up below the threshold, then the zero alert re-arms but the low one does not',
      [
        [5, 0],
        [0, 0],
        [0, 3],
        [3, 0],
        [0, 4],
        [4, 2],
      ],
      DEFAULT_SETTINGS,
      [['zero'], [], [], ['zero'], [], []],
    ],
    [
      'when the low alert is disabled, then crossings send nothing but the zero alert still works',
      [
        [20, 5],
        [5, 0],
      ],
      { ...DEFAULT_SETTINGS, lowEnabled: false },
      [[], ['zero']],
    ],
    [
      'when the zero alert is disabled, then reaching 0 sends nothing',
      [
        [20, 5],
        [5, 0],
      ],
      { ...DEFAULT_SETTINGS, zeroEnabled: false },
      [['low'], []],
    ],
    [
      'when both alerts are disabled, then nothing is ever sent',
      [
        [20, 5],
        [5, 0],
        [0, 30],
        [30, 0],
      ],
      { lowEnabled: false, threshold: 10, zeroEnabled: false },
      [[], [], [], []],
    ],
    ['when a pool is created below the threshold, then nothing', [[0, 5]], DEFAULT_SETTINGS, [[]]],
    [
      'when the threshold is 0, then the low alert never fires',
      [
        [5, 1],
        [1, 0],
      ],
      { ...DEFAULT_SETTINGS, threshold: 0 },
      [[], ['zero']],
    ],
    [
      'when a custom threshold is set, then the crossing is measured against it',
      [
        [600, 499],
        [499, 10],
      ],
      { ...DEFAULT_SETTINGS, threshold: 500 },
      [['low'], []],
    ],
  ])('%s', (_case, steps, settings, alerts) => {
    expect(run(steps, settings).alerts).toEqual(alerts);
  });

  it('when a top-up brings the pool back to the threshold, then the next crossing alerts again', () => {
    expect(
      run([
        [15, 5],
        [5, 50],
        [50, 9],
      ]).alerts,
    ).toEqual([['low'], [], ['low']]);
    expect(
      run([
        [15, 5],
        [5, 10],
        [10, 9],
      ]).alerts,
    ).toEqual([['low'], [], ['low']]);
  });

  it('when the alert was disabled during a crossing and enabled later, then no alert until the next crossing', () => {
    expect(run([[20, 5]], { ...DEFAULT_SETTINGS, lowEnabled: false }).alerts).toEqual([[]]);
    expect(run([[5, 4]]).alerts).toEqual([[]]);
  });

  it('when the threshold is raised above the balance, then nothing until a later change crosses it', () => {
    const raised = { ...DEFAULT_SETTINGS, threshold: 100 };
    expect(run([[60, 50]]).alerts).toEqual([[]]);
    expect(run([[50, 49]], raised).alerts).toEqual([[]]);
  });

  describe('out of order (several relay replicas, requeues, prefetch > 1)', () => {
    it.each<[string, Step[], AlertKind[][]]>([
      [
        'when the zero crossing arrives after the top-up that refilled the pool, then the zero alert is still sent',
        [
          [0, 15],
          [3, 0],
        ],
        [[], ['zero']],
      ],
      [
        'when a low crossing arrives after the pool reached 0, then both alerts are sent',
        [
          [9, 0],
          [20, 9],
        ],
        [['zero'], ['low']],
      ],
      [
        'when an older crossing arrives after a newer top-up, then the crossing still alerts once',
        [
          [5, 40],
          [20, 5],
        ],
        [[], ['low']],
      ],
    ])('%s', (_case, steps, alerts) => {
      expect(run(steps).alerts).toEqual(alerts);
    });

    it('when a pool goes low, empties, is refilled and does it again, then every order of its changes sends the same alerts', () => {
      const ledger: Step[] = [
        [20, 9],
        [9, 0],
        [0, 15],
        [15, 4],
        [4, 0],
        [0, 3],
      ];
      const expected = ['low 15→4', 'low 20→9', 'zero 4→0', 'zero 9→0'];
      for (const order of orders(ledger)) expect(mailbox(order)).toEqual(expected);
    });

    it('when a usage batch sends the last debit to 0 as its own event, then in either order one low and one zero alert', () => {
      for (const order of orders<Step>([
        [25, 1],
        [1, 0],
      ]))
        expect(mailbox(order)).toEqual(['low 25→1', 'zero 1→0']);
    });
  });
});
