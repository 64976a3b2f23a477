<?php
declare(strict_types=1);

namespace Respite\Tests;

/** One respite-fault-server for a test class, its script and counts reset before each test. */
trait UsesFaultServer
{
    private static FaultServer $server;

    public static function setUpBeforeClass(): void
    {
        self::$server = new FaultServer();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server->stop();
    }

    protected function setUp(): void
    {
        self::$server->reset();
    }
}
