// Types for the `snappyjs` package (raw Snappy block format, as Go's snappy.Encode/Decode),
// which ships none. Both functions return the same array type they are given.
declare module 'snappyjs' {
  export function compress(uncompressed: Uint8Array): Uint8Array;
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
}
