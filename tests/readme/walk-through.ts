/**
 * The README's walk-through as steps a test can run: the shell block between the
 * `<!-- walk-through: begin -->` and `<!-- walk-through: end -->` markers, split into commands
 * (a line ending in `\` continues), each with the answer its `# → …` comment promises.
 */
export interface WalkThroughStep {
  command: string;
  /** The HTTP status the step must see (`# → 401 …`); otherwise every answer must be below 400. */
  status?: number;
  /** What the step must print: the comment's text, where `…` stands for anything. */
  output?: RegExp;
}

const BEGIN = '<!-- walk-through: begin -->';
const END = '<!-- walk-through: end -->';

export function walkThroughBlock(readme: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`the README has no ${BEGIN} … ${END} section`);
  const fenced = /```sh\n([\s\S]*?)```/.exec(readme.slice(begin, end));
  if (!fenced) throw new Error('the walk-through section has no ```sh block');
  return fenced[1] as string;
}

function promise(comment: string): Pick<WalkThroughStep, 'status' | 'output'> {
  const match = /^(?:([1-5][0-9]{2})\s+)?(.*)$/.exec(comment.trim()) as RegExpExecArray;
  const pattern = (match[2] as string)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return { ...(match[1] === undefined ? {} : { status: Number(match[1]) }), output: new RegExp(`^${pattern}$`) };
}

export function walkThroughSteps(block: string): WalkThroughStep[] {
  const steps: WalkThroughStep[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    const arrow = /^\s*#\s*→\s*(.*)$/.exec(line);
    if (arrow) {
      const last = steps.at(-1);
      if (!last) throw new Error(`a promised answer with no command before it: ${line}`);
      Object.assign(last, promise(arrow[1] as string));
      continue;
    }
    if (pending === '' && (/^\s*#/.test(line) || line.trim() === '')) continue;
    pending += `${line}\n`;
    if (line.endsWith('\\')) continue;
    const trailing = /^(.*?)\s+#\s*→\s*(.*)$/.exec(pending.trimEnd());
    steps.push(trailing ? { command: (trailing[1] as string).trim(), ...promise(trailing[2] as string) } : { command: pending.trim() });
    pending = '';
  }
  return steps;
}
