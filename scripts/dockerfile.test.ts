import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import dockerignore from '@balena/dockerignore';
import { DockerfileParser, type Copy, type From } from 'dockerfile-ast';
import { ROOT, SERVICE_NAMES } from './deploy-files';

const dockerfile = DockerfileParser.parse(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const instructions = dockerfile.getInstructions();
const ignored = dockerignore().add(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n'));
const stages = dockerfile.getFROMs();
const finalStage = stages[stages.length - 1] as From;
/** Instructions after the last FROM: what the shipped image is. */
const finalInstructions = instructions.filter((instruction) => instruction.getRange().start.line > finalStage.getRange().start.line);
const nodeMajor = (): string => {
  const arg = dockerfile.getInitialARGs().find((a) => a.getProperty()?.getName() === 'NODE_VERSION');
  return (arg?.getProperty()?.getValue() ?? '').split('.')[0] ?? '';
};
/** Every file under a workspace package the build needs (package.json, tsconfig, src, migrations, data; the account page's Vite inputs). */
function buildInputs(): string[] {
  const workspaces = ['packages', 'services'].flatMap((group) => readdirSync(path.join(ROOT, group)).map((name) => `${group}/${name}`));
  return workspaces.flatMap((workspace) =>
    ['package.json', 'tsconfig.build.json', 'src/index.ts', 'migrations', 'data', 'index.html', 'vite.config.ts', 'src/main.ts']
      .map((entry) => `${workspace}/${entry}`)
      .filter((entry) => existsSync(path.join(ROOT, entry))),
  );
}

describe('Dockerfile', () => {
  it('when a build stage copies from the build context, then every source exists and is not excluded by .dockerignore', () => {
    const copies = instructions
      .filter((instruction): instruction is Copy => instruction.getKeyword() === 'COPY')
      .filter((copy) => copy.getFromFlag() === null);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy
        .getArguments()
        .slice(0, -1)
        .map((argument) => argument.getValue());
      for (const source of sources) {
        expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
        if (source !== '.') expect({ source, ignored: ignored.ignores(source) }).toEqual({ source, ignored: false });
      }
    }
  });

  it('when the whole context is copied, then everything the build needs reaches it and tests and local data do not', () => {
    for (const input of buildInputs()) expect({ input, ignored: ignored.ignores(input) }).toEqual({ input, ignored: false });
    for (const excluded of [
      '.data/pg',
      'node_modules/x',
      'services/user/test/usage.int.test.ts',
      'packages/wire/src/xml.test.ts',
      'tests/x.ts',
      '.git/HEAD',
      'services/auth/dist/main.js',
    ]) {
      expect({ excluded, ignored: ignored.ignores(excluded) }).toEqual({ excluded, ignored: true });
    }
  });

  // engines also admits Node 20 (the development machines' Node); CI and the image run the LTS.
  it('when the image is built, then it is the current Node LTS that package.json engines and CI name', () => {
    expect(['22', '24']).toContain(nodeMajor());
    for (const from of stages.filter((stage) => stage.getImageName() === 'node'))
      expect(from.getImageTag()).toBe('${NODE_VERSION}-bookworm-slim');
    const engines = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((range) => range.trim())).toContain(`>=${nodeMajor()}`);
    expect(readFileSync(path.join(ROOT, '.ci/run'), 'utf8')).toContain(`CI_NODE_MAJOR=${nodeMajor()}`);
  });

  it('when the final stage runs, then it is non-root, health-checked, production-only and starts node dist/main.js with its young generation', () => {
    const keyword = (name: string) => finalInstructions.filter((instruction) => instruction.getKeyword() === name);
    expect(keyword('USER').map((user) => user.getArgumentsContent())).toEqual(['node']);
    expect(keyword('HEALTHCHECK')).toHaveLength(1);
    expect(keyword('HEALTHCHECK')[0]?.getArgumentsContent()).toContain('/health/ready');
    expect(keyword('CMD').map((cmd) => cmd.getArgumentsContent())).toEqual(['["node", "--max-semi-space-size=64", "dist/main.js"]']);
    const copied = keyword('COPY') as Copy[];
    expect(copied.map((copy) => copy.getFromFlag()?.getValue())).toEqual(['build']);
    const build = instructions.filter((instruction) => instruction.getKeyword() === 'RUN').map((run) => run.getArgumentsContent() ?? '');
    expect(build.join('\n')).toMatch(/deploy --legacy --prod/);
    expect(finalInstructions.map((instruction) => instruction.getArgumentsContent() ?? '').join('\n')).not.toMatch(/tsx|pnpm/);
  });

  it('when pnpm build has run, then every service has its entry point, and the table owners their migration command', () => {
    for (const name of SERVICE_NAMES) expect(existsSync(path.join(ROOT, 'services', name, 'dist/main.js'))).toBe(true);
    for (const name of ['user', 'categorization', 'notifier'])
      expect(existsSync(path.join(ROOT, 'services', name, 'dist/migrate.js'))).toBe(true);
  });
});
