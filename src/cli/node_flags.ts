/**
 * Node.js flags the server runs with: the `strata` bin's shebang and `npm start` pass them,
 * and the remote-write benchmark starts Strata with them (a test keeps the three in step).
 *
 * `--max-semi-space-size=64` (MiB; Node's default is 16): the push path allocates a few
 * hundred bytes per sample that die within a request, but with the default young generation
 * a scavenge runs every ~40 ms under load and copies (then promotes) whatever requests are
 * in flight. At a million active series scavenges then took about a fifth of the CPU; with
 * 64 MiB they run every ~200 ms and remote write went from ~230k to ~310k samples/s. The
 * cost is up to 2 x 48 MiB more reserved young-generation memory.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
