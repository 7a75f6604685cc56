;; Bulk decoding of one Prometheus XOR chunk (see xor_bulk.ts for the contract).
;;
;; The chunk's bytes are at offset 0 followed by at least 32 zero bytes. `decode` writes the
;; samples with mint <= t <= maxt as float64 timestamps from `tsOff` and as the values' raw
;; 64 bits from `vOff`, and returns how many it wrote, or -1 for a chunk it leaves to the
;; general decoder: a truncated or corrupt chunk, a delta of deltas beyond 20 bits, a window
;; that does not fit in 64 bits, or a timestamp or delta outside the float64-safe integers.
;;
;; Bits are read through a 64-bit buffer, most significant bit first: `buf` holds `count`
;; unread bits at its top. A refill (when at most 56 are held) loads the next eight bytes as
;; one big-endian word, ORs them in below the held bits and counts the whole bytes that fit,
;; so it leaves 56 to 63; the bits below those counted are already the stream's next bits,
;; and the next refill ORs the same bits over them. `p` is the next byte not counted; the
;; bit position reached is p * 8 - count.
(module
  (memory (export "memory") 1)
  (func (export "decode")
    (param $len i32) (param $tsOff i32) (param $vOff i32) (param $mint f64) (param $maxt f64)
    (result i32)
    (local $total i32) (local $p i32) (local $buf i64) (local $count i32)
    (local $x i64) (local $shift i64) (local $byte i32)
    (local $t i64) (local $tDelta i64) (local $dod i64) (local $v i64) (local $bits i64)
    (local $n i32) (local $k i32) (local $leading i32) (local $trailing i32) (local $sig i32)
    (local $tf f64) (local $endBits i32) (local $word i64) (local $nb i32)

    (if (i32.lt_u (local.get $len) (i32.const 2)) (then (return (i32.const -1))))
    (local.set $total
      (i32.or (i32.shl (i32.load8_u (i32.const 0)) (i32.const 8)) (i32.load8_u (i32.const 1))))
    (if (i32.eqz (local.get $total)) (then (return (i32.const 0))))
    (local.set $endBits (i32.shl (local.get $len) (i32.const 3)))

    ;; The first timestamp: a zig-zag varint at byte 2.
    (local.set $p (i32.const 2))
    (block $done
      (loop $more
        (if (i32.ge_u (local.get $p) (local.get $len)) (then (return (i32.const -1))))
        (local.set $byte (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $x (i64.or (local.get $x)
          (i64.shl (i64.extend_i32_u (i32.and (local.get $byte) (i32.const 0x7f))) (local.get $shift))))
        (br_if $done (i32.lt_u (local.get $byte) (i32.const 0x80)))
        (local.set $shift (i64.add (local.get $shift) (i64.const 7)))
        (br_if $more (i64.le_u (local.get $shift) (i64.const 63)))
        (return (i32.const -1))))
    (local.set $t (i64.xor (i64.shr_u (local.get $x) (i64.const 1))
      (i64.sub (i64.const 0) (i64.and (local.get $x) (i64.const 1)))))
    (if (i32.or (i64.gt_s (local.get $t) (i64.const 9007199254740991))
                (i64.lt_s (local.get $t) (i64.const -9007199254740991)))
      (then (return (i32.const -1))))

    ;; The first value: 64 raw bits.
    (if (i32.le_s (local.get $count) (i32.const 56)) (then
      (local.set $word (i64.load (local.get $p)))
      (local.set $word (i64.or
        (i64.and (i64.shr_u (local.get $word) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))
        (i64.shl (i64.and (local.get $word) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))))
      (local.set $word (i64.or
        (i64.and (i64.shr_u (local.get $word) (i64.const 16)) (i64.const 0x0000ffff0000ffff))
        (i64.shl (i64.and (local.get $word) (i64.const 0x0000ffff0000ffff)) (i64.const 16))))
      (local.set $buf (i64.or (local.get $buf)
        (i64.shr_u (i64.rotl (local.get $word) (i64.const 32)) (i64.extend_i32_u (local.get $count)))))
      (local.set $nb (i32.shr_u (i32.sub (i32.const 63) (local.get $count)) (i32.const 3)))
      (local.set $p (i32.add (local.get $p) (local.get $nb)))
      (local.set $count (i32.add (local.get $count) (i32.shl (local.get $nb) (i32.const 3))))))
    (local.set $v (i64.shl (i64.shr_u (local.get $buf) (i64.const 32)) (i64.const 32)))
    (local.set $buf (i64.shl (local.get $buf) (i64.const 32)))
    (local.set $count (i32.sub (local.get $count) (i32.const 32)))
    (if (i32.le_s (local.get $count) (i32.const 56)) (then
      (local.set $word (i64.load (local.get $p)))
      (local.set $word (i64.or
        (i64.and (i64.shr_u (local.get $word) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))
        (i64.shl (i64.and (local.get $word) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))))
      (local.set $word (i64.or
        (i64.and (i64.shr_u (local.get $word) (i64.const 16)) (i64.const 0x0000ffff0000ffff))
        (i64.shl (i64.and (local.get $word) (i64.const 0x0000ffff0000ffff)) (i64.const 16))))
      (local.set $buf (i64.or (local.get $buf)
        (i64.shr_u (i64.rotl (local.get $word) (i64.const 32)) (i64.extend_i32_u (local.get $count)))))
      (local.set $nb (i32.shr_u (i32.sub (i32.const 63) (local.get $count)) (i32.const 3)))
      (local.set $p (i32.add (local.get $p) (local.get $nb)))
      (local.set $count (i32.add (local.get $count) (i32.shl (local.get $nb) (i32.const 3))))))
    (local.set $v (i64.or (local.get $v) (i64.shr_u (local.get $buf) (i64.const 32))))
    (local.set $buf (i64.shl (local.get $buf) (i64.const 32)))
    (local.set $count (i32.sub (local.get $count) (i32.const 32)))
    (if (i32.gt_s (i32.sub (i32.shl (local.get $p) (i32.const 3)) (local.get $count)) (local.get $endBits))
      (then (return (i32.const -1))))
    (local.set $tf (f64.convert_i64_s (local.get $t)))
    (if (f64.gt (local.get $tf) (local.get $maxt)) (then (return (i32.const 0))))
    (if (f64.ge (local.get $tf) (local.get $mint)) (then
      (f64.store (local.get $tsOff) (local.get $tf))
      (i64.store (local.get $vOff) (local.get $v))
      (local.set $n (i32.const 1))))
    (if (i32.eq (local.get $total) (i32.const 1)) (then (return (local.get $n))))

    ;; The second timestamp: its delta as an unsigned varint, byte-aligned after the value
    ;; (a negative delta is the uvarint of its 64-bit wrap, which i64 arithmetic undoes).
    (local.set $p (i32.shr_u (i32.sub (i32.shl (local.get $p) (i32.const 3)) (local.get $count)) (i32.const 3)))
    (local.set $x (i64.const 0))
    (local.set $shift (i64.const 0))
    (block $done
      (loop $more
        (if (i32.ge_u (local.get $p) (local.get $len)) (then (return (i32.const -1))))
        (local.set $byte (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $x (i64.or (local.get $x)
          (i64.shl (i64.extend_i32_u (i32.and (local.get $byte) (i32.const 0x7f))) (local.get $shift))))
        (br_if $done (i32.lt_u (local.get $byte) (i32.const 0x80)))
        (local.set $shift (i64.add (local.get $shift) (i64.const 7)))
        (br_if $more (i64.le_u (local.get $shift) (i64.const 63)))
        (return (i32.const -1))))
    (local.set $tDelta (local.get $x))
    (local.set $t (i64.add (local.get $t) (local.get $tDelta)))
    (local.set $buf (i64.const 0))
    (local.set $count (i32.const 0))

    (local.set $k (i32.const 1))
    (loop $sample
      (if (i32.gt_s (i32.sub (i32.shl (local.get $p) (i32.const 3)) (local.get $count)) (local.get $endBits))
        (then (return (i32.const -1))))
      (if (i32.le_s (local.get $count) (i32.const 56)) (then
        (local.set $word (i64.load (local.get $p)))
        (local.set $word (i64.or
          (i64.and (i64.shr_u (local.get $word) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))
          (i64.shl (i64.and (local.get $word) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))))
        (local.set $word (i64.or
          (i64.and (i64.shr_u (local.get $word) (i64.const 16)) (i64.const 0x0000ffff0000ffff))
          (i64.shl (i64.and (local.get $word) (i64.const 0x0000ffff0000ffff)) (i64.const 16))))
        (local.set $buf (i64.or (local.get $buf)
          (i64.shr_u (i64.rotl (local.get $word) (i64.const 32)) (i64.extend_i32_u (local.get $count)))))
        (local.set $nb (i32.shr_u (i32.sub (i32.const 63) (local.get $count)) (i32.const 3)))
        (local.set $p (i32.add (local.get $p) (local.get $nb)))
        (local.set $count (i32.add (local.get $count) (i32.shl (local.get $nb) (i32.const 3))))))
      ;; The delta of deltas behind '0', '10', '110' or '1110' ('1111', 64 bits: -1).
      (if (i32.gt_u (local.get $k) (i32.const 1)) (then
        (if (i64.ge_s (local.get $buf) (i64.const 0))
          (then
            (local.set $dod (i64.const 0))
            (local.set $buf (i64.shl (local.get $buf) (i64.const 1)))
            (local.set $count (i32.sub (local.get $count) (i32.const 1))))
          (else
            (if (i64.eqz (i64.and (local.get $buf) (i64.const 0x4000000000000000)))
              (then
                (local.set $dod (i64.and (i64.shr_u (local.get $buf) (i64.const 48)) (i64.const 0x3fff)))
                (if (i64.gt_s (local.get $dod) (i64.const 8192))
                  (then (local.set $dod (i64.sub (local.get $dod) (i64.const 16384)))))
                (local.set $buf (i64.shl (local.get $buf) (i64.const 16)))
                (local.set $count (i32.sub (local.get $count) (i32.const 16))))
              (else
                (if (i64.eqz (i64.and (local.get $buf) (i64.const 0x2000000000000000)))
                  (then
                    (local.set $dod (i64.and (i64.shr_u (local.get $buf) (i64.const 44)) (i64.const 0x1ffff)))
                    (if (i64.gt_s (local.get $dod) (i64.const 65536))
                      (then (local.set $dod (i64.sub (local.get $dod) (i64.const 131072)))))
                    (local.set $buf (i64.shl (local.get $buf) (i64.const 20)))
                    (local.set $count (i32.sub (local.get $count) (i32.const 20))))
                  (else
                    (if (i64.eqz (i64.and (local.get $buf) (i64.const 0x1000000000000000)))
                      (then
                        (local.set $dod (i64.and (i64.shr_u (local.get $buf) (i64.const 40)) (i64.const 0xfffff)))
                        (if (i64.gt_s (local.get $dod) (i64.const 524288))
                          (then (local.set $dod (i64.sub (local.get $dod) (i64.const 1048576)))))
                        (local.set $buf (i64.shl (local.get $buf) (i64.const 24)))
                        (local.set $count (i32.sub (local.get $count) (i32.const 24))))
                      (else (return (i32.const -1))))))))))
        (local.set $tDelta (i64.add (local.get $tDelta) (local.get $dod)))
        (local.set $t (i64.add (local.get $t) (local.get $tDelta)))))
      (if (i32.or
            (i32.or (i64.gt_s (local.get $t) (i64.const 9007199254740991))
                    (i64.lt_s (local.get $t) (i64.const -9007199254740991)))
            (i32.or (i64.gt_s (local.get $tDelta) (i64.const 9007199254740991))
                    (i64.lt_s (local.get $tDelta) (i64.const -9007199254740991))))
        (then (return (i32.const -1))))
      ;; The value: '0' unchanged, '10' XOR in the previous window, '11' a new window
      ;; (5 bits of leading zeros, 6 of significant bits, 0 meaning 64).
      (if (i64.ge_s (local.get $buf) (i64.const 0))
        (then
          (local.set $buf (i64.shl (local.get $buf) (i64.const 1)))
          (local.set $count (i32.sub (local.get $count) (i32.const 1))))
        (else
          (if (i64.eqz (i64.and (local.get $buf) (i64.const 0x4000000000000000)))
            (then
              (local.set $buf (i64.shl (local.get $buf) (i64.const 2)))
              (local.set $count (i32.sub (local.get $count) (i32.const 2))))
            (else
              (local.set $leading (i32.wrap_i64 (i64.and (i64.shr_u (local.get $buf) (i64.const 57)) (i64.const 0x1f))))
              (local.set $sig (i32.wrap_i64 (i64.and (i64.shr_u (local.get $buf) (i64.const 51)) (i64.const 0x3f))))
              (if (i32.eqz (local.get $sig)) (then (local.set $sig (i32.const 64))))
              (local.set $trailing (i32.sub (i32.sub (i32.const 64) (local.get $leading)) (local.get $sig)))
              (if (i32.lt_s (local.get $trailing) (i32.const 0)) (then (return (i32.const -1))))
              (local.set $buf (i64.shl (local.get $buf) (i64.const 13)))
              (local.set $count (i32.sub (local.get $count) (i32.const 13)))))
          (local.set $sig (i32.sub (i32.sub (i32.const 64) (local.get $leading)) (local.get $trailing)))
          (if (i32.le_s (local.get $count) (i32.const 56)) (then
            (local.set $word (i64.load (local.get $p)))
            (local.set $word (i64.or
              (i64.and (i64.shr_u (local.get $word) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))
              (i64.shl (i64.and (local.get $word) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))))
            (local.set $word (i64.or
              (i64.and (i64.shr_u (local.get $word) (i64.const 16)) (i64.const 0x0000ffff0000ffff))
              (i64.shl (i64.and (local.get $word) (i64.const 0x0000ffff0000ffff)) (i64.const 16))))
            (local.set $buf (i64.or (local.get $buf)
              (i64.shr_u (i64.rotl (local.get $word) (i64.const 32)) (i64.extend_i32_u (local.get $count)))))
            (local.set $nb (i32.shr_u (i32.sub (i32.const 63) (local.get $count)) (i32.const 3)))
            (local.set $p (i32.add (local.get $p) (local.get $nb)))
            (local.set $count (i32.add (local.get $count) (i32.shl (local.get $nb) (i32.const 3))))))
          (if (i32.le_s (local.get $sig) (i32.const 56))
            (then
              (local.set $bits (i64.shr_u (local.get $buf) (i64.extend_i32_u (i32.sub (i32.const 64) (local.get $sig)))))
              (local.set $buf (i64.shl (local.get $buf) (i64.extend_i32_u (local.get $sig))))
              (local.set $count (i32.sub (local.get $count) (local.get $sig))))
            (else
              ;; More than 56 bits: the top sig - 32 first, then a refill and 32 more.
              (local.set $bits (i64.shr_u (local.get $buf) (i64.extend_i32_u (i32.sub (i32.const 96) (local.get $sig)))))
              (local.set $buf (i64.shl (local.get $buf) (i64.extend_i32_u (i32.sub (local.get $sig) (i32.const 32)))))
              (local.set $count (i32.sub (local.get $count) (i32.sub (local.get $sig) (i32.const 32))))
              (if (i32.le_s (local.get $count) (i32.const 56)) (then
                (local.set $word (i64.load (local.get $p)))
                (local.set $word (i64.or
                  (i64.and (i64.shr_u (local.get $word) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))
                  (i64.shl (i64.and (local.get $word) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))))
                (local.set $word (i64.or
                  (i64.and (i64.shr_u (local.get $word) (i64.const 16)) (i64.const 0x0000ffff0000ffff))
                  (i64.shl (i64.and (local.get $word) (i64.const 0x0000ffff0000ffff)) (i64.const 16))))
                (local.set $buf (i64.or (local.get $buf)
                  (i64.shr_u (i64.rotl (local.get $word) (i64.const 32)) (i64.extend_i32_u (local.get $count)))))
                (local.set $nb (i32.shr_u (i32.sub (i32.const 63) (local.get $count)) (i32.const 3)))
                (local.set $p (i32.add (local.get $p) (local.get $nb)))
                (local.set $count (i32.add (local.get $count) (i32.shl (local.get $nb) (i32.const 3))))))
              (local.set $bits (i64.or (i64.shl (local.get $bits) (i64.const 32))
                (i64.shr_u (local.get $buf) (i64.const 32))))
              (local.set $buf (i64.shl (local.get $buf) (i64.const 32)))
              (local.set $count (i32.sub (local.get $count) (i32.const 32)))))
          (local.set $v (i64.xor (local.get $v)
            (i64.shl (local.get $bits) (i64.extend_i32_u (local.get $trailing)))))))
      (local.set $tf (f64.convert_i64_s (local.get $t)))
      (if (f64.gt (local.get $tf) (local.get $maxt)) (then
        (if (i32.gt_s (i32.sub (i32.shl (local.get $p) (i32.const 3)) (local.get $count)) (local.get $endBits))
          (then (return (i32.const -1))))
        (return (local.get $n))))
      (if (f64.ge (local.get $tf) (local.get $mint)) (then
        (f64.store (i32.add (local.get $tsOff) (i32.shl (local.get $n) (i32.const 3))) (local.get $tf))
        (i64.store (i32.add (local.get $vOff) (i32.shl (local.get $n) (i32.const 3))) (local.get $v))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $sample (i32.lt_u (local.get $k) (local.get $total))))
    (if (i32.gt_s (i32.sub (i32.shl (local.get $p) (i32.const 3)) (local.get $count)) (local.get $endBits))
      (then (return (i32.const -1))))
    (local.get $n)))
