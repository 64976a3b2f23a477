package org.respite;

/**
 * A queue's figures (D9), one consistent snapshot taken under the queue's lock.
 * Every accepted event is counted under exactly one heading:
 * {@code accepted = delivered + droppedCapacity + expired + retriesExhausted +
 * discarded + pending + inFlight}; {@link #balanced()} is the core's check of that.
 * Refused events were never accepted and are counted apart.
 *
 * @param eventTtl the policy's event_ttl in seconds, 0 for none
 * @param maxBytes 0: no byte limit
 * @param balanced whether the snapshot satisfies D9 (respite_queue_stats_balanced)
 */
public record QueueStats(long accepted, long delivered, long droppedCapacity, long expired, long retriesExhausted,
                         long discarded, long pending, long inFlight, long refusedFull, long refusedTooLarge,
                         long refusedClosed, long retried, long pendingBytes, long inFlightBytes, long liveBytes,
                         long capacity, long maxBytes, Overflow overflow, int retryTimes, double eventTtl,
                         boolean closed, boolean balanced) {}
