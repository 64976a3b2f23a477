package org.respite.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the JNI library that the jar carries under {@code /native/<platform>/},
 * by copying it to a temporary file, so users never set {@code java.library.path}.
 * The system property {@code respite.native.library} names a library file to load
 * instead (for a build that is not packaged yet).
 */
public final class NativeLoader {
    private static final String LIBRARY = "librespite_jni.so";

    private NativeLoader() {}

    /** Loads the library; called once, by the static initializer of the JNI class (swig/java.i). */
    public static void load() {
        String explicit = System.getProperty("respite.native.library");
        if (explicit != null && !explicit.isEmpty()) {
            System.load(Path.of(explicit).toAbsolutePath().toString());
        } else {
            System.load(extract().toString());
        }
    }

    /** "linux-x86_64", "linux-aarch64", ...: the folder the jar keeps the library in. */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.contains("linux") ? "linux" : os.replaceAll("[^a-z0-9]", "");
        String archName = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return osName + "-" + archName;
    }

    private static Path extract() {
        String resource = "/native/" + platform() + "/" + LIBRARY;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("respite: this jar has no native library for the platform "
                        + platform() + " (looked for " + resource + "); build the jar on a " + platform()
                        + " machine from the respite repository with: mvn -f bindings/java install"
                        + " (needs cmake, a C compiler, libcurl and jansson headers, SWIG: bash scripts/setup.sh),"
                        + " or name a built library with -Drespite.native.library=/path/" + LIBRARY);
            }
            Path file = Files.createTempFile("respite_jni", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw (UnsatisfiedLinkError) new UnsatisfiedLinkError(
                    "respite: could not extract " + resource + " to a temporary file: " + e.getMessage()).initCause(e);
        }
    }
}
