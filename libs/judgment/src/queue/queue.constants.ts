/** Injection token of the BullMQ dispatch strategy; provided only when the queue is enabled. */
export const QUEUED_DISPATCH = Symbol('QUEUED_DISPATCH');
