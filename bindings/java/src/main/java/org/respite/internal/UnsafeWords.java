package org.respite.internal;

import java.lang.reflect.Field;

import sun.misc.Unsafe;

/**
 * {@link NativeWords} through sun.misc.Unsafe on absolute addresses (module
 * jdk.unsupported, as Netty and Agrona use it on JDK 17-21): one load or store,
 * no bounds or buffer checks. Its memory access warns from JDK 24 (JEP 498),
 * where the multi-release jar uses FFM instead (META-INF/versions/24).
 */
final class UnsafeWords extends AbsoluteWords {
    /** The Unsafe instance, or null where the runtime has none (a jlink image without jdk.unsupported). */
    static final Unsafe UNSAFE = find();

    @Override
    public long getAcquire(Object base, long position) {
        return UNSAFE.getLongVolatile(null, position);
    }

    @Override
    public long get(Object base, long position) {
        return UNSAFE.getLong(position);
    }

    @Override
    public void set(Object base, long position, long value) {
        UNSAFE.putLong(position, value);
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
