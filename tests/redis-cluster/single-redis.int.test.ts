/**
 * The same contract flows as on the Redis Cluster (redis-cluster.int.test.ts), on the shared
 * single Redis (REDIS_URL): the issuance window across rotations and the freeing of a replaced
 * key's tokens hold on both forms.
 */
import { contractFlows } from './flows';
import { client, startClusterPlatform, type ClusterPlatform } from './platform';

let platform: ClusterPlatform;
let calls: ReturnType<typeof client>;

beforeAll(async () => {
  platform = await startClusterPlatform('single_redis', 'single redis');
  calls = client(platform);
}, 60_000);

afterAll(async () => {
  await platform.stop();
}, 30_000);

describe('the contract flows on a single Redis', () => contractFlows(() => ({ platform, calls })));
