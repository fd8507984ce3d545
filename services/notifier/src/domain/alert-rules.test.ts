import { decideAlerts, DEFAULT_SETTINGS, INITIAL_STATE, type AlertKind, type AlertSettings, type AlertState } from './alert-rules';

type Step = [previousCredits: number, credits: number];

/** Applies changes in order (one second apart unless `at` is given) and returns the alerts of each. */
function run(
  steps: Step[],
  settings: AlertSettings = DEFAULT_SETTINGS,
  start: AlertState = INITIAL_STATE,
): { alerts: AlertKind[][]; state: AlertState } {
  let state = start;
  const alerts: AlertKind[][] = [];
  steps.forEach(([previousCredits, credits], index) => {
    const decision = decideAlerts(state, settings, { previousCredits, credits, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)) });
    alerts.push(decision.alerts);
    state = decision.state;
  });
  return { alerts, state };
}

const at = (second: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

describe('alert rules', () => {
  it('when the pool crosses from the threshold to below it, then one low alert', () => {
    expect(run([[10, 9]]).alerts).toEqual([['low']]);
    expect(run([[25, 3]]).alerts).toEqual([['low']]);
  });

  it('when the pool hovers below the threshold, then nothing more after the first crossing', () => {
    expect(
      run([
        [12, 9],
        [9, 8],
        [8, 9],
        [9, 7],
        [7, 1],
      ]).alerts,
    ).toEqual([['low'], [], [], [], []]);
  });

  it('when the pool stays at or above the threshold, then nothing', () => {
    expect(
      run([
        [100, 50],
        [50, 10],
      ]).alerts,
    ).toEqual([[], []]);
  });

  it('when the pool reaches 0 from above the threshold, then only the zero alert', () => {
    expect(run([[20, 0]]).alerts).toEqual([['zero']]);
  });

  it('when the pool goes low and then to 0, then the zero alert is a separate alert', () => {
    expect(
      run([
        [11, 5],
        [5, 0],
      ]).alerts,
    ).toEqual([['low'], ['zero']]);
  });

  it('when the pool stays at 0 or is topped up below the threshold, then the zero alert re-arms but the low one does not', () => {
    expect(
      run([
        [5, 0],
        [0, 0],
        [0, 3],
        [3, 0],
        [0, 4],
        [4, 2],
      ]).alerts,
    ).toEqual([['zero'], [], [], ['zero'], [], []]);
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

  it('when the same crossing arrives again under a new event id, then no second alert', () => {
    expect(
      run([
        [20, 5],
        [20, 5],
      ]).alerts,
    ).toEqual([['low'], []]);
    expect(
      run([
        [3, 0],
        [3, 0],
      ]).alerts,
    ).toEqual([['zero'], []]);
  });

  it('when the low alert is disabled, then crossings send nothing but the zero alert still works', () => {
    const settings = { ...DEFAULT_SETTINGS, lowEnabled: false };
    expect(
      run(
        [
          [20, 5],
          [5, 0],
        ],
        settings,
      ).alerts,
    ).toEqual([[], ['zero']]);
  });

  it('when the zero alert is disabled, then reaching 0 sends nothing', () => {
    const settings = { ...DEFAULT_SETTINGS, zeroEnabled: false };
    expect(
      run(
        [
          [20, 5],
          [5, 0],
        ],
        settings,
      ).alerts,
    ).toEqual([['low'], []]);
  });

  it('when both alerts are disabled, then nothing is ever sent', () => {
    const settings = { lowEnabled: false, threshold: 10, zeroEnabled: false };
    expect(
      run(
        [
          [20, 5],
          [5, 0],
          [0, 30],
          [30, 0],
        ],
        settings,
      ).alerts,
    ).toEqual([[], [], [], []]);
  });

  it('when the alert was disabled during a crossing and enabled later, then no alert until the next crossing', () => {
    const disabled = run([[20, 5]], { ...DEFAULT_SETTINGS, lowEnabled: false });
    expect(
      run(
        [
          [20, 5],
          [5, 4],
        ],
        DEFAULT_SETTINGS,
        disabled.state,
      ).alerts,
    ).toEqual([[], []]);
  });

  it('when the threshold is raised above the balance, then nothing until a later change crosses it', () => {
    const raised = { ...DEFAULT_SETTINGS, threshold: 100 };
    expect(run([[50, 49]], raised, run([[60, 50]]).state).alerts).toEqual([[]]);
  });

  it('when a pool is created below the threshold, then nothing', () => {
    expect(run([[0, 5]]).alerts).toEqual([[]]);
  });

  it('when the threshold is 0, then the low alert never fires', () => {
    expect(
      run(
        [
          [5, 1],
          [1, 0],
        ],
        { ...DEFAULT_SETTINGS, threshold: 0 },
      ).alerts,
    ).toEqual([[], ['zero']]);
  });

  it('when a custom threshold is set, then the crossing is measured against it', () => {
    const settings = { ...DEFAULT_SETTINGS, threshold: 500 };
    expect(
      run(
        [
          [600, 499],
          [499, 10],
        ],
        settings,
      ).alerts,
    ).toEqual([['low'], []]);
  });

  describe('out of order', () => {
    it('when an older top-up arrives after a newer crossing, then it does not re-arm', () => {
      const crossing = decideAlerts(INITIAL_STATE, DEFAULT_SETTINGS, { previousCredits: 20, credits: 5, occurredAt: at(2) });
      const oldTopUp = decideAlerts(crossing.state, DEFAULT_SETTINGS, { previousCredits: 5, credits: 20, occurredAt: at(1) });
      expect([crossing.alerts, oldTopUp.alerts]).toEqual([['low'], []]);
      const duplicate = decideAlerts(oldTopUp.state, DEFAULT_SETTINGS, { previousCredits: 20, credits: 5, occurredAt: at(2) });
      expect(duplicate.alerts).toEqual([]);
    });

    it('when an older crossing arrives after a newer change that stays low, then the crossing still alerts once', () => {
      const newer = decideAlerts(INITIAL_STATE, DEFAULT_SETTINGS, { previousCredits: 5, credits: 3, occurredAt: at(2) });
      const older = decideAlerts(newer.state, DEFAULT_SETTINGS, { previousCredits: 20, credits: 5, occurredAt: at(1) });
      expect([newer.alerts, older.alerts]).toEqual([[], ['low']]);
    });

    it('when an older crossing arrives after a newer top-up, then the crossing is over and sends nothing', () => {
      const newer = decideAlerts(INITIAL_STATE, DEFAULT_SETTINGS, { previousCredits: 5, credits: 40, occurredAt: at(2) });
      const older = decideAlerts(newer.state, DEFAULT_SETTINGS, { previousCredits: 20, credits: 5, occurredAt: at(1) });
      expect(older.alerts).toEqual([]);
      expect(older.state.lowArmed).toBe(true);
    });

    it('when an older low crossing arrives after the pool reached 0, then only the zero alert is sent', () => {
      const zero = decideAlerts(INITIAL_STATE, DEFAULT_SETTINGS, { previousCredits: 5, credits: 0, occurredAt: at(2) });
      const older = decideAlerts(zero.state, DEFAULT_SETTINGS, { previousCredits: 20, credits: 5, occurredAt: at(1) });
      expect([zero.alerts, older.alerts]).toEqual([['zero'], []]);
    });

    it('when an older zero arrives after a newer top-up, then nothing', () => {
      const topUp = decideAlerts(INITIAL_STATE, DEFAULT_SETTINGS, { previousCredits: 0, credits: 100, occurredAt: at(2) });
      const older = decideAlerts(topUp.state, DEFAULT_SETTINGS, { previousCredits: 5, credits: 0, occurredAt: at(1) });
      expect(older.alerts).toEqual([]);
      expect(older.state).toEqual(topUp.state);
    });
  });
});
