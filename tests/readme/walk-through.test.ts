import { walkThroughBlock, walkThroughSteps } from './walk-through';

const readme = (block: string): string => `# x\n<!-- walk-through: begin -->\n\n\`\`\`sh\n${block}\`\`\`\n\n<!-- walk-through: end -->\n`;

describe('the README walk-through parser', () => {
  it('when a command continues over lines and promises an answer below it, then it is one step with that answer', () => {
    const steps = walkThroughSteps(walkThroughBlock(readme('# a comment\ncurl -s a \\\n     -d b\n# → {"id":1,"apiKey":"at_…"}\n')));
    expect(steps).toHaveLength(1);
    expect(steps[0]?.command).toBe('curl -s a \\\n     -d b');
    expect(steps[0]?.output?.test('{"id":1,"apiKey":"at_abc"}')).toBe(true);
    expect(steps[0]?.output?.test('{"id":2,"apiKey":"at_abc"}')).toBe(false);
  });

  it('when the promise is on the same line and names a status, then the step carries both', () => {
    const [step] = walkThroughSteps(walkThroughBlock(readme('curl -s x | jq length   # → 401 698\n')));
    expect(step).toEqual({ command: 'curl -s x | jq length', status: 401, output: /^698$/ });
  });

  it('when the README has no walk-through markers, then it says so', () => {
    expect(() => walkThroughBlock('# nothing')).toThrow('walk-through');
  });
});
