package org.respite;

import java.util.List;
import java.util.function.LongFunction;
import java.util.stream.IntStream;

import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;

/**
 * Events taken as one in-flight batch, read by index (0 is the oldest) and
 * settled one by one (spec section 4, Q5). A batch from {@link Queue#take} is
 * the caller's to close; one from {@link DeliveryEngine#take} is closed by
 * {@link DeliveryEngine#settle}.
 */
public final class Batch extends NativeObject {
    private final DeliveryEngine engine;

    /** engine: null for a queue's batch (freed by close), else the engine that owns, frees and closes it. */
    Batch(long pointer, DeliveryEngine engine) {
        super(pointer, engine == null ? RespiteNative::respite_batch_free : p -> {});
        this.engine = engine;
    }

    /** Runs call with the pointer; an engine's batch is read under the engine's lock (settle frees it). */
    private <T> T use(LongFunction<T> call) {
        synchronized (engine == null ? this : engine) {
            return handle.apply(call);
        }
    }

    /** Events in the batch (0 once closed). */
    public int size() {
        return use(RespiteNative::respite_batch_count);
    }

    /** Events not yet settled (0 once closed). */
    public int unsettled() {
        return use(RespiteNative::respite_batch_unsettled);
    }

    /** Event {@code index}'s payload, every byte. */
    public byte[] payload(int index) {
        return use(p -> RespiteNative.respite_batch_event_text(p, index));
    }

    /** Event {@code index}'s payload read as UTF-8 text. */
    public String text(int index) {
        return Utf8.string(payload(index));
    }

    /** Every payload, in queue order. */
    public List<byte[]> payloads() {
        return IntStream.range(0, size()).mapToObj(this::payload).toList();
    }

    /** Every payload as UTF-8 text, in queue order. */
    public List<String> texts() {
        return payloads().stream().map(Utf8::string).toList();
    }

    /** The id of event {@code index}: increasing, never reused in its queue (L3). */
    public long id(int index) {
        return use(p -> RespiteNative.respite_batch_event_id(p, index));
    }

    /** Attempts of event {@code index}, this one included (1 on its first take). */
    public int attempts(int index) {
        return use(p -> RespiteNative.respite_batch_event_attempts(p, index));
    }

    /** Seconds since event {@code index} was first queued, now. */
    public double age(int index) {
        return age(index, Respite.now());
    }

    public double age(int index, double now) {
        return use(p -> RespiteNative.respite_batch_event_age(p, index, now));
    }

    /** How event {@code index} was settled, or null when it is not settled yet. */
    public Disposition disposition(int index) {
        int code = use(p -> RespiteNative.respite_batch_event_disposition(p, index));
        return code < 0 ? null : Disposition.ofCode(code);
    }

    /** Settles event {@code index}: returns the disposition applied (RETRY may become RETRIES_EXHAUSTED, D3). */
    public Disposition settle(int index, Disposition disposition) {
        return Disposition.ofCode(use(p -> RespiteNative.respite_batch_settle(p, index, disposition.code())));
    }

    /** Settles every unsettled event the same way; returns how many. */
    public int settleAll(Disposition disposition) {
        return use(p -> RespiteNative.respite_batch_settle_all(p, disposition.code()));
    }

    /** A queue's batch: frees it, putting retried and unsettled events back at the head (D4, Q5). */
    @Override
    public void close() {
        if (engine == null) {
            handle.close();
        }
    }
}
