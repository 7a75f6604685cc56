// Test support for chunk encodings (imported by tests, never by production code).
export { fromBits, toBits } from './float_bits.js';
