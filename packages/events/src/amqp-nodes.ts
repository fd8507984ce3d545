import amqp, { type ChannelModel } from 'amqplib';
import { errorMessage } from '@platform/runtime';

/** How long one node may take to accept a connection before the next one is tried. */
const CONNECT_TIMEOUT_MS = 5000;

function withHeartbeat(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', '10');
  return parsed.toString();
}

/** The nodes of AMQP_URL (one URL, or a cluster's nodes comma-separated), in order, each with a heartbeat. */
export function amqpNodes(url: string): string[] {
  return url
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(withHeartbeat);
}

/** A node as logs may name it: host and port, never the credentials. */
export function nodeName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'amqps:' ? '5671' : '5672')}`;
}

export interface NodeConnection {
  model: ChannelModel;
  /** Which of the nodes answered. */
  index: number;
}

/**
 * Connects to the first node that answers, trying them in order from `first` (wrapping round):
 * after a node went away the bus starts with the one after it. Rejects naming every node's failure.
 */
export async function connectFirst(nodes: readonly string[], first: number, connectionName: string): Promise<NodeConnection> {
  const failures: string[] = [];
  for (let offset = 0; offset < nodes.length; offset += 1) {
    const index = (first + offset) % nodes.length;
    const node = nodes[index] as string;
    try {
      const model = await amqp.connect(node, { clientProperties: { connection_name: connectionName }, timeout: CONNECT_TIMEOUT_MS });
      return { model, index };
    } catch (error) {
      failures.push(`${nodeName(node)}: ${errorMessage(error)}`);
    }
  }
  throw new Error(`no RabbitMQ node answered (${failures.join('; ')})`);
}
