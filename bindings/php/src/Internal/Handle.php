<?php
declare(strict_types=1);

namespace Respite\Internal;

/**
 * A native handle owned by one PHP object. The core counts references, so
 * close() frees this object's own reference whatever else uses the handle.
 * @internal
 */
trait Handle
{
    /** @var mixed the raw handle; null once closed (the core then answers "<handle> is closed") */
    private $ptr;

    public function __destruct()
    {
        $this->close();
    }

    public function isClosed(): bool
    {
        return $this->ptr === null;
    }

    /** @internal the handle, or once closed the core's ClosedException for the class's KIND */
    public function raw()
    {
        return $this->ptr ?? respite_closed(self::KIND);
    }

    /** Drops the handle and frees it with $free; nothing when already closed. */
    private function free(callable $free): void
    {
        $ptr = $this->ptr;
        $this->ptr = null;
        if ($ptr !== null) {
            $free($ptr);
        }
    }
}
