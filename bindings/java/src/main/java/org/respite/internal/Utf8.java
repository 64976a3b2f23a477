package org.respite.internal;

import java.nio.charset.StandardCharsets;

/** Text across JNI as real UTF-8 bytes (swig/java.i): JNI's own strings are modified UTF-8. */
public final class Utf8 {
    private Utf8() {}

    /** The UTF-8 bytes of text; null for null. */
    public static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /** The text of UTF-8 bytes; null for null. */
    public static String string(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
