package org.respite.internal;

import java.lang.reflect.Field;

import sun.misc.Unsafe;

/**
 * {@link NativeWords} through sun.misc.Unsafe on the absolute address (module
 * jdk.unsupported, as Netty and Agrona use it on JDK 17-21): one load or store,
 * no bounds or buffer checks. Its memory access warns from JDK 24 (JEP 498), so
 * the multi-release jar uses FFM from JDK 22 instead (META-INF/versions/22).
 */
final class UnsafeWords extends NativeWords {
    /** The Unsafe instance, or null where the runtime has none (a jlink image without jdk.unsupported). */
    static final Unsafe UNSAFE = find();

    private final long address;

    UnsafeWords(long address) {
        this.address = address;
    }

    @Override
    public long getAcquire(int offset) {
        return UNSAFE.getLongVolatile(null, address + offset);
    }

    @Override
    public long get(int offset) {
        return UNSAFE.getLong(address + offset);
    }

    @Override
    public void set(int offset, long value) {
        UNSAFE.putLong(address + offset, value);
    }

    private static Unsafe find() {
        try {
            Field field = Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return (Unsafe) field.get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }
}
