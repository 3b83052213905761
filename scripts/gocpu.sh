# scripts/gocpu.sh, sourced by bench.sh and .ci/run: what the CPU offers
# Go's vector code.

# go_avx512: succeeds when the CPU has Go's AVX-512 set (F, CD, BW, DQ
# and VL: archsimd.X86.AVX512(), which the archsimd kernels need).
go_avx512() {
  local f
  for f in avx512f avx512cd avx512bw avx512dq avx512vl; do
    grep -q -w "$f" /proc/cpuinfo || return 1
  done
}
