package org.respite;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A redis-server of the test's own on 127.0.0.1 (a free port, no persistence,
 * a temporary directory), for the fleet gate's tests.
 */
final class RedisServer implements AutoCloseable {
    final int port;
    final String url;
    private final Path dir;
    private final Process process;

    RedisServer() throws IOException, InterruptedException {
        this(freePort());
    }

    /** On this port: a Redis that comes back after a kill. */
    RedisServer(int port) throws IOException, InterruptedException {
        this.port = port;
        url = "redis://127.0.0.1:" + port;
        dir = Files.createTempDirectory("respite-redis-");
        try {
            process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("the fleet tests need redis-server (scripts/setup.sh installs it)", e);
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > until) {
                    close();
                    throw new IOException("redis-server did not start on port " + port);
                }
                Thread.sleep(10);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    /** Stops it at once (SIGKILL), as a crash would. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException, IOException {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
