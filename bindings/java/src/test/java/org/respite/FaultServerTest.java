package org.respite;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Tests against one respite-fault-server per class, reset to healthy before every test. */
abstract class FaultServerTest {
    static FaultServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new FaultServer("healthy");
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void resetServer() {
        server.reset();
    }
}
