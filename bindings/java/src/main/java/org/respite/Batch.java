package org.respite;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.respite.internal.Errors;
import org.respite.internal.FastNative;
import org.respite.internal.NativeHandle;
import org.respite.swig.RespiteNativeJNI;

/**
 * Events taken from a {@link Queue} as one in-flight batch, read by index
 * (0 is the oldest) and settled one by one (spec section 4, Q5).
 *
 * A batch from {@link Queue#take} is the caller's: {@link #close()} puts
 * retried and unsettled events back at the head of the queue (D4). A batch
 * from {@link DeliveryEngine#take} belongs to the engine:
 * {@link DeliveryEngine#settle} settles and closes it.
 *
 * A batch belongs to the thread that took it; its methods are nevertheless
 * safe against a concurrent close (they then throw {@link ClosedException},
 * "batch is closed").
 */
public final class Batch implements AutoCloseable {
    private final NativeHandle handle;
    private final Object lock;
    private final boolean owned;

    private Batch(long pointer, boolean owned, Object lock) {
        // An engine's batch is freed by the engine (settle, or engine close).
        this.handle = new NativeHandle(this, pointer, owned ? RespiteNativeJNI::respite_batch_free : p -> {});
        this.owned = owned;
        this.lock = lock == null ? new Object() : lock;
    }

    static Batch owned(long pointer) {
        return new Batch(pointer, true, null);
    }

    /** A batch the engine owns; {@code engine} is its lock and keeps its memory alive. */
    static Batch ofEngine(long pointer, DeliveryEngine engine) {
        return new Batch(pointer, false, engine);
    }

    long pointer() {
        return handle.get();
    }

    /** Called by the engine (under its lock) once it freed or settled the batch. */
    void detach() {
        handle.close();
    }

    /** Events in the batch (0 once closed). */
    public int size() {
        synchronized (lock) {
            return RespiteNativeJNI.respite_batch_count(handle.get());
        }
    }

    /** Events not yet settled (0 once closed). */
    public int unsettled() {
        synchronized (lock) {
            return RespiteNativeJNI.respite_batch_unsettled(handle.get());
        }
    }

    /** Event {@code index}'s payload, every byte. */
    public byte[] payload(int index) {
        synchronized (lock) {
            try {
                return FastNative.batchPayload(handle.get(), index);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    /** Event {@code index}'s payload read as UTF-8 text. */
    public String text(int index) {
        return new String(payload(index), StandardCharsets.UTF_8);
    }

    /** Every payload, in queue order. */
    public List<byte[]> payloads() {
        synchronized (lock) {
            int count = size();
            List<byte[]> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(payload(i));
            }
            return list;
        }
    }

    /** Every payload as UTF-8 text, in queue order. */
    public List<String> texts() {
        synchronized (lock) {
            int count = size();
            List<String> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(text(i));
            }
            return list;
        }
    }

    /** Attempts of event {@code index}, this one included (1 on its first take). */
    public int attempts(int index) {
        synchronized (lock) {
            try {
                return RespiteNativeJNI.respite_batch_event_attempts(handle.get(), index);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    /** Seconds since event {@code index} was first queued, now. */
    public double age(int index) {
        return age(index, Respite.now());
    }

    public double age(int index, double now) {
        synchronized (lock) {
            try {
                return RespiteNativeJNI.respite_batch_event_age(handle.get(), index, now);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    /** How event {@code index} was settled, or null when it is not settled yet. */
    public Disposition disposition(int index) {
        synchronized (lock) {
            try {
                int code = RespiteNativeJNI.respite_batch_event_disposition(handle.get(), index);
                return code < 0 ? null : Disposition.values()[code];
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    /**
     * Settles event {@code index}; returns the disposition applied (RETRY becomes
     * RETRIES_EXHAUSTED once retry_times resends were made, D3). Settling twice is
     * an {@link InvalidArgumentException}; after the queue was freed, {@link ClosedException}.
     */
    public Disposition settle(int index, Disposition disposition) {
        synchronized (lock) {
            try {
                return Disposition.values()[RespiteNativeJNI.respite_batch_settle(handle.get(), index,
                        disposition.code())];
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    /** Settles every unsettled event the same way; returns how many. */
    public int settleAll(Disposition disposition) {
        synchronized (lock) {
            try {
                return RespiteNativeJNI.respite_batch_settle_all(handle.get(), disposition.code());
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * A queue's batch: frees it now, putting retried and unsettled events back at
     * the head in batch order (D4, Q5). An engine's batch: settle it with
     * {@link DeliveryEngine#settle} instead (this does nothing). Idempotent.
     */
    @Override
    public void close() {
        if (owned) {
            synchronized (lock) {
                handle.closeAndFree();
            }
        }
    }
}
