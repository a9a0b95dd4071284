/** UnsafeRedisError: the Redis would silently drop queue keys (an eviction policy); start-up stops. */
export class UnsafeRedisError extends Error {
  readonly code = 'QueueUnsafeRedis';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnsafeRedisError';
  }
}
