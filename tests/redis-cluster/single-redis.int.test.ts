/**
 * The same contract flows as on the Redis Cluster (redis-cluster.int.test.ts), on the shared
 * single Redis (REDIS_URL): the issuance window across rotations and the freeing of a replaced
 * key's tokens hold on both forms.
 */
import { contractFlows } from './flows';
import { useClusterPlatform } from './platform';

const started = useClusterPlatform('single_redis', 'single redis', 60_000);

describe('the contract flows on a single Redis', () => contractFlows(started));
