package org.respite;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.respite.internal.NativeLoader;

/** The pom names the jar's native folder by the same rule the loader looks it up with. */
class NativeLoaderTest {
    @Test
    void theJarsNativeFolderIsTheOneTheLoaderLooksFor() {
        String platform = NativeLoader.platform();
        assertTrue(platform.matches("[a-z0-9]+-[a-z0-9_]+"), platform);
        assertNotNull(NativeLoader.class.getResource("/native/" + platform + "/librespite_jni.so"),
                "no /native/" + platform + "/librespite_jni.so in the build");
    }
}
