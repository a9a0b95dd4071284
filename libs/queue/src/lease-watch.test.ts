import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobAbortedError } from './errors/job-aborted-error';
import { LeaseWatch } from './lease-watch';

describe('LeaseWatch', () => {
  afterEach(() => vi.useRealTimers());

  it('aborts a job whose lock was not renewed for three quarters of the lock duration, before the lock can expire', () => {
    vi.useFakeTimers({ now: 0 });
    const watch = new LeaseWatch(1000);
    watch.start();
    const kept = watch.track('kept', 0);
    const lost = watch.track('lost', 0);
    vi.advanceTimersByTime(500);
    watch.renewed(['kept']);
    vi.advanceTimersByTime(300);
    expect(lost.aborted).toBe(false);
    vi.advanceTimersByTime(300);
    expect(lost.aborted).toBe(true);
    vi.advanceTimersByTime(200);
    expect(kept.aborted).toBe(false);
    expect(lost.aborted).toBe(true);
    expect(lost.reason).toBeInstanceOf(JobAbortedError);
    expect((lost.reason as JobAbortedError).abortCause).toBe('lease-lost');
    watch.stop();
  });

  it('forwards an external cancel and aborts everything on shutdown', () => {
    const watch = new LeaseWatch(1000);
    const external = new AbortController();
    const cancelled = watch.track('a', Date.now(), external.signal);
    const other = watch.track('b', Date.now());
    external.abort();
    expect((cancelled.reason as JobAbortedError).abortCause).toBe('cancelled');
    watch.abortAll('shutdown', 'bye');
    expect((other.reason as JobAbortedError).abortCause).toBe('shutdown');
    watch.untrack('a');
    expect(watch.size).toBe(1);
  });

  it('judges a lease by the clock when asked, though its timer has not fired (a process held up)', () => {
    let now = 0;
    const watch = new LeaseWatch(1000, () => now);
    watch.start();
    const signal = watch.track('held-up', 0);
    now = 700;
    expect(watch.holds('held-up')).toBe(true);
    now = 800;
    expect(signal.aborted).toBe(false);
    expect(watch.holds('held-up')).toBe(false);
    expect((signal.reason as JobAbortedError).abortCause).toBe('lease-lost');
    expect(watch.holds('never-tracked')).toBe(false);
    watch.stop();
  });
});
