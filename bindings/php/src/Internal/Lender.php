<?php
declare(strict_types=1);

namespace Respite\Internal;

/**
 * A raw handle that engines and clients may borrow: closing the owner
 * closes every borrower first, since they use the handle.
 * @internal
 */
trait Lender
{
    /** @var mixed the raw handle; null once closed (the core then answers "<handle> is closed") */
    private $ptr;
    /** @var list<\WeakReference<object>> the engines and clients that borrow the handle */
    private array $borrowers = [];

    public function __destruct()
    {
        $this->close();
    }

    public function isClosed(): bool
    {
        return $this->ptr === null;
    }

    /** @internal the raw handle, for the objects that borrow it */
    public function raw()
    {
        return $this->ptr;
    }

    private function addBorrower(object $borrower): void
    {
        $this->borrowers[] = \WeakReference::create($borrower);
    }

    private function closeBorrowers(): void
    {
        foreach ($this->borrowers as $ref) {
            $ref->get()?->close();
        }
        $this->borrowers = [];
    }

    /** Closes the borrowers, then frees the handle with $free; nothing when already closed. */
    private function release(callable $free): void
    {
        if ($this->ptr === null) {
            return;
        }
        $this->closeBorrowers();
        $ptr = $this->ptr;
        $this->ptr = null;
        $free($ptr);
    }
}
