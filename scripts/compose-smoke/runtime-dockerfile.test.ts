import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { nodeVersion, runtimeDockerfile } from './runtime-dockerfile';

const ROOT = path.resolve(__dirname, '../..');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
/** Each instruction's whole text, flags included. */
const instructions = (text: string) =>
  DockerfileParser.parse(text)
    .getInstructions()
    .map((instruction) => instruction.getTextContent());

describe('the smoke image: the Dockerfile final stage on the stand-ins', () => {
  it('when derived from ./Dockerfile, then every final-stage instruction is kept but the base and the copy from the build stage', () => {
    const parsed = DockerfileParser.parse(dockerfile);
    const froms = parsed.getFROMs();
    const finalLine = froms[froms.length - 1]?.getRange().start.line ?? 0;
    const finalStage = parsed
      .getInstructions()
      .filter((instruction) => instruction.getRange().start.line > finalLine)
      .map((instruction) => instruction.getTextContent());

    const derived = instructions(runtimeDockerfile(dockerfile, 'aap-ci/node:local'));

    expect(derived).toEqual([
      `ARG NODE_VERSION=${nodeVersion(dockerfile)}`,
      'FROM aap-ci/node:local AS runtime',
      ...finalStage.map((instruction) => (instruction === 'COPY --from=build /out ./' ? 'COPY out/ ./' : instruction)),
    ]);
    expect(finalStage).toContain('COPY --from=build /out ./');
  });

  it('when the final stage copies anything else from another stage, then the derivation refuses', () => {
    const extra = dockerfile.replace('COPY --from=build /out ./', 'COPY --from=build /out ./\nCOPY --from=build /src/tests ./tests');
    expect(() => runtimeDockerfile(extra, 'aap-ci/node:local')).toThrow(/exactly one thing from another stage/);
  });

  it('when NODE_VERSION is not a full version, then the stand-in version cannot be chosen', () => {
    expect(() => nodeVersion(dockerfile.replace(/ARG NODE_VERSION=\S+/, 'ARG NODE_VERSION=22'))).toThrow(/NODE_VERSION/);
  });
});
