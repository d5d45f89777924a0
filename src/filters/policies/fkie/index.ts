// Public face of the fkie_message_filters combiner policies (reference fkie-message-filters.md §2).
export { ApproximateTime, type ApproximateTimeOptions } from "./ApproximateTime";
export { ExactTime, type ExactTimeOptions } from "./ExactTime";
export { Fifo, type FifoOptions } from "./Fifo";
export { Latch, type LatchOptions } from "./Latch";
