/** How many of `replies` answered each status: `{ served: 200, refused: 403 }` → `{ served: <200s>, refused: <403s> }`. */
export function countStatuses<K extends string>(
  replies: ReadonlyArray<{ status: number }>,
  statuses: Record<K, number>,
): Record<K, number> {
  const entries = Object.entries(statuses) as Array<[K, number]>;
  return Object.fromEntries(entries.map(([name, status]) => [name, replies.filter((reply) => reply.status === status).length])) as Record<
    K,
    number
  >;
}
