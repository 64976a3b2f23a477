package org.respite;

/**
 * A sender's figures (S13): the queue's D9 accounting, the engine's sends
 * and the gate's, plus HTTP requests made (probes included), request body
 * bytes after gzip, whether the gate refuses now, and whether it is closed.
 */
public record SenderStats(QueueStats queue, EngineStats engine, GateStats gate, long requests, long bytesSent,
                          boolean paused, boolean closed) {}
